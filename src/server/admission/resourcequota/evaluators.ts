/**
 * What a quota counts of each kind (the reference's pkg/quota/v1/evaluator/core and
 * k8s.io/apiserver/pkg/quota/v1/generic): an evaluator says which operations change usage,
 * which quota resource names it tracks, whether an object is in a quota's scopes, what the
 * object must set, and the object's usage. Pods, services and claims have their own; every
 * other resource has the object-count one (`count/<resource>.<group>`, and the legacy names
 * `configmaps`, `secrets`, `replicationcontrollers`, `resourcequotas`).
 */
import type { KubeObject } from '../../api/registry/object.js'
import { compareQuantity } from '../../api/validation/quantity.js'
import type { AdmissionOperation } from '../attributes.js'
import { podResources } from '../limitranger/resource-list.js'
import { type ResourceList, add, count, resourceList } from './resource-list.js'
import { type ScopeSelectorRequirement, podMatchesScope } from './scopes.js'

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const objOf = (v: unknown): Obj => (isObj(v) ? v : {})

export interface Evaluator {
  readonly group: string
  readonly resource: string
  /** Whether the operation (on the subresource) can change usage. */
  handles(operation: AdmissionOperation, subresource: string): boolean
  /** The names of `names` this evaluator tracks. */
  matchingResources(names: readonly string[]): string[]
  /** Whether the object is in one scope selector requirement. */
  matchesScope(selector: ScopeSelectorRequirement, object: KubeObject): boolean
  /** Why the object cannot be charged to a quota on `required`, or undefined. */
  constraints(required: readonly string[], object: KubeObject): string | undefined
  usage(object: KubeObject, now: number): ResourceList
}

/** ObjectCountQuotaResourceNameFor: `count/<resource>` or `count/<resource>.<group>`. */
export function objectCountName(group: string, resource: string): string {
  return group === '' ? `count/${resource}` : `count/${resource}.${group}`
}

/** The legacy names of object counts (the reference's legacyObjectCountAliases). */
const LEGACY_OBJECT_COUNT: Record<string, string> = {
  configmaps: 'configmaps',
  resourcequotas: 'resourcequotas',
  replicationcontrollers: 'replicationcontrollers',
  secrets: 'secrets',
}

const intersection = (names: readonly string[], tracked: readonly string[]): string[] => names.filter((n) => tracked.includes(n))

/** The generic object-count evaluator: one per created object. */
export function objectCountEvaluator(group: string, resource: string): Evaluator {
  const names = [objectCountName(group, resource), ...(group === '' && LEGACY_OBJECT_COUNT[resource] ? [LEGACY_OBJECT_COUNT[resource]] : [])]
  return {
    group,
    resource,
    handles: (operation) => operation === 'CREATE',
    matchingResources: (input) => intersection(input, names),
    matchesScope: () => false,
    constraints: () => undefined,
    usage: () => new Map(names.map((n) => [n, count(1)])),
  }
}

const POD_RESOURCES = ['count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods']
/** The resources a quota on which makes every container state them (validationSet). */
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'])
const NATIVE = (name: string) => !name.includes('/') || name.includes('kubernetes.io/')

/** podComputeUsageHelper: the quota names a pod's (or container's) requests and limits make. */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', count(1)]])
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    const request = requests.get(r)
    if (request) {
      out.set(r, request)
      out.set(`requests.${r}`, request)
    }
    const limit = limits.get(r)
    if (limit) out.set(`limits.${r}`, limit)
  }
  for (const [name, request] of requests) {
    if (name.startsWith('hugepages-')) {
      out.set(name, request)
      out.set(`requests.${name}`, request)
    }
    // Extended resources are quota'd as requests only.
    if (!NATIVE(name) && !name.startsWith('requests.')) out.set(`requests.${name}`, request)
  }
  return out
}

