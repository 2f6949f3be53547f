/**
 * Leader election over a Lease, as client-go's tools/leaderelection runs it with a LeaseLock:
 * every retry period the candidate tries to acquire or renew `namespace/name`; it may take the
 * lease when it is free or its holder has not renewed it for the lease duration (as this
 * candidate observed it), and it stops leading when it could not renew it within the renew
 * deadline. The callbacks run when leading starts and stops.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { ApiError } from '../api/status-errors.js'
import { type LeaseSpec, leaseSpec, microTime } from '../peers/lease-times.js'

export interface LeaderElectionConfig {
  readonly namespace: string
  readonly name: string
  /** The holderIdentity written (client-go: the host name and a UUID). */
  readonly identity: string
  readonly leaseDurationMs: number
  readonly renewDeadlineMs: number
  readonly retryPeriodMs: number
  onStartedLeading(): void
  onStoppedLeading(): void
  log(level: number, message: string): void
}

export class LeaderElector {
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  private leading = false
  /** The record last seen and when this candidate saw it change (client-go's observedTime). */
  private observedRecord = ''
  private observedAt = 0
  /** The last successful renewal while leading. */
  private renewedAt = 0

  constructor(
    private readonly leases: GenericStore,
    private readonly config: LeaderElectionConfig,
  ) {}

  get isLeader(): boolean {
    return this.leading
  }

  start(): void {
    this.tick()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    if (this.leading) {
      this.leading = false
      this.config.onStoppedLeading()
    }
  }

  private tick(): void {
    if (this.stopped) return
    void this.tryAcquireOrRenew()
      .then((ok) => this.after(ok))
      .catch((err: Error) => {
        this.config.log(2, `error retrieving resource lock ${this.config.namespace}/${this.config.name}: ${err.message}`)
        this.after(false)
      })
      .finally(() => {
        if (this.stopped) return
        this.timer = setTimeout(() => this.tick(), this.config.retryPeriodMs)
        this.timer.unref()
      })
  }

  private after(ok: boolean): void {
    const now = Date.now()
    if (ok) {
      this.renewedAt = now
      if (!this.leading && !this.stopped) {
        this.leading = true
        this.config.log(2, `successfully acquired lease ${this.config.namespace}/${this.config.name}`)
        this.config.onStartedLeading()
      }
    } else if (this.leading && now - this.renewedAt > this.config.renewDeadlineMs) {
      this.leading = false
      this.config.log(2, `failed to renew lease ${this.config.namespace}/${this.config.name}: timed out waiting for the condition`)
      this.config.onStoppedLeading()
    }
  }

  /** One attempt: true when this candidate holds the lease afterwards. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.config
    const now = Date.now()
    const durationSeconds = Math.max(1, Math.round(this.config.leaseDurationMs / 1000))
    let current: KubeObject
    try {
      current = await this.leases.get(namespace, name)
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 404) throw err
      const created = await this.leases.create({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: { holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
      })
      this.observe(JSON.stringify(leaseSpec(created)), now)
      return true
    }
    const spec = leaseSpec(current)
    const record = JSON.stringify(spec)
    if (record !== this.observedRecord) this.observe(record, now)
    const held = spec.holderIdentity !== undefined && spec.holderIdentity !== ''
    if (held && spec.holderIdentity !== identity && this.observedAt + (spec.leaseDurationSeconds ?? 0) * 1000 > now) return false
    const mine = spec.holderIdentity === identity
    const next: LeaseSpec = {
      ...spec,
      holderIdentity: identity,
      leaseDurationSeconds: durationSeconds,
      renewTime: microTime(now),
      acquireTime: mine && spec.acquireTime ? spec.acquireTime : microTime(now),
      leaseTransitions: mine ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + (held ? 1 : 0),
    }
    // The read's resourceVersion is the precondition: a concurrent write wins, and this attempt fails.
    const updated = await this.leases.update(namespace, name, () => ({ ...current, spec: next }))
    this.observe(JSON.stringify(leaseSpec(updated)), now)
    return true
  }

  private observe(record: string, at: number): void {
    this.observedRecord = record
    this.observedAt = at
  }
}
