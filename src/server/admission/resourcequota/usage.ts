/**
 * A quota's usage counted from the namespace's objects (the reference's quota.CalculateUsage
 * and generic.CalculateUsageStats): each evaluator tracking something the quota limits sums
 * the usage of the objects in every scope of the quota, starting at zero for each name it
 * tracks; the sum is kept to the quota's hard names.
 */
import type { KubeObject } from '../../api/registry/object.js'
import { evaluatorsForHard } from './evaluators.js'
import { type ResourceList, add, count, mask, resourceList } from './resource-list.js'
import { scopeSelectorsOf } from './scopes.js'

type Obj = Record<string, unknown>
const objOf = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})

/** Lists the namespace's objects of group/resource (none when the resource is not served). */
export type ListObjects = (group: string, resource: string, namespace: string) => Promise<KubeObject[]>

export async function calculateUsage(quota: KubeObject, list: ListObjects, now: number): Promise<ResourceList> {
  const hard = [...resourceList(objOf(quota.spec).hard).keys()]
  const selectors = scopeSelectorsOf(quota)
  let used: ResourceList = new Map()
  for (const evaluator of evaluatorsForHard(hard)) {
    const tracked = evaluator.matchingResources(hard)
    let stats: ResourceList = new Map(tracked.map((name) => [name, count(0)]))
    for (const object of await list(evaluator.group, evaluator.resource, quota.metadata.namespace ?? '')) {
      if (selectors.every((s) => evaluator.matchesScope(s, object))) stats = add(stats, mask(evaluator.usage(object, now), tracked))
    }
    used = add(used, stats)
  }
  return mask(used, hard)
}
