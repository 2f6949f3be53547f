/**
 * Pods, pod templates and replication controllers (pkg/apis/core/validation:
 * ValidatePodCreate, ValidatePodUpdate, ValidatePodStatusUpdate,
 * ValidatePodEphemeralContainersUpdate, ValidatePodTemplate, ValidateReplicationController*).
 * Metadata itself is checked by the generic store.
 */
import { type ErrorList, Path, forbidden, invalid, notSupported, required } from '../field/index.js'
import { type Obj, arr, obj, semanticEqual, str, templateLabels } from '../helpers.js'
import { nameIsDNSSubdomain } from '../names.js'
import { validateImmutableField, validateNonnegativeField } from '../objectmeta.js'
import { inclusiveRangeError, isValidIP } from '../strings.js'
import { validateQualifiedName } from './common.js'
import { validateContainerOnlyForPod } from './containers.js'
import { validatePodSpec, validatePodSpecificAnnotations, validatePodTemplateSpec } from './pod-spec.js'
import { validateTolerations } from './scheduling.js'

const SPEC = Path.of('spec')
const MIRROR = 'kubernetes.io/config.mirror'
const MAX_INT32 = 2147483647
const has = (o: Obj, k: string) => o[k] !== undefined && o[k] !== null

/** validatePodMetadataAndSpec without ValidateObjectMeta. */
function validatePodMetadataAndSpec(pod: Obj): ErrorList {
  const meta = obj(pod.metadata)
  const spec = obj(pod.spec)
  const errs = validatePodSpecificAnnotations(meta.annotations, spec, Path.of('metadata', 'annotations'))
  errs.push(...validatePodSpec(spec, meta, SPEC, { resourceIsPod: true }))
  if (!str(spec.serviceAccountName)) {
    arr(spec.volumes).forEach((v, vi) => {
      arr(obj(obj(v).projected).sources).forEach((s, si) => {
        if (has(obj(s), 'serviceAccountToken')) {
          errs.push(forbidden(SPEC.child('volumes').index(vi).child('projected').child('sources').index(si).child('serviceAccountToken'), 'must not be specified when serviceAccountName is not set'))
        }
      })
    })
  }
  arr(spec.containers).forEach((c, i) => errs.push(...validateContainerOnlyForPod(obj(c), SPEC.child('containers').index(i))))
  arr(spec.initContainers).forEach((c, i) => errs.push(...validateContainerOnlyForPod(obj(c), SPEC.child('initContainers').index(i))))
  return errs
}

/** ValidatePodCreate. */
export function validatePod(pod: Obj): ErrorList {
  const errs = validatePodMetadataAndSpec(pod)
  const spec = obj(pod.spec)
  if (arr(spec.ephemeralContainers).length > 0) errs.push(forbidden(SPEC.child('ephemeralContainers'), 'cannot be set on create'))
  if (str(spec.nodeName) && arr(spec.schedulingGates).length > 0) errs.push(forbidden(SPEC.child('nodeName'), 'cannot be set until all schedulingGates have been cleared'))
  return errs
}

const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
]

function validateContainerUpdates(newList: unknown, oldList: unknown, fldPath: Path): { errs: ErrorList; stop: boolean } {
  const n = arr(newList).map(obj)
  if (n.length !== arr(oldList).length) return { errs: [forbidden(fldPath, 'pod updates may not add or remove containers')], stop: true }
  const errs: ErrorList = []
  n.forEach((c, i) => {
    const image = str(c.image)
    if (!image) errs.push(required(fldPath.index(i).child('image')))
    if (image.trim() !== image) errs.push(invalid(fldPath.index(i).child('image'), image, 'must not have leading or trailing whitespace'))
  })
  return { errs, stop: false }
}

function validateOnlyAddedTolerations(newTols: unknown, oldTols: unknown, fldPath: Path): ErrorList {
  for (const old of arr(oldTols).map(obj)) {
    const found = arr(newTols)
      .map(obj)
      .some((t) => semanticEqual({ ...old, tolerationSeconds: t.tolerationSeconds }, t))
    if (!found) return [forbidden(fldPath, 'existing toleration can not be modified except its tolerationSeconds')]
  }
  return validateTolerations(newTols, fldPath)
}