/** QuotaV1Pod: a pod in a terminal phase, or past its deletion grace, is not charged. */
function chargedPod(pod: KubeObject, now: number): boolean {
  const phase = objOf(pod.status).phase
  if (phase === 'Succeeded' || phase === 'Failed') return false
  const { deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata
  if (deletionTimestamp && typeof deletionGracePeriodSeconds === 'number') {
    if (now > Date.parse(deletionTimestamp) + deletionGracePeriodSeconds * 1000) return false
  }
  return true
}

/** PodRequests and PodLimits: the spec's totals, with the pod overhead added. */
function podTotals(spec: Obj): { requests: ResourceList; limits: ResourceList } {
  const requests = podResources(spec, 'requests', true, compareQuantity)
  const limits = podResources(spec, 'limits', true, compareQuantity)
  const overhead = resourceList(spec.overhead)
  const withOverhead = add(requests, overhead)
  for (const [name, q] of overhead) {
    if (limits.has(name)) limits.set(name, add(new Map([[name, limits.get(name)!]]), new Map([[name, q]])).get(name)!)
  }
  return { requests: withOverhead, limits }
}

export const podEvaluator: Evaluator = {
  group: '',
  resource: 'pods',
  handles: (operation, subresource) => (subresource === '' && operation === 'CREATE') || (subresource === 'resize' && operation === 'UPDATE'),
  matchingResources: (input) => [...intersection(input, POD_RESOURCES), ...input.filter((n) => n.startsWith('hugepages-') || n.startsWith('requests.hugepages-') || (!NATIVE(n) && n.startsWith('requests.')))],
  matchesScope: podMatchesScope,
  constraints(required, pod) {
    const spec = objOf(pod.spec)
    const requiredSet = required.filter((r) => VALIDATION_SET.has(r))
    const missing = new Map<string, Set<string>>()
    for (const c of [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers : [])].filter(isObj)) {
      const resources = objOf(c.resources)
      const has = computeUsage(resourceList(resources.requests), resourceList(resources.limits))
      for (const r of requiredSet) {
        if (has.has(r)) continue
        if (!missing.has(r)) missing.set(r, new Set())
        missing.get(r)!.add(String(c.name ?? ''))
      }
    }
    if (missing.size === 0) return undefined
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`)
    return `must specify ${parts.join('; ')}`
  },
  usage(pod, now) {
    // count/pods follows every pod in storage; the rest only pods still running.
    const out: ResourceList = new Map([['count/pods', count(1)]])
    if (!chargedPod(pod, now)) return out
    const { requests, limits } = podTotals(objOf(pod.spec))
    return add(out, computeUsage(requests, limits))
  },
}

const SERVICE_RESOURCES = ['count/services', 'services', 'services.loadbalancers', 'services.nodeports']

export const serviceEvaluator: Evaluator = {
  group: '',
  resource: 'services',
  // A service's type can change on update.
  handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
  matchingResources: (input) => intersection(input, SERVICE_RESOURCES),
  matchesScope: () => false,
  constraints: () => undefined,
  usage(svc) {
    const spec = objOf(svc.spec)
    const ports = Array.isArray(spec.ports) ? spec.ports.filter(isObj) : []
    const out: ResourceList = new Map([
      ['count/services', count(1)],
      ['services', count(1)],
      ['services.loadbalancers', count(0)],
      ['services.nodeports', count(0)],
    ])
    if (spec.type === 'NodePort') out.set('services.nodeports', count(ports.length))
    if (spec.type === 'LoadBalancer') {
      // Without node port allocation only the ports that name one are counted.
      const nodePorts = spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => typeof p.nodePort === 'number' && p.nodePort !== 0).length : ports.length
      out.set('services.nodeports', count(nodePorts))
      out.set('services.loadbalancers', count(1))
    }
    return out
  },
}

const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/'
const PVC_RESOURCES = ['persistentvolumeclaims', 'requests.storage']

/** GetPersistentVolumeClaimClass: the class field, else the beta annotation. */
function claimClass(pvc: KubeObject): string {
  const spec = objOf(pvc.spec)
  if (typeof spec.storageClassName === 'string') return spec.storageClassName
  return pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? ''
}

/** getStorageUsage: the request, or the allocated size when larger, in whole bytes. */
function storageUsage(pvc: KubeObject): ResourceList {
  const requested = resourceList(objOf(objOf(pvc.spec).resources).requests).get('storage')
  if (!requested) return new Map()
  const allocated = resourceList(objOf(pvc.status).allocatedResources).get('storage')
  const larger = allocated && compareQuantity(allocated, requested) > 0 ? allocated : requested
  return new Map([['requests.storage', roundUpToBytes(larger)]])
}

function roundUpToBytes(q: ReturnType<typeof count>): ReturnType<typeof count> {
  if (q.exp10 >= 0) return q
  const div = 10n ** BigInt(-q.exp10)
  return { ...q, digits: (q.digits + div - 1n) / div, exp10: 0 }
}

export const persistentVolumeClaimEvaluator: Evaluator = {
  group: '',
  resource: 'persistentvolumeclaims',
  handles: (operation, subresource) => subresource === '' && (operation === 'CREATE' || operation === 'UPDATE'),
  matchingResources: (input) =>
    input.filter((n) => n === 'count/persistentvolumeclaims' || PVC_RESOURCES.includes(n) || PVC_RESOURCES.some((r) => n.endsWith(STORAGE_CLASS_SUFFIX + r))),
  matchesScope: () => false,
  constraints: () => undefined,
  usage(pvc) {
    const out: ResourceList = new Map([
      ['persistentvolumeclaims', count(1)],
      ['count/persistentvolumeclaims', count(1)],
    ])
    const cls = claimClass(pvc)
    if (cls) out.set(`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, count(1))
    const storage = storageUsage(pvc).get('requests.storage')
    if (storage) {
      out.set('requests.storage', storage)
      if (cls) out.set(`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`, storage)
    }
    return out
  },
}

const OWN_EVALUATORS = [podEvaluator, serviceEvaluator, persistentVolumeClaimEvaluator]

/** The evaluator of a group/resource: its own, else the object-count one. */
export function evaluatorFor(group: string, resource: string): Evaluator {
  return OWN_EVALUATORS.find((e) => e.group === group && e.resource === resource) ?? objectCountEvaluator(group, resource)
}

/**
 * The resources whose objects the quota's hard names count: the ones with their own
 * evaluators, and each `count/<resource>.<group>` or legacy name.
 */
export function evaluatorsForHard(hard: readonly string[]): Evaluator[] {
  const out = OWN_EVALUATORS.filter((e) => e.matchingResources(hard).length > 0)
  const seen = new Set(out.map((e) => `${e.group}/${e.resource}`))
  for (const name of hard) {
    let group: string
    let resource: string
    if (name.startsWith('count/')) {
      const rest = name.slice('count/'.length)
      const dot = rest.indexOf('.')
      resource = dot < 0 ? rest : rest.slice(0, dot)
      group = dot < 0 ? '' : rest.slice(dot + 1)
    } else if (LEGACY_OBJECT_COUNT[name]) {
      group = ''
      resource = name
    } else continue
    if (seen.has(`${group}/${resource}`)) continue
    seen.add(`${group}/${resource}`)
    out.push(objectCountEvaluator(group, resource))
  }
  return out
}
