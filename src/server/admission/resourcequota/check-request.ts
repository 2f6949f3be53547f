/**
 * Whether a request fits the namespace's quotas (the reference's CheckRequest): the quotas
 * the object is in must know their usage of what they limit, the object must state what
 * they require (`failed quota: <name>: must specify ...`), and its usage (on update, its
 * growth) added to each quota's used must stay within hard (`exceeded quota: <name>,
 * requested: ..., used: ..., limited: ...`). Answers the quotas' new used lists, by index.
 */
import type { KubeObject } from '../../api/registry/object.js'
import type { AdmissionAttributes } from '../attributes.js'
import type { Evaluator } from './evaluators.js'
import { type ResourceList, add, lessThanOrEqual, mask, negativeNames, prettyPrint, removeZeros, resourceList, subtractNonNegative } from './resource-list.js'
import { scopeSelectorsOf } from './scopes.js'

type Obj = Record<string, unknown>
const objOf = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})

/** Why the request is refused: the reference's message after `<resource> "<name>" is forbidden: `. */
export class QuotaRefusal extends Error {}

export function hardOf(quota: KubeObject): ResourceList {
  return resourceList(objOf(quota.status).hard)
}

export function usedOf(quota: KubeObject): ResourceList {
  return resourceList(objOf(quota.status).used)
}

/** generic.Matches: the quota limits something the evaluator tracks, and the object is in every scope. */
export function quotaMatches(evaluator: Evaluator, quota: KubeObject, object: KubeObject): boolean {
  if (evaluator.matchingResources([...hardOf(quota).keys()]).length === 0) return false
  return scopeSelectorsOf(quota).every((s) => evaluator.matchesScope(s, object))
}

/** hasUsageStats: every limited resource the evaluator tracks has a used value. */
function hasUsageStats(quota: KubeObject, restricted: readonly string[]): boolean {
  const used = usedOf(quota)
  return [...hardOf(quota).keys()].every((name) => !restricted.includes(name) || used.has(name))
}

/** The new used list of each quota the request changes (index into `quotas`); throws QuotaRefusal. */
export function checkRequest(quotas: readonly KubeObject[], a: AdmissionAttributes, evaluator: Evaluator, now: number): Map<number, ResourceList> {
  const object = a.object!
  const interesting: number[] = []
  quotas.forEach((quota, i) => {
    if (!quotaMatches(evaluator, quota, object)) return
    const restricted = evaluator.matchingResources([...hardOf(quota).keys()])
    const why = evaluator.constraints(restricted, object)
    if (why) throw new QuotaRefusal(`failed quota: ${quota.metadata.name}: ${why}`)
    if (!hasUsageStats(quota, restricted)) {
      throw new QuotaRefusal(`status unknown for quota: ${quota.metadata.name}, resources: ${[...restricted].sort().join(',')}`)
    }
    interesting.push(i)
  })
  if (interesting.length === 0) return new Map()

  const inputUsage = evaluator.usage(object, now)
  const negative = negativeNames(inputUsage)
  if (negative.length > 0) throw new QuotaRefusal(`quota usage is negative for resource(s): ${negative.sort().join(',')}`)

  const delta = new Map<number, ResourceList>(interesting.map((i) => [i, inputUsage]))
  if (a.operation === 'UPDATE') {
    const prev = a.oldObject
    if (!prev) throw new QuotaRefusal('unable to get previous usage since prior version of object was not found')
    // A create-on-update has no stored version: it is charged in full.
    if (prev.metadata.resourceVersion) {
      const growth = subtractNonNegative(inputUsage, evaluator.usage(prev, now))
      for (const i of interesting) if (quotaMatches(evaluator, quotas[i]!, prev)) delta.set(i, growth)
    }
  }

  const out = new Map<number, ResourceList>()
  for (const i of interesting) {
    const change = removeZeros(delta.get(i)!)
    if (change.size === 0) continue
    const quota = quotas[i]!
    const hard = hardOf(quota)
    const used = usedOf(quota)
    const requested = mask(change, hard.keys())
    const newUsage = add(used, requested)
    if (a.subresource !== 'status') {
      const { allowed, exceeded } = lessThanOrEqual(mask(newUsage, requested.keys()), hard)
      if (!allowed) {
        throw new QuotaRefusal(
          `exceeded quota: ${quota.metadata.name}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(mask(used, exceeded))}, limited: ${prettyPrint(mask(hard, exceeded))}`,
        )
      }
    }
    out.set(i, newUsage)
  }
  return out
}
