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
import type { LimitedResource } from './config.js'
import { type ScopeSelectorRequirement, scopeSelectorsOf } from './scopes.js'

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

/** A refusal the reference makes with a plain error (500, no reason), not a Forbidden. */
export class QuotaError extends Error {}

/** limitedByDefault: the consumed resource names a limited resource's matchContains names. */
function limitedByDefault(usage: ResourceList, limited: readonly LimitedResource[]): string[] {
  const out: string[] = []
  for (const l of limited) {
    for (const [name, q] of usage) if (q.digits !== 0n && !q.negative && l.matchContains.some((c) => name.includes(c))) out.push(name)
  }
  return out
}

/** A scope selector as Go's %v prints the struct: `{PriorityClass In [a b]}`. */
const printSelector = (s: ScopeSelectorRequirement) => `{${s.scopeName} ${s.operator} [${(s.values ?? []).join(' ')}]}`

/**
 * The new used list of each quota the request changes (index into `quotas`); throws
 * QuotaRefusal (a 403) or QuotaError. `limited` is the configuration's limitedResources.
 */
export function checkRequest(quotas: readonly KubeObject[], a: AdmissionAttributes, evaluator: Evaluator, now: number, limited: readonly LimitedResource[] = []): Map<number, ResourceList> {
  const object = a.object!
  // The scopes the configuration limits that this object is in, and the resource names it must find a quota for.
  const limitedScopes = limited.flatMap((l) => l.matchScopes.filter((s) => evaluator.matchesScope(s, object)))
  const limitedHere = limited.filter((l) => l.apiGroup === evaluator.group && l.resource === evaluator.resource)
  const limitedNames = new Set(limitedHere.length > 0 ? limitedByDefault(evaluator.usage(object, now), limitedHere) : [])

  const interesting: number[] = []
  const restrictedSet = new Set<string>()
  const restrictedScopes: ScopeSelectorRequirement[] = []
  quotas.forEach((quota, i) => {
    restrictedScopes.push(...scopeSelectorsOf(quota).filter((s) => evaluator.matchesScope(s, object)))
    if (!quotaMatches(evaluator, quota, object)) return
    const restricted = evaluator.matchingResources([...hardOf(quota).keys()])
    const why = evaluator.constraints(restricted, object)
    if (why) throw new QuotaRefusal(`failed quota: ${quota.metadata.name}: ${why}`)
    if (!hasUsageStats(quota, restricted)) {
      throw new QuotaRefusal(`status unknown for quota: ${quota.metadata.name}, resources: ${[...restricted].sort().join(',')}`)
    }
    interesting.push(i)
    for (const r of restricted) restrictedSet.add(r)
  })

  const inputUsage = evaluator.usage(object, now)
  const negative = negativeNames(inputUsage)
  if (negative.length > 0) throw new QuotaRefusal(`quota usage is negative for resource(s): ${negative.sort().join(',')}`)

  const delta = new Map<number, ResourceList>(interesting.map((i) => [i, inputUsage]))
  let deltaWithoutQuota: ResourceList = a.operation === 'CREATE' && interesting.length === 0 ? inputUsage : new Map()
  if (a.operation === 'UPDATE') {
    const prev = a.oldObject
    if (!prev) throw new QuotaRefusal('unable to get previous usage since prior version of object was not found')
    // A create-on-update has no stored version: it is charged in full.
    if (prev.metadata.resourceVersion) {
      const growth = subtractNonNegative(inputUsage, evaluator.usage(prev, now))
      if (interesting.length === 0) deltaWithoutQuota = growth
      for (const i of interesting) if (quotaMatches(evaluator, quotas[i]!, prev)) delta.set(i, growth)
    } else if (interesting.length === 0) deltaWithoutQuota = inputUsage
  }
  for (const i of interesting) {
    const change = removeZeros(delta.get(i)!)
    if (change.size === 0) delta.delete(i)
    else delta.set(i, change)
  }
  // Nothing changes usage: nothing to check.
  if (interesting.length > 0 ? delta.size === 0 : removeZeros(deltaWithoutQuota).size === 0) return new Map()

  const uncovered = [...limitedNames].filter((n) => !restrictedSet.has(n)).sort()
  if (uncovered.length > 0) throw new QuotaRefusal(`insufficient quota to consume: ${[...new Set(uncovered)].join(',')}`)
  const uncoveredScopes = limitedScopes.filter((s) => !restrictedScopes.some((r) => r.scopeName === s.scopeName))
  if (uncoveredScopes.length > 0) throw new QuotaError(`insufficient quota to match these scopes: [${uncoveredScopes.map(printSelector).join(' ')}]`)

  const out = new Map<number, ResourceList>()
  for (const i of interesting) {
    const change = delta.get(i)
    if (!change) continue
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
