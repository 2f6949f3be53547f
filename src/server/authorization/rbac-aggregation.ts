/**
 * The ClusterRole aggregation controller (the reference's clusterroleaggregation): a
 * ClusterRole with an `aggregationRule` gets, as its rules, the rules of every other
 * ClusterRole its selectors match, in name order and without duplicates. This is how `admin`,
 * `edit` and `view` grow when a ClusterRole labelled `rbac.authorization.k8s.io/aggregate-to-*`
 * is created.
 */
import { deepEqual } from '../../core/patch/index.js'
import type { GenericStore } from '../api/registry/generic-store.js'
import { labelSelectorRequirements, matchesLabels } from '../api/selectors.js'
import type { PolicySource, Role } from './rbac-policy.js'
import type { PolicyRule } from './rbac-rules.js'

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

export class ClusterRoleAggregator {
  private scheduled = false
  private running: Promise<void> = Promise.resolve()

  constructor(
    private readonly policy: PolicySource,
    private readonly clusterRoles: () => GenericStore | undefined,
    private readonly onError: (err: Error) => void = () => {},
  ) {}

  /** Runs a pass soon; changes arriving meanwhile share it. */
  schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.running = this.running.then(() => this.reconcile()).catch((err: Error) => this.onError(err))
    })
  }

  async reconcile(): Promise<void> {
    const store = this.clusterRoles()
    if (!store) return
    for (const role of [...this.policy.clusterRoles()]) {
      if (!role.aggregationRule) continue
      const wanted = aggregatedRules(role, this.policy)
      const current = (role.object.rules as PolicyRule[] | undefined) ?? []
      if (deepEqual(wanted, current)) continue
      await store.rewrite(undefined, role.name, (o) => {
        o.rules = wanted
      })
    }
  }
}
