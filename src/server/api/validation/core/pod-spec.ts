/**
 * Pod specs and pod templates (pkg/apis/core/validation: ValidatePodSpec,
 * ValidatePodTemplateSpec, ValidatePodSpecificAnnotations). The reference validates the
 * internal form, where hostNetwork, hostPID and hostIPC live in the pod's securityContext;
 * they are folded in here.
 */
import { type ErrorList, Path, duplicate, forbidden, invalid, notSupported, required } from '../field/index.js'
import { type Obj, arr, obj, str } from '../helpers.js'
import { validateLabels } from '../meta-v1.js'
import { nameIsDNSSubdomain } from '../names.js'
import { validateAnnotations } from '../objectmeta.js'
import { inclusiveRangeError, isDNS1123Subdomain, isValidIP } from '../strings.js'
import { validateDNS1123Label, validateQualifiedName } from './common.js'
import { type ContainerContext, validateContainers, validateEphemeralContainers, validateInitContainers } from './containers.js'
import { validateContainerResourceRequirements } from './resources.js'
import { validateAffinity, validateTolerations, validateTopologySpreadConstraints } from './scheduling.js'
import { validatePodSecurityContext } from './security-context.js'
import { validateVolumes } from './volumes.js'

const has = (o: Obj, k: string) => o[k] !== undefined && o[k] !== null
const MAX_INT32 = 2147483647

export interface PodValidationOptions {
  /** The spec is a pod's, not a template's (host ports must equal container ports on the host network). */
  resourceIsPod?: boolean
}

// The lists consulted on every pod spec, made once (an array literal is a new array per call).
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never']
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']
/** The claim names of a pod without resource claims (read only). */
const NO_CLAIMS: ReadonlySet<string> = new Set()

/** The names of the pod's resource claims, the empty ones left out. */
function podClaimNamesOf(claims: unknown): ReadonlySet<string> {
  const list = arr(claims)
  if (list.length === 0) return NO_CLAIMS
  const names = new Set<string>()
  for (const c of list) {
    const name = str(obj(c).name)
    if (name) names.add(name)
  }
  return names
}

function validateRestartPolicy(policy: string, fldPath: Path, errs: ErrorList): void {
  if (RESTART_POLICIES.includes(policy)) return
  if (policy === '') errs.push(required(fldPath))
  else errs.push(notSupported(fldPath, policy, RESTART_POLICIES))
}

function validateDNSPolicy(policy: string, fldPath: Path, errs: ErrorList): void {
  if (DNS_POLICIES.includes(policy)) return
  if (policy === '') errs.push(required(fldPath))
  else errs.push(notSupported(fldPath, policy, DNS_POLICIES))
}