/** ValidatePodUpdate (beyond metadata). */
export function validatePodUpdate(pod: Obj, old: Obj): ErrorList {
  const errs = validatePodMetadataAndSpec(pod)
  errs.push(...validatePodSpecificAnnotationUpdates(pod, old))
  const spec = obj(pod.spec)
  const oldSpec = obj(old.spec)
  for (const list of ['containers', 'initContainers']) {
    const r = validateContainerUpdates(spec[list], oldSpec[list], SPEC.child(list))
    errs.push(...r.errs)
    if (r.stop) return errs
  }
  const deadlinePath = SPEC.child('activeDeadlineSeconds')
  if (typeof spec.activeDeadlineSeconds === 'number') {
    const v = spec.activeDeadlineSeconds
    if (v < 0 || v > MAX_INT32) return [...errs, invalid(deadlinePath, v, inclusiveRangeError(0, MAX_INT32))]
    if (typeof oldSpec.activeDeadlineSeconds === 'number' && oldSpec.activeDeadlineSeconds < v) return [...errs, invalid(deadlinePath, v, 'must be less than or equal to previous value')]
  } else if (typeof oldSpec.activeDeadlineSeconds === 'number') {
    errs.push(invalid(deadlinePath, null, 'must not update from a positive integer to nil value'))
  }
  errs.push(...validateOnlyAddedTolerations(spec.tolerations, oldSpec.tolerations, SPEC.child('tolerations')))
  const newGates = arr(spec.schedulingGates)
  if (newGates.length > 0) {
    const oldNames = new Set(arr(oldSpec.schedulingGates).map((g) => str(obj(g).name)))
    newGates.forEach((g, i) => {
      const name = str(obj(g).name)
      if (!oldNames.has(name)) errs.push(forbidden(SPEC.child('schedulingGates').index(i).child('name'), `only deletion is allowed, but found new scheduling gate '${name}'`))
    })
  }
  if (semanticEqual(spec, oldSpec)) return errs
  const munged = structuredClone(spec)
  const mungeImages = (list: string) => {
    const oldList = arr(oldSpec[list]).map(obj)
    munged[list] = arr(munged[list]).map((c, i) => ({ ...obj(c), image: oldList[i]?.image }))
  }
  mungeImages('containers')
  mungeImages('initContainers')
  munged.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds
  munged.schedulingGates = oldSpec.schedulingGates
  munged.tolerations = oldSpec.tolerations
  if (typeof oldSpec.terminationGracePeriodSeconds === 'number' && oldSpec.terminationGracePeriodSeconds < 0 && munged.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = oldSpec.terminationGracePeriodSeconds
  }
  if (arr(oldSpec.schedulingGates).length > 0) {
    // A gated pod may gain node selector entries and node affinity terms.
    const oldSel = obj(oldSpec.nodeSelector)
    const newSel = obj(munged.nodeSelector)
    if (!semanticEqual(newSel, oldSel)) {
      if (Object.entries(oldSel).some(([k, v]) => newSel[k] !== v)) {
        errs.push(invalid(SPEC.child('nodeSelector'), newSel, 'only additions to spec.nodeSelector are allowed (no mutations or deletions)'))
      }
      munged.nodeSelector = oldSpec.nodeSelector
    }
    const oldNA = obj(oldSpec.affinity).nodeAffinity
    const newNA = obj(munged.affinity).nodeAffinity
    if (!semanticEqual(oldNA, newNA)) {
      munged.affinity = { ...obj(munged.affinity), nodeAffinity: oldNA }
      if (oldSpec.affinity === undefined && Object.keys(obj(munged.affinity)).every((k) => k === 'nodeAffinity')) munged.affinity = oldSpec.affinity
    }
  }
  if (!semanticEqual(munged, oldSpec)) {
    errs.push(forbidden(SPEC, `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}`))
  }
  return errs
}

const APPARMOR_PREFIX = 'container.apparmor.security.beta.kubernetes.io/'

