/**
 * Controllers that run only while this process holds a Lease, as kube-controller-manager (and
 * kube-scheduler) run theirs under `--leader-elect`: every candidate process on one store tries
 * the Lease `namespace/name`, the holder starts the controllers, and one that stops renewing is
 * replaced within the lease duration. The reference's process exits when it loses the lease;
 * here the group stops its controllers and stays a candidate, as the server keeps serving.
 * Timers: the reference's leader-election defaults (15 s lease, 10 s renew deadline, 2 s retry).
 */
import { randomUUID } from 'node:crypto'
import type { Controller, ControllerContext } from './controller.js'
import { LeaderElector } from './leader-elector.js'
import { serverHostname } from '../peers/apiserver-id.js'

export interface LeaderElectedOptions {
  /** The group's name as the manager lists it (the component's: `kube-controller-manager`). */
  readonly name: string
  readonly lease: { readonly namespace: string; readonly name: string }
  readonly leaseDurationMs?: number
  readonly renewDeadlineMs?: number
  readonly retryPeriodMs?: number
}

export class LeaderElectedControllers implements Controller {
  readonly name: string
  private elector: LeaderElector | undefined
  private running: Controller[] = []
  /** Starts and stops in order, so that losing and winning the lease again do not interleave. */
  private transitions: Promise<void> = Promise.resolve()
  private log: ((level: number, message: string) => void) | undefined

  constructor(
    private readonly options: LeaderElectedOptions,
    readonly controllers: readonly Controller[],
  ) {
    this.name = options.name
  }

  /** Whether this process holds the lease now. */
  get isLeader(): boolean {
    return this.elector?.isLeader ?? false
  }

  start(ctx: ControllerContext): void {
    this.log = (level, message) => ctx.log(level, message)
    const leases = ctx.registry.lookup('coordination.k8s.io', 'v1', 'leases')
    if (!leases) throw new Error('leader election needs coordination.k8s.io/v1 leases')
    // client-go's identity: the host name and a UUID, so that two processes on one host differ.
    const identity = `${serverHostname()}_${randomUUID()}`
    this.elector = new LeaderElector(leases, {
      namespace: this.options.lease.namespace,
      name: this.options.lease.name,
      identity,
      leaseDurationMs: this.options.leaseDurationMs ?? 15_000,
      renewDeadlineMs: this.options.renewDeadlineMs ?? 10_000,
      retryPeriodMs: this.options.retryPeriodMs ?? 2_000,
      onStartedLeading: () => this.transition(() => this.startAll(ctx)),
      onStoppedLeading: () => this.transition(() => this.stopAll()),
      log: (level, message) => ctx.log(level, message),
    })
    // As kube-controller-manager waits for the API server's health before its first attempt: a
    // first start's kube-system does not exist until the bootstrap hook has run, and an attempt
    // before it would wait the whole retry period (2 s) for the next one.
    const elector = this.elector
    void ctx.ready.then((ready) => {
      if (ready && this.elector === elector) elector.start()
    })
  }

  async stop(): Promise<void> {
    this.elector?.stop()
    await this.transitions
    await this.stopAll()
  }

  private transition(step: () => Promise<void>): void {
    this.transitions = this.transitions.then(step).catch((err: Error) => this.log?.(0, `${this.name}: ${err.message}`))
  }

  private async startAll(ctx: ControllerContext): Promise<void> {
    for (const controller of this.controllers) {
      this.running.push(controller)
      await controller.start(ctx)
    }
  }

  private async stopAll(): Promise<void> {
    const running = this.running.reverse()
    this.running = []
    for (const controller of running) {
      try {
        await controller.stop()
      } catch {
        // Best effort, as the manager stops its controllers.
      }
    }
  }
}
