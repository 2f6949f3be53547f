/**
 * ClusterRole aggregation's rule (the reference's clusterroleaggregation): a ClusterRole with an
 * `aggregationRule` gets, as its rules, the rules of every other ClusterRole its selectors
 * match, in name order and without duplicates. The server's controller that writes them is
 * src/server/controllers/clusterrole-aggregation.ts; `auth can-i` applies it to files.
 */
import { deepEqual } from '../patch/values.js'
import { labelSelectorRequirements, matchesLabels } from '../util/selectors.js'
import type { PolicySource, Role } from './policy.js'
import type { PolicyRule } from './rules.js'

/** The rules an aggregated ClusterRole should have now. */
export function aggregatedRules(role: Role, policy: PolicySource): PolicyRule[] {
  const rules: PolicyRule[] = []
  for (const selector of role.aggregationRule?.clusterRoleSelectors ?? []) {
    let reqs
    try {
      reqs = labelSelectorRequirements(selector)
    } catch {
      continue
    }
    const matching = [...policy.clusterRoles()].filter((r) => r.name !== role.name && matchesLabels(reqs, r.labels)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const other of matching) {
      for (const rule of other.object.rules as PolicyRule[] | undefined ?? []) {
        if (!rules.some((r) => deepEqual(r, rule))) rules.push(rule)
      }
    }
  }
  return rules
}