/** ValidatePodSpecificAnnotationUpdates: the mirror-pod and AppArmor annotations are fixed. */
function validatePodSpecificAnnotationUpdates(pod: Obj, old: Obj): ErrorList {
  const errs: ErrorList = []
  const fldPath = Path.of('metadata', 'annotations')
  const n = obj(obj(pod.metadata).annotations)
  const o = obj(obj(old.metadata).annotations)
  for (const [k, v] of Object.entries(o)) {
    if (k in n && n[k] === v) continue
    if (k.startsWith(APPARMOR_PREFIX)) errs.push(forbidden(fldPath.key(k), 'may not remove or update AppArmor annotations'))
    if (k === MIRROR) errs.push(forbidden(fldPath.key(k), 'may not remove or update mirror pod annotation'))
  }
  for (const k of Object.keys(n)) {
    if (k in o) continue
    if (k.startsWith(APPARMOR_PREFIX)) errs.push(forbidden(fldPath.key(k), 'may not add AppArmor annotations'))
    if (k === MIRROR) errs.push(forbidden(fldPath.key(k), 'may not add mirror pod annotation'))
  }
  return errs
}

/** ValidatePodStatusUpdate (beyond metadata). */
export function validatePodStatusUpdate(pod: Obj, old: Obj): ErrorList {
  const errs = validatePodSpecificAnnotationUpdates(pod, old)
  const status = obj(pod.status)
  const oldStatus = obj(old.status)
  const system = new Set(['PodScheduled', 'Ready', 'Initialized'])
  arr(status.conditions).forEach((c, i) => {
    const type = str(obj(c).type)
    if (!system.has(type)) errs.push(...validateQualifiedName(type, Path.of('metadata', 'conditions').index(i).child('Type')))
  })
  const statusPath = Path.of('status')
  if (str(obj(pod.spec).nodeName) !== str(obj(old.spec).nodeName)) errs.push(forbidden(statusPath.child('nodeName'), 'may not be changed directly'))
  const nominated = str(status.nominatedNodeName)
  if (nominated !== str(oldStatus.nominatedNodeName) && nominated) {
    for (const m of nameIsDNSSubdomain(nominated, false)) errs.push(invalid(statusPath.child('nominatedNodeName'), nominated, m))
  }
  errs.push(...validateImmutableField(str(status.qosClass), str(oldStatus.qosClass), statusPath.child('qosClass')))
  arr(status.podIPs).forEach((ip, i) => errs.push(...isValidIP(statusPath.child('podIPs').index(i), str(obj(ip).ip))))
  const hostIPs = arr(status.hostIPs)
  if (hostIPs.length > 0) {
    if (str(status.hostIP) !== str(obj(hostIPs[0]).ip)) errs.push(invalid(statusPath.child('hostIPs').index(0).child('ip'), str(obj(hostIPs[0]).ip), 'must be equal to `hostIP`'))
    hostIPs.forEach((ip, i) => errs.push(...isValidIP(statusPath.child('hostIPs').index(i), str(obj(ip).ip))))
  }
  return errs
}

/** ValidatePodEphemeralContainersUpdate (beyond metadata). */
export function validatePodEphemeralContainersUpdate(pod: Obj, old: Obj): ErrorList {
  const errs = validatePodMetadataAndSpec(pod)
  errs.push(...validatePodSpecificAnnotationUpdates(pod, old))
  if (MIRROR in obj(obj(old.metadata).annotations)) return [forbidden(Path.of(''), 'static pods do not support ephemeral containers')]
  const specPath = SPEC.child('ephemeralContainers')
  const byName = new Map(arr(obj(pod.spec).ephemeralContainers).map((c) => [str(obj(c).name), obj(c)] as const))
  for (const oc of arr(obj(old.spec).ephemeralContainers).map(obj)) {
    const name = str(oc.name)
    const nc = byName.get(name)
    if (!nc) errs.push(forbidden(specPath, `existing ephemeral containers "${name}" may not be removed\n`))
    else if (!semanticEqual(oc, nc)) errs.push(forbidden(specPath, `existing ephemeral containers "${name}" may not be changed\n`))
  }
  return errs
}

/** Whether resizing took a resource away (resourcesRemoved). */
function resourcesRemoved(list: unknown, oldList: unknown): boolean {
  const n = obj(list)
  return Object.keys(obj(oldList)).some((name) => !(name in n))
}