function validatePodDNSConfig(config: unknown, dnsPolicy: string, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (dnsPolicy === 'None') {
    if (config === undefined || config === null) return [required(fldPath, 'must provide `dnsConfig` when `dnsPolicy` is None')]
    if (arr(obj(config).nameservers).length === 0) return [required(fldPath.child('nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')]
  }
  if (config === undefined || config === null) return errs
  const c = obj(config)
  const nameservers = arr(c.nameservers).map((n) => str(n))
  if (nameservers.length > 3) errs.push(invalid(fldPath.child('nameservers'), nameservers, 'must not have more than 3 nameservers'))
  nameservers.forEach((ns, i) => errs.push(...isValidIP(fldPath.child('nameservers').index(i), ns)))
  const searches = arr(c.searches).map((s) => str(s))
  if (searches.length > 32) errs.push(invalid(fldPath.child('searches'), searches, 'must not have more than 32 search paths'))
  if (searches.join(' ').length > 2048) errs.push(invalid(fldPath.child('searches'), searches, 'must not have more than 2048 characters (including spaces) in the search list'))
  // RelaxedDNSSearchValidation (on by default since 1.34): underscores allowed, "." alone allowed.
  searches.forEach((search, i) => {
    if (search === '.') return
    const s = search.endsWith('.') ? search.slice(0, -1) : search
    for (const m of isDNS1123SubdomainWithUnderscore(s)) errs.push(invalid(fldPath.child('searches').index(i), s, m))
  })
  arr(c.options).forEach((o, i) => {
    if (!str(obj(o).name)) errs.push(required(fldPath.child('options').index(i), 'must not be empty'))
  })
  return errs
}

const DNS1123_LABEL_US = '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?'
const DNS1123_SUBDOMAIN_US = `${DNS1123_LABEL_US}(\\.${DNS1123_LABEL_US})*`
const DNS1123_SUBDOMAIN_US_RE = new RegExp(`^${DNS1123_SUBDOMAIN_US}$`)

/** IsDNS1123SubdomainWithUnderscore. */
function isDNS1123SubdomainWithUnderscore(value: string): string[] {
  const errs: string[] = []
  if (value.length > 253) errs.push('must be no more than 253 characters')
  if (!DNS1123_SUBDOMAIN_US_RE.test(value)) {
    errs.push(
      `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN_US}')`,
    )
  }
  return errs
}

function validateHostAliases(aliases: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  arr(aliases).forEach((a, i) => {
    const alias = obj(a)
    errs.push(...isValidIP(fldPath.index(i).child('ip'), str(alias.ip)))
    arr(alias.hostnames).forEach((h, j) => {
      for (const m of isDNS1123Subdomain(str(h))) errs.push(invalid(fldPath.index(i).child('hostnames').index(j), str(h), m))
    })
  })
  return errs
}

/** The pod's securityContext in the internal form: the spec's host namespaces folded in. */
export function internalPodSecurityContext(spec: Obj): Obj {
  return { ...obj(spec.securityContext), hostNetwork: spec.hostNetwork === true, hostPID: spec.hostPID === true, hostIPC: spec.hostIPC === true }
}

/** ValidatePodSpec. */
export function validatePodSpec(specValue: unknown, podMeta: Obj | undefined, fldPath: Path, opts: PodValidationOptions = {}): ErrorList {
  const spec = obj(specValue)
  const errs: ErrorList = []
  if (typeof spec.terminationGracePeriodSeconds !== 'number') errs.push(required(fldPath.child('terminationGracePeriodSeconds')))
  const gracePeriod = typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : undefined
  const sc = internalPodSecurityContext(spec)
  const hostUsers = sc.hostUsers !== false
  const { vols, errs: volErrs } = validateVolumes(spec.volumes, podMeta, fldPath.child('volumes'), opts.resourceIsPod === true)
  errs.push(...volErrs)
  const podClaimNames = podClaimNamesOf(spec.resourceClaims)
  if (arr(spec.resourceClaims).length > 0) errs.push(...validatePodResourceClaims(spec.resourceClaims, fldPath.child('resourceClaims')))
  const restartPolicy = str(spec.restartPolicy)
  const ctx: ContainerContext = { volumes: vols, podClaimNames, gracePeriod, restartPolicy, hostUsers }
  errs.push(...validateContainers(spec.containers, ctx, fldPath.child('containers')))
  errs.push(...validateInitContainers(spec.initContainers, spec.containers, ctx, fldPath.child('initContainers')))
  errs.push(...validateEphemeralContainers(spec.ephemeralContainers, spec.containers, spec.initContainers, ctx, fldPath.child('ephemeralContainers')))
  // PodLevelResources (beta, on by default since 1.34).
  if (has(spec, 'resources')) errs.push(...validatePodResources(spec, podClaimNames, fldPath.child('resources')))
  if (sc.hostNetwork === true) {
    arr(spec.containers).forEach((c, i) => {
      arr(obj(c).ports).forEach((x, j) => {
        const port = obj(x)
        const hp = typeof port.hostPort === 'number' ? port.hostPort : 0
        const cp = typeof port.containerPort === 'number' ? port.containerPort : 0
        if ((opts.resourceIsPod || hp !== 0) && hp !== cp) {
          errs.push(invalid(fldPath.child('containers').index(i).child('ports').index(j).child('hostPort'), hp, 'must match `containerPort` when `hostNetwork` is true'))
        }
      })
    })
  }
  validateRestartPolicy(restartPolicy, fldPath.child('restartPolicy'), errs)
  validateDNSPolicy(str(spec.dnsPolicy), fldPath.child('dnsPolicy'), errs)
  errs.push(...validateLabels(spec.nodeSelector, fldPath.child('nodeSelector')))
  errs.push(...validatePodSecurityContext(sc, fldPath.child('securityContext')))
  const pullSecrets = arr(spec.imagePullSecrets)
  for (let i = 0; i < pullSecrets.length; i++) {
    const s = obj(pullSecrets[i])
    const keys = Object.keys(s).filter((k) => k !== 'name')
    if (keys.length > 0) errs.push(invalid(fldPath.child('imagePullSecrets').index(i), { Name: str(s.name) }, 'only name may be set'))
  }
  errs.push(...validateAffinity(spec.affinity, fldPath.child('affinity')))
  errs.push(...validatePodDNSConfig(spec.dnsConfig, str(spec.dnsPolicy), fldPath.child('dnsConfig')))
  const readinessGates = arr(spec.readinessGates)
  for (let i = 0; i < readinessGates.length; i++) errs.push(...validateQualifiedName(str(obj(readinessGates[i]).conditionType), fldPath.child('readinessGates').index(i).child('conditionType')))
  const schedulingGates = arr(spec.schedulingGates)
  if (schedulingGates.length > 0) {
    const gates = new Set<string>()
    for (let i = 0; i < schedulingGates.length; i++) {
      const name = str(obj(schedulingGates[i]).name)
      errs.push(...validateQualifiedName(name, fldPath.child('schedulingGates').index(i)))
      if (gates.has(name)) errs.push(duplicate(fldPath.child('schedulingGates').index(i), name))
      gates.add(name)
    }
  }
  errs.push(...validateTopologySpreadConstraints(spec.topologySpreadConstraints, fldPath.child('topologySpreadConstraints')))
  if (sc.hostUsers === false) {
    if (sc.hostNetwork) errs.push(forbidden(fldPath.child('hostNetwork'), 'when `pod.Spec.HostUsers` is false'))
    if (sc.hostPID) errs.push(forbidden(fldPath.child('HostPID'), 'when `pod.Spec.HostUsers` is false'))
    if (sc.hostIPC) errs.push(forbidden(fldPath.child('HostIPC'), 'when `pod.Spec.HostUsers` is false'))
  }
  const sa = str(spec.serviceAccountName)
  if (sa) for (const m of nameIsDNSSubdomain(sa, false)) errs.push(invalid(fldPath.child('serviceAccountName'), sa, m))
  const nodeName = str(spec.nodeName)
  if (nodeName) for (const m of nameIsDNSSubdomain(nodeName, false)) errs.push(invalid(fldPath.child('nodeName'), nodeName, m))
  if (typeof spec.activeDeadlineSeconds === 'number' && (spec.activeDeadlineSeconds < 1 || spec.activeDeadlineSeconds > MAX_INT32)) {
    errs.push(invalid(fldPath.child('activeDeadlineSeconds'), spec.activeDeadlineSeconds, inclusiveRangeError(1, MAX_INT32)))
  }
  if (str(spec.hostname)) errs.push(...validateDNS1123Label(str(spec.hostname), fldPath.child('hostname')))
  if (str(spec.subdomain)) errs.push(...validateDNS1123Label(str(spec.subdomain), fldPath.child('subdomain')))
  if (arr(spec.tolerations).length > 0) errs.push(...validateTolerations(spec.tolerations, fldPath.child('tolerations')))
  if (arr(spec.hostAliases).length > 0) errs.push(...validateHostAliases(spec.hostAliases, fldPath.child('hostAliases')))
  const pc = str(spec.priorityClassName)
  if (pc) for (const m of nameIsDNSSubdomain(pc, false)) errs.push(invalid(fldPath.child('priorityClassName'), pc, m))
  if (has(spec, 'runtimeClassName')) for (const m of nameIsDNSSubdomain(str(spec.runtimeClassName), false)) errs.push(invalid(fldPath.child('runtimeClassName'), str(spec.runtimeClassName), m))
  if (has(spec, 'preemptionPolicy')) {
    const pp = str(spec.preemptionPolicy)
    if (pp === '') errs.push(required(fldPath.child('preemptionPolicy')))
    else if (pp !== 'PreemptLowerPriority' && pp !== 'Never') errs.push(notSupported(fldPath.child('preemptionPolicy'), pp, ['PreemptLowerPriority', 'Never']))
  }
  if (has(spec, 'overhead')) errs.push(...validateContainerResourceRequirements({ limits: spec.overhead }, undefined, fldPath.child('overhead')))
  if (has(spec, 'os')) {
    const os = str(obj(spec.os).name)
    if (!os) errs.push(required(fldPath.child('os').child('name'), 'cannot be empty'))
    else if (os !== 'linux' && os !== 'windows') errs.push(notSupported(fldPath.child('os'), os, ['linux', 'windows']))
    else if (os === 'linux') errs.push(...validateLinux(spec, fldPath))
  }
  return errs
}

function validateLinux(spec: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (has(obj(spec.securityContext), 'windowsOptions')) errs.push(forbidden(fldPath.child('securityContext').child('windowsOptions'), 'windows options cannot be set for a linux pod'))
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    arr(spec[list]).forEach((c, i) => {
      if (has(obj(obj(c).securityContext), 'windowsOptions')) {
        errs.push(forbidden(fldPath.child(list).index(i).child('securityContext').child('windowsOptions'), 'windows options cannot be set for a linux pod'))
      }
    })
  }
  return errs
}

