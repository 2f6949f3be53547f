/**
 * The policy an offline question is answered from: the server's default roles and bindings
 * (what a new cluster starts with) with the given objects laid over them (an object replaces
 * a default of the same kind, namespace and name, as an apply would), then ClusterRole
 * aggregation resolved as the server's controller does it: each aggregated ClusterRole gets
 * the rules of the ClusterRoles its selectors match, again until nothing changes (aggregated
 * roles feed others: `edit` into `admin`).
 */
import { deepEqual } from '../patch/values.js'
import { aggregatedRules } from '../rbac/aggregation.js'
import { PolicyObjects, type RbacObject } from '../rbac/policy.js'

/** More passes than any chain of aggregated roles needs; a cycle stops here. */
const MAX_AGGREGATION_PASSES = 32

export function offlinePolicy(defaults: readonly RbacObject[], objects: readonly RbacObject[]): PolicyObjects {
  const policy = new PolicyObjects()
  for (const o of defaults) policy.put(o)
  for (const o of objects) policy.put(o)
  resolveAggregation(policy)
  return policy
}

function resolveAggregation(policy: PolicyObjects): void {
  for (let pass = 0; pass < MAX_AGGREGATION_PASSES; pass++) {
    let changed = false
    for (const role of [...policy.clusterRoles()]) {
      if (!role.aggregationRule) continue
      const wanted = aggregatedRules(role, policy)
      if (deepEqual(wanted, role.object.rules ?? [])) continue
      policy.putClusterRole({ ...role.object, rules: wanted })
      changed = true
    }
    if (!changed) return
  }
}