/** validateContainerResize: requests and limits may change, not be removed. */
function validateContainerResize(resources: unknown, oldResources: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (resourcesRemoved(obj(resources).requests, obj(oldResources).requests)) errs.push(forbidden(fldPath.child('requests'), 'resource requests cannot be removed'))
  if (resourcesRemoved(obj(resources).limits, obj(oldResources).limits)) errs.push(forbidden(fldPath.child('limits'), 'resource limits cannot be removed'))
  return errs
}

/** validatePodResizeContainerOrdering: the same containers, in the same order. */
function validatePodResizeContainerOrdering(spec: Obj, oldSpec: Obj): ErrorList {
  const errs: ErrorList = []
  for (const [list, words] of [['containers', 'containers'], ['initContainers', 'initContainers']] as const) {
    const n = arr(spec[list]).map(obj)
    const o = arr(oldSpec[list]).map(obj)
    if (n.length !== o.length) errs.push(forbidden(SPEC.child(list), `${words} may not be added or removed on resize`))
    else o.forEach((c, i) => {
      if (str(n[i]!.name) !== str(c.name)) errs.push(forbidden(SPEC.child(list).index(i).child('name'), `${words} may not be renamed or reordered on resize`))
    })
  }
  return errs
}

/** dropCPUMemoryResourcesFromContainer: the container as it would be had only cpu, memory and the resize policy changed. */
function withoutCPUMemoryChanges(c: Obj, old: Obj): Obj {
  const munge = (list: unknown, oldList: unknown) => {
    if (oldList === undefined || oldList === null) return undefined
    const munged = { ...obj(list) }
    delete munged.cpu
    delete munged.memory
    for (const r of ['cpu', 'memory']) if (r in obj(oldList)) munged[r] = obj(oldList)[r]
    return munged
  }
  const resources = obj(c.resources)
  const oldResources = obj(old.resources)
  return { ...c, resources: { limits: munge(resources.limits, oldResources.limits), requests: munge(resources.requests, oldResources.requests) }, resizePolicy: old.resizePolicy }
}

/**
 * ValidatePodResize (the pods/resize subresource): the pod's spec as on update, no static or
 * Windows pod, the QoS class kept, the same containers, no request or limit removed, and
 * nothing but cpu and memory (and the resize policy) changed. `qosClass` computes a spec's
 * class (the reference's qos.ComputePodQOS).
 */
export function validatePodResize(pod: Obj, old: Obj, qosClass: (spec: Obj) => string): ErrorList {
  const errs = validatePodMetadataAndSpec(pod)
  if (MIRROR in obj(obj(old.metadata).annotations)) return [forbidden(Path.of(''), 'static pods cannot be resized')]
  const spec = obj(pod.spec)
  const oldSpec = obj(old.spec)
  if (str(obj(oldSpec.os).name) === 'windows') return [forbidden(Path.of(''), 'windows pods cannot be resized')]
  const oldClass = str(obj(old.status).qosClass) || qosClass(oldSpec)
  const newClass = qosClass(spec)
  if (oldClass !== newClass) errs.push(invalid(SPEC, newClass, 'Pod QOS Class may not change as a result of resizing'))
  // A running container whose status has no resources is on a node that cannot resize.
  const unsupported = arr(obj(old.status).containerStatuses).map(obj).some((s) => has(obj(s.state), 'running') && !has(s, 'resources'))
  if (unsupported) errs.push(forbidden(SPEC, 'Pod running on node without support for resize'))
  const ordering = validatePodResizeContainerOrdering(spec, oldSpec)
  errs.push(...ordering)
  if (ordering.length > 0) return errs
  const initContainers = arr(spec.initContainers).map(obj)
  const oldInit = arr(oldSpec.initContainers).map(obj)
  oldInit.forEach((c, i) => {
    if (c.restartPolicy !== 'Always') return
    errs.push(...validateContainerResize(initContainers[i]!.resources, c.resources, SPEC.child('initContainers').index(i).child('resources')))
  })
  const containers = arr(spec.containers).map(obj)
  const oldContainers = arr(oldSpec.containers).map(obj)
  oldContainers.forEach((c, i) => errs.push(...validateContainerResize(containers[i]!.resources, c.resources, SPEC.child('containers').index(i).child('resources'))))
  const munged = structuredClone(spec)
  munged.containers = containers.map((c, i) => {
    const m = withoutCPUMemoryChanges(c, oldContainers[i]!)
    if (!semanticEqual(m, oldContainers[i])) errs.push(forbidden(SPEC, 'only cpu and memory resources are mutable'))
    return m
  })
  munged.initContainers = initContainers.map((c, i) => {
    if (c.restartPolicy === 'Always') {
      const m = withoutCPUMemoryChanges(c, oldInit[i]!)
      if (!semanticEqual(m, oldInit[i])) errs.push(forbidden(SPEC, 'only cpu and memory resources for sidecar containers are mutable'))
      return m
    }
    if (!semanticEqual(c, oldInit[i])) errs.push(forbidden(SPEC, 'resources for non-sidecar init containers are immutable'))
    return c
  })
  if (errs.length > 0) return errs
  if (!semanticEqual(munged, oldSpec)) errs.push(forbidden(SPEC, 'only cpu and memory resources are mutable'))
  return errs
}

