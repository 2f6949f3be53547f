/**
 * kube-scheduler, run by a whole cluster (`client cluster start`) beside the controllers: the
 * scheduler room's Scheduler (src/server/scheduler/) started with the registry, the cluster's
 * clock, and, when asked, leader election on the Lease `kube-system/kube-scheduler` with the
 * reference's defaults (15 s lease, 10 s renew deadline, 2 s retry), so that of several
 * processes on one store one schedules.
 */
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Scheduler, SchedulerOptions } from '../scheduler/scheduler.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { LeaderElector } from './leader-elector.js'

export interface KubeSchedulerOptions {
  readonly clock?: Clock
  /** Take the Lease kube-system/kube-scheduler before scheduling (`--leader-elect`); off by default. */
  readonly leaderElect?: boolean
  /** Seeded tie-breaks for tests. */
  readonly random?: () => number
  readonly bindTimeoutMs?: number
}

export class KubeSchedulerController implements Controller {
  readonly name = 'kube-scheduler'
  private scheduler: Scheduler | undefined
  private elector: LeaderElector | undefined
  /** Bumped by every halt: a start still loading the module when it comes does not run. */
  private epoch = 0

  constructor(private readonly options: KubeSchedulerOptions = {}) {}

  /** The running scheduler (while leading, with leader election). */
  get current(): Scheduler | undefined {
    return this.scheduler
  }

  async start(ctx: ControllerContext): Promise<void> {
    const leases = ctx.registry.lookup('coordination.k8s.io', 'v1', 'leases')
    if (!this.options.leaderElect || !leases) {
      await this.run(ctx)
      return
    }
    this.elector = new LeaderElector(leases, {
      namespace: 'kube-system',
      name: 'kube-scheduler',
      identity: `${hostname()}_${randomUUID()}`,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      onStartedLeading: () => void this.run(ctx).catch((err: Error) => ctx.log(1, `kube-scheduler: ${err.message}`)),
      onStoppedLeading: () => void this.halt(),
      log: ctx.log,
    })
    // After the API server's first readiness, as the reference's scheduler starts against a
    // healthy API server: before it, a first start's kube-system does not exist yet, and the
    // failed attempt would hold the scheduler back a whole retry period.
    const elector = this.elector
    void ctx.ready.then((ready) => {
      if (ready && this.elector === elector) elector.start()
    })
  }

  async stop(): Promise<void> {
    this.elector?.stop()
    await this.halt()
  }

  private async run(ctx: ControllerContext): Promise<void> {
    const options: SchedulerOptions = {
      clock: this.options.clock ?? SYSTEM_CLOCK,
      ...(this.options.random ? { random: this.options.random } : {}),
      ...(this.options.bindTimeoutMs !== undefined ? { bindTimeoutMs: this.options.bindTimeoutMs } : {}),
      log: ctx.log,
    }
    // Loaded on first use: `server start` never runs the scheduler and should not pay for loading it.
    const epoch = this.epoch
    const { Scheduler } = await import('../scheduler/scheduler.js')
    if (epoch !== this.epoch) return
    const scheduler = new Scheduler(options)
    this.scheduler = scheduler
    await scheduler.start(ctx.registry)
  }

  private async halt(): Promise<void> {
    this.epoch++
    const scheduler = this.scheduler
    this.scheduler = undefined
    await scheduler?.stop()
  }
}
