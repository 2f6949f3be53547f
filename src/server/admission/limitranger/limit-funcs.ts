/**
 * What one LimitRange does to a pod or a claim (the reference's PodMutateLimitFunc,
 * PodValidateLimitFunc and PersistentVolumeClaimValidateLimitFunc): the `Container` items'
 * default and defaultRequest fill what containers and init containers leave out, recorded in
 * the `kubernetes.io/limit-ranger` annotation; then the min, max and maxLimitRequestRatio of
 * the `Container` items hold for each container, those of the `Pod` items for the pod's
 * totals, and the min and max of the `PersistentVolumeClaim` items for a claim's requests.
 */
import type { KubeObject } from '../../api/registry/object.js'
import { canonicalQuantity, compareQuantity } from '../../api/validation/quantity.js'
import { aggregate, limitRequestRatioConstraint, maxConstraint, maxRequestConstraint, minConstraint } from './constraints.js'
import { type ResourceList, podResources, resourceList } from './resource-list.js'

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger'

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : [])

function items(limitRange: KubeObject): Obj[] {
  return isObj(limitRange.spec) ? list(limitRange.spec.limits) : []
}

function spec(obj: KubeObject): Obj {
  return isObj(obj.spec) ? obj.spec : {}
}

/** defaultContainerResourceRequirements: the Container items' defaults, later items winning. */
function defaultRequirements(limitRange: KubeObject): { requests: Map<string, string>; limits: Map<string, string> } {
  const requests = new Map<string, string>()
  const limits = new Map<string, string>()
  for (const item of items(limitRange)) {
    if (item.type !== 'Container') continue
    if (isObj(item.defaultRequest)) for (const [k, v] of Object.entries(item.defaultRequest)) requests.set(k, canonicalQuantity(v))
    if (isObj(item.default)) for (const [k, v] of Object.entries(item.default)) limits.set(k, canonicalQuantity(v))
  }
  return { requests, limits }
}

/** mergeContainerResources: fills one container, returning what it set as annotation parts. */
function mergeContainer(container: Obj, defaults: ReturnType<typeof defaultRequirements>, prefix: string): string[] {
  const resources = isObj(container.resources) ? container.resources : {}
  const fill = (which: 'requests' | 'limits', from: Map<string, string>): string[] => {
    const current = isObj(resources[which]) ? resources[which] : {}
    const set: string[] = []
    for (const [name, value] of from) {
      if (name in current) continue
      current[name] = value
      set.push(name)
    }
    if (set.length > 0) resources[which] = current
    return set.sort()
  }
  const setLimits = fill('limits', defaults.limits)
  const setRequests = fill('requests', defaults.requests)
  if (setLimits.length + setRequests.length > 0) container.resources = resources
  const name = typeof container.name === 'string' ? container.name : ''
  const parts: string[] = []
  if (setRequests.length > 0) parts.push(`${setRequests.join(', ')} request for ${prefix} ${name}`)
  if (setLimits.length > 0) parts.push(`${setLimits.join(', ')} limit for ${prefix} ${name}`)
  return parts
}

/** PodMutateLimitFunc: the defaults merged in, and the annotation saying what was set. */
export function podMutateLimitFunc(limitRange: KubeObject, pod: KubeObject): void {
  const defaults = defaultRequirements(limitRange)
  const s = spec(pod)
  const parts = [
    ...list(s.containers).flatMap((c) => mergeContainer(c, defaults, 'container')),
    ...list(s.initContainers).flatMap((c) => mergeContainer(c, defaults, 'init container')),
  ]
  if (parts.length === 0) return
  pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${parts.join('; ')}` }
}

function requirementsOf(container: Obj): { requests: ResourceList; limits: ResourceList } {
  const resources = isObj(container.resources) ? container.resources : {}
  return { requests: resourceList(resources.requests), limits: resourceList(resources.limits) }
}

/** The min, max and ratio of one item over one set of requests and limits. */
function itemConstraints(item: Obj, requests: ResourceList, limits: ResourceList): string[] {
  const limitType = String(item.type)
  const out: (string | undefined)[] = []
  for (const [name, q] of resourceList(item.min)) out.push(minConstraint(limitType, name, q, requests, limits))
  for (const [name, q] of resourceList(item.max)) out.push(maxConstraint(limitType, name, q, requests, limits))
  for (const [name, q] of resourceList(item.maxLimitRequestRatio)) out.push(limitRequestRatioConstraint(limitType, name, q, requests, limits))
  return out.filter((m): m is string => m !== undefined)
}

/** PodValidateLimitFunc: every breach, aggregated as the reference's message. */
export function podValidateLimitFunc(limitRange: KubeObject, pod: KubeObject, podLevelResources: boolean): string | undefined {
  const s = spec(pod)
  const messages: string[] = []
  for (const item of items(limitRange)) {
    if (item.type === 'Container') {
      for (const c of [...list(s.containers), ...list(s.initContainers)]) {
        const { requests, limits } = requirementsOf(c)
        messages.push(...itemConstraints(item, requests, limits))
      }
    }
    if (item.type === 'Pod') {
      const requests = podResources(s, 'requests', podLevelResources, compareQuantity)
      const limits = podResources(s, 'limits', podLevelResources, compareQuantity)
      messages.push(...itemConstraints(item, requests, limits))
    }
  }
  return aggregate(messages)
}

/** PersistentVolumeClaimValidateLimitFunc: min and max over the claim's requests only. */
export function persistentVolumeClaimValidateLimitFunc(limitRange: KubeObject, pvc: KubeObject): string | undefined {
  const s = spec(pvc)
  const requests = resourceList(isObj(s.resources) ? s.resources.requests : undefined)
  const messages: string[] = []
  for (const item of items(limitRange)) {
    if (item.type !== 'PersistentVolumeClaim') continue
    const limitType = String(item.type)
    for (const [name, q] of resourceList(item.min)) {
      // The claim's limits are not user input: an empty list stands for them.
      const m = minConstraint(limitType, name, q, requests, new Map())
      if (m) messages.push(m)
    }
    for (const [name, q] of resourceList(item.max)) {
      const m = maxRequestConstraint(limitType, name, q, requests)
      if (m) messages.push(m)
    }
  }
  return aggregate(messages)
}