/** ValidatePodTemplate (the PodTemplate kind). */
export function validatePodTemplate(o: Obj): ErrorList {
  return validatePodTemplateSpec(o.template, Path.of('template'))
}

// ---- replication controllers ----

function validatePodTemplateSpecForRC(template: unknown, selector: Obj, fldPath: Path): ErrorList {
  if (template === undefined || template === null) return [required(fldPath)]
  const t = obj(template)
  const errs: ErrorList = []
  const labels = obj(obj(t.metadata).labels)
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    errs.push(invalid(fldPath.child('metadata', 'labels'), templateLabels(t), '`selector` does not match template `labels`'))
  }
  errs.push(...validatePodTemplateSpec(t, fldPath))
  const spec = obj(t.spec)
  if (str(spec.restartPolicy) !== 'Always') errs.push(notSupported(fldPath.child('spec', 'restartPolicy'), str(spec.restartPolicy), ['Always']))
  if (has(spec, 'activeDeadlineSeconds')) errs.push(forbidden(fldPath.child('spec', 'activeDeadlineSeconds'), 'activeDeadlineSeconds in ReplicationController is not Supported'))
  return errs
}

/** ValidateReplicationControllerSpec. */
export function validateReplicationController(o: Obj): ErrorList {
  const spec = obj(o.spec)
  const errs = validateNonnegativeField(typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0, SPEC.child('minReadySeconds'))
  const selector = obj(spec.selector)
  if (Object.keys(selector).length === 0) errs.push(required(SPEC.child('selector')))
  errs.push(...validateNonnegativeField(typeof spec.replicas === 'number' ? spec.replicas : 0, SPEC.child('replicas')))
  errs.push(...validatePodTemplateSpecForRC(spec.template, selector, SPEC.child('template')))
  return errs
}

/** ValidateReplicationControllerStatusUpdate (beyond metadata). */
export function validateReplicationControllerStatusUpdate(o: Obj): ErrorList {
  const status = obj(o.status)
  const p = Path.of('status')
  const n = (k: string) => (typeof status[k] === 'number' ? (status[k] as number) : 0)
  const errs: ErrorList = []
  for (const k of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']) errs.push(...validateNonnegativeField(n(k), p.child(k)))
  const msg = 'cannot be greater than status.replicas'
  if (n('fullyLabeledReplicas') > n('replicas')) errs.push(invalid(p.child('fullyLabeledReplicas'), n('fullyLabeledReplicas'), msg))
  if (n('readyReplicas') > n('replicas')) errs.push(invalid(p.child('readyReplicas'), n('readyReplicas'), msg))
  if (n('availableReplicas') > n('replicas')) errs.push(invalid(p.child('availableReplicas'), n('availableReplicas'), msg))
  if (n('availableReplicas') > n('readyReplicas')) errs.push(invalid(p.child('availableReplicas'), n('availableReplicas'), 'cannot be greater than readyReplicas'))
  return errs
}
