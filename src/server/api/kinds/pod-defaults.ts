/**
 * The reference's pod spec defaults (SetDefaults_PodSpec, SetDefaults_Container, the volume
 * sources'), which every kind with a pod template applies: Pods, PodTemplates,
 * ReplicationControllers and the apps and batch workloads.
 */
import { isPlainObject } from '../registry/object.js'
import { type Obj, arr, obj, str } from './values.js'

/** The pull policy an image gets by default: Always for `latest` (or no tag), else IfNotPresent. */
function defaultPullPolicy(image: string): string {
  const tagged = /:[^/]+$/.test(image.split('@')[0]!) && !image.split('@')[0]!.endsWith(':latest')
  return tagged || image.includes('@') ? 'IfNotPresent' : 'Always'
}

function defaultContainers(list: unknown): void {
  for (const c of arr(list)) {
    if (!isPlainObject(c)) continue
    c.imagePullPolicy ??= defaultPullPolicy(str(c.image))
    c.terminationMessagePath ??= '/dev/termination-log'
    c.terminationMessagePolicy ??= 'File'
    c.resources ??= {}
    for (const p of arr(c.ports)) if (isPlainObject(p)) p.protocol ??= 'TCP'
    // SetDefaults_ObjectFieldSelector: a fieldRef names the v1 field by default.
    for (const e of arr(c.env)) {
      const fieldRef = obj(obj(obj(e).valueFrom).fieldRef)
      if (obj(obj(e).valueFrom).fieldRef !== undefined) fieldRef.apiVersion ??= 'v1'
    }
    // SetDefaults_Probe and the HTTP/gRPC handlers' defaults.
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
      if (!isPlainObject(c[probe])) continue
      const p = c[probe] as Obj
      p.timeoutSeconds ??= 1
      p.periodSeconds ??= 10
      p.successThreshold ??= 1
      p.failureThreshold ??= 3
      if (isPlainObject(p.httpGet)) {
        p.httpGet.path ??= '/'
        p.httpGet.scheme ??= 'HTTP'
      }
      if (isPlainObject(p.grpc)) p.grpc.service ??= ''
    }
  }
}

/** SetDefaults_Volume and the volume sources' defaults (file modes 0644, emptyDir for none). */
function defaultVolumes(list: unknown): void {
  const SOURCES_WITH_MODE = ['secret', 'configMap', 'downwardAPI', 'projected']
  for (const v of arr(list)) {
    if (!isPlainObject(v)) continue
    const sources = Object.keys(v).filter((k) => k !== 'name')
    if (sources.length === 0) v.emptyDir = {}
    for (const source of SOURCES_WITH_MODE) if (isPlainObject(v[source])) (v[source] as Obj).defaultMode ??= 420
    if (isPlainObject(v.hostPath)) v.hostPath.type ??= ''
    // SetDefaults_ImageVolumeSource: the containers' rule for the reference's tag.
    if (isPlainObject(v.image)) v.image.pullPolicy ??= defaultPullPolicy(str(v.image.reference))
    for (const item of arr(obj(v.downwardAPI).items)) if (isPlainObject(obj(item).fieldRef)) obj(obj(item).fieldRef).apiVersion ??= 'v1'
  }
}

/** The reference's pod spec defaults (SetDefaults_PodSpec, SetDefaults_Container). */
/**
 * The v1 conversion's alias (Convert_v1_PodSpec_To_core_PodSpec and back): the deprecated
 * `serviceAccount` names the account when `serviceAccountName` does not, and is written back
 * as `serviceAccountName` (absent when empty).
 */
export function aliasDeprecatedServiceAccount(spec: Obj): void {
  if (str(spec.serviceAccountName) === '' && str(spec.serviceAccount) !== '') spec.serviceAccountName = spec.serviceAccount
  if (str(spec.serviceAccountName) !== '') spec.serviceAccount = spec.serviceAccountName
  else delete spec.serviceAccount
}

export function defaultPodSpec(spec: Obj): void {
  aliasDeprecatedServiceAccount(spec)
  spec.restartPolicy ??= 'Always'
  spec.dnsPolicy ??= 'ClusterFirst'
  spec.schedulerName ??= 'default-scheduler'
  spec.terminationGracePeriodSeconds ??= 30
  spec.securityContext ??= {}
  defaultContainers(spec.containers)
  defaultContainers(spec.initContainers)
  // SetDefaults_EphemeralContainer: the Container defaults.
  defaultContainers(spec.ephemeralContainers)
  defaultVolumes(spec.volumes)
}

/** The defaults of a workload's pod template (spec.template). */
export function defaultTemplate(spec: Obj): void {
  const template = obj(spec.template)
  template.spec = obj(template.spec)
  defaultPodSpec(template.spec as Obj)
  spec.template = template
}