function validatePodResourceClaims(claims: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const names = new Set<string>()
  arr(claims).forEach((c, i) => {
    const claim = obj(c)
    const p = fldPath.index(i)
    const name = str(claim.name)
    if (!name) errs.push(required(p.child('name')))
    else if (names.has(name)) errs.push(duplicate(p.child('name'), name))
    else {
      errs.push(...validateDNS1123Label(name, p.child('name')))
      names.add(name)
    }
    const value = { Name: name, ResourceClaimName: claim.resourceClaimName ?? null, ResourceClaimTemplateName: claim.resourceClaimTemplateName ?? null }
    if (has(claim, 'resourceClaimName') && has(claim, 'resourceClaimTemplateName')) errs.push(invalid(p, value, 'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified'))
    if (!has(claim, 'resourceClaimName') && !has(claim, 'resourceClaimTemplateName')) errs.push(invalid(p, value, 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'))
    for (const f of ['resourceClaimName', 'resourceClaimTemplateName']) {
      if (has(claim, f)) for (const m of nameIsDNSSubdomain(str(claim[f]), false)) errs.push(invalid(p.child(f), str(claim[f]), m))
    }
  })
  return errs
}

function validatePodResources(spec: Obj, podClaimNames: ReadonlySet<string>, fldPath: Path): ErrorList {
  const resources = obj(spec.resources)
  const errs: ErrorList = []
  if (has(resources, 'claims')) errs.push(forbidden(fldPath.child('claims'), 'claims cannot be set for Resources at pod-level'))
  const names = [...Object.keys(obj(resources.requests)), ...Object.keys(obj(resources.limits))]
  for (const name of new Set(names)) {
    if (!['cpu', 'memory', 'hugepages-2Mi', 'hugepages-1Gi'].includes(name) && !name.startsWith('hugepages-')) {
      const p = name in obj(resources.limits) ? fldPath.child('limits').key(name) : fldPath.child('requests').key(name)
      errs.push(notSupported(p, name, ['cpu', 'memory']))
    }
  }
  errs.push(...validateContainerResourceRequirements({ ...resources, claims: undefined }, podClaimNames, fldPath))
  return errs
}

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror'
const DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost'
const SECCOMP_POD = 'seccomp.security.alpha.kubernetes.io/pod'
const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/'

function validateSeccompProfileAnnotation(p: string, fldPath: Path): ErrorList {
  if (p === 'runtime/default' || p === 'docker/default' || p === 'unconfined') return []
  if (p.startsWith('localhost/')) {
    const rest = p.slice('localhost/'.length)
    const errs: ErrorList = []
    if (rest.startsWith('/')) errs.push(invalid(fldPath, rest, 'must be a relative path'))
    if (rest.split('/').includes('..')) errs.push(invalid(fldPath, rest, "must not contain '..'"))
    return errs
  }
  return [invalid(fldPath, p, 'must be a valid seccomp profile')]
}

/** ValidatePodSpecificAnnotations. */
export function validatePodSpecificAnnotations(annotations: unknown, spec: Obj, fldPath: Path): ErrorList {
  const ann = obj(annotations)
  const errs: ErrorList = []
  if (MIRROR_POD_ANNOTATION in ann && !str(spec.nodeName)) {
    errs.push(invalid(fldPath.key(MIRROR_POD_ANNOTATION), str(ann[MIRROR_POD_ANNOTATION]), 'must set spec.nodeName if mirror pod annotation is set'))
  }
  if (DELETION_COST in ann) {
    const v = str(ann[DELETION_COST])
    const n = Number(v)
    const firstOK = v === '0' || /^(-|[1-9])/.test(v)
    if (!firstOK || !/^-?\d+$/.test(v) || n < -2147483648 || n > MAX_INT32) errs.push(invalid(fldPath.key(DELETION_COST), v, 'must be a 32bit integer'))
  }
  if (SECCOMP_POD in ann) errs.push(...validateSeccompProfileAnnotation(str(ann[SECCOMP_POD]), fldPath.child(SECCOMP_POD)))
  for (const k in ann) if (k.startsWith(SECCOMP_CONTAINER_PREFIX)) errs.push(...validateSeccompProfileAnnotation(str(ann[k]), fldPath.child(k)))
  return errs
}

/** ValidatePodTemplateSpec: labels, annotations, the spec; no ephemeral containers. */
export function validatePodTemplateSpec(templateValue: unknown, fldPath: Path, opts: PodValidationOptions = {}): ErrorList {
  const template = obj(templateValue)
  const meta = obj(template.metadata)
  const spec = obj(template.spec)
  const errs = validateLabels(meta.labels, fldPath.child('labels'))
  errs.push(...validateAnnotations(meta.annotations, fldPath.child('annotations')))
  errs.push(...validatePodSpecificAnnotations(meta.annotations, spec, fldPath.child('annotations')))
  errs.push(...validatePodSpec(spec, undefined, fldPath.child('spec'), opts))
  if (arr(spec.ephemeralContainers).length > 0) errs.push(forbidden(fldPath.child('spec', 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'))
  return errs
}

/**
 * ValidatePodTemplateSpecForStatefulSet's checks of the template: its labels and annotations
 * only. The reference leaves the pod spec out (its TODO: the volumes would fail, the claim
 * templates' volumes being added only to the pods), so a volumeMount naming a
 * volumeClaimTemplate is accepted.
 */
export function validateStatefulSetTemplateMeta(templateValue: unknown, fldPath: Path): ErrorList {
  const template = obj(templateValue)
  const meta = obj(template.metadata)
  const errs = validateLabels(meta.labels, fldPath.child('labels'))
  errs.push(...validateAnnotations(meta.annotations, fldPath.child('annotations')))
  errs.push(...validatePodSpecificAnnotations(meta.annotations, obj(template.spec), fldPath.child('annotations')))
  return errs
}

export { Path }
