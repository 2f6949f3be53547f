/**
 * Coordinated leader election (feature gate CoordinatedLeaderElection; the
 * `start-kube-apiserver-coordinated-leader-election-controller` hook of pkg/controlplane/
 * apiserver/server.go with run_with_leaderelection.go): the servers on one store elect, over the
 * Lease `kube-system/leader-election-controller` and with the --coordinated-leadership-* lease
 * duration, renew deadline and retry period, the one that runs the election controller
 * (lease-election.ts) and the LeaseCandidate garbage collector (leasecandidate-gc.ts).
 */
import { randomUUID } from 'node:crypto'
import type { ServerConfig } from '../config.js'
import { KUBE_SYSTEM } from './apiserver-identity-lease.js'
import type { Controller, ControllerContext } from './controller.js'
import { LeaderElector } from './leader-elector.js'
import { LeaseCandidateGC } from './leasecandidate-gc.js'
import { LeaseElection } from './lease-election.js'

export const COORDINATED_LEADER_ELECTION_GATE = 'CoordinatedLeaderElection'
/** The controller's name, which is also its own Lease's. */
export const LEADER_ELECTION_CONTROLLER = 'leader-election-controller'

export class CoordinatedLeaderElectionController implements Controller {
  readonly name = 'start-kube-apiserver-coordinated-leader-election-controller'
  private elector: LeaderElector | undefined
  private election: LeaseElection | undefined
  private gc: LeaseCandidateGC | undefined
  private unsubscribe: (() => void) | undefined

  constructor(
    private readonly timers: ServerConfig['coordinatedLeadership'],
    /** The host name of the holder identity (client-go: `<hostname>_<uuid>`). */
    private readonly hostname: string,
  ) {}

  start(ctx: ControllerContext): void {
    const leases = ctx.registry.lookup('coordination.k8s.io', 'v1', 'leases')
    const candidates = ctx.registry.lookup('coordination.k8s.io', 'v1beta1', 'leasecandidates') ?? ctx.registry.lookup('coordination.k8s.io', 'v1alpha2', 'leasecandidates')
    if (!leases || !candidates) {
      ctx.log(1, `${this.name}: the LeaseCandidate API is not served (enable coordination.k8s.io/v1beta1 with --runtime-config): not started`)
      return
    }
    const log = (level: number, message: string) => ctx.log(level, message)
    this.elector = new LeaderElector(leases, {
      namespace: KUBE_SYSTEM,
      name: LEADER_ELECTION_CONTROLLER,
      identity: `${this.hostname}_${randomUUID()}`,
      leaseDurationMs: this.timers.leaseDurationMs,
      renewDeadlineMs: this.timers.renewDeadlineMs,
      retryPeriodMs: this.timers.retryPeriodMs,
      log,
      onStartedLeading: () => {
        this.election = new LeaseElection({ leases, candidates, log })
        this.gc = new LeaseCandidateGC(candidates, log)
        void this.election.start().catch((err: Error) => log(2, `${LEADER_ELECTION_CONTROLLER}: ${err.message}`))
        this.gc.start()
      },
      onStoppedLeading: () => {
        this.election?.stop()
        this.gc?.stop()
        this.election = undefined
        this.gc = undefined
      },
    })
    // The informers' events: a changed candidate or Lease is looked at by the leader.
    this.unsubscribe = ctx.registry.onChange((change) => {
      if (!this.election) return
      const { group, resource } = change.strategy
      if (group !== 'coordination.k8s.io') return
      if (resource === 'leasecandidates') this.election.enqueueCandidate(change.object)
      else if (resource === 'leases') this.election.enqueueLease(change.object)
    })
    this.elector.start()
  }

  stop(): void {
    this.unsubscribe?.()
    this.elector?.stop()
  }
}
