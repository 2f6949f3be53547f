/**
 * The ClusterRole aggregation controller (the reference's clusterroleaggregation, which
 * kube-controller-manager runs whatever the authorization mode): a ClusterRole with an
 * `aggregationRule` gets, as its rules, the rules of every other ClusterRole its selectors
 * match (authorization/rbac-aggregation.ts). This is how `admin`, `edit` and `view` grow when a
 * ClusterRole labelled `rbac.authorization.k8s.io/aggregate-to-*` is created. It follows the
 * RBAC informers' cache, so it starts once they have started.
 */
import { deepEqual } from '../../core/patch/index.js'
import type { GenericStore } from '../api/registry/generic-store.js'
import { aggregatedRules } from '../authorization/rbac-aggregation.js'
import { type PolicyCache, type PolicySource, RBAC_GROUP } from '../authorization/rbac-policy.js'
import type { PolicyRule } from '../authorization/rbac-rules.js'
import type { Controller, ControllerContext } from './controller.js'

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

/** The aggregator over the RBAC informers' cache, run on every ClusterRole change once started. */
export class ClusterRoleAggregationController implements Controller {
  readonly name = 'clusterrole-aggregation-controller'
  private aggregator: ClusterRoleAggregator | undefined

  constructor(
    private readonly policy: PolicyCache,
    private readonly onError: (err: Error) => void,
  ) {}

  start(ctx: ControllerContext): void {
    if (this.aggregator) return
    const aggregator = new ClusterRoleAggregator(this.policy, () => ctx.registry.lookup(RBAC_GROUP, 'v1', 'clusterroles'), this.onError)
    this.aggregator = aggregator
    this.policy.onClusterRoleChange(() => this.aggregator?.schedule())
    aggregator.schedule()
  }

  /** Changes after this are not aggregated (the cache has no way to drop a listener). */
  stop(): void {
    this.aggregator = undefined
  }
}
