/**
 * The identity leases' garbage collector (pkg/controlplane/controller/apiserverleasegc, the
 * `start-kube-apiserver-identity-lease-garbage-collector` hook): at start and then every hour,
 * the kube-system Leases labelled `apiserver.kubernetes.io/identity=kube-apiserver` that have
 * expired (a server gone for longer than its lease) are read again and, still expired, deleted.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import { ApiError } from '../api/status-errors.js'
import { IDENTITY_LEASE_LABEL, KUBE_APISERVER } from '../peers/apiserver-id.js'
import { isLeaseExpired } from '../peers/lease-times.js'
import { KUBE_SYSTEM } from './apiserver-identity-lease.js'
import type { Controller, ControllerContext } from './controller.js'
import { RetryTimer } from './retry-timer.js'

/** IdentityLeaseGCPeriod. */
export const IDENTITY_LEASE_GC_PERIOD_MS = 3_600_000

export class ApiserverLeaseGC implements Controller {
  readonly name = 'start-kube-apiserver-identity-lease-garbage-collector'
  private leases: GenericStore | undefined
  private log: ControllerContext['log'] = () => {}
  private readonly timer = new RetryTimer(
    () => this.gc(),
    (err) => this.log(2, `apiserver lease garbage collector: ${(err as Error).message}`),
  )

  constructor(private readonly periodMs = IDENTITY_LEASE_GC_PERIOD_MS) {}

  start(ctx: ControllerContext): void {
    this.leases = ctx.registry.lookup('coordination.k8s.io', 'v1', 'leases')
    if (!this.leases) return
    this.log = ctx.log
    this.timer.schedule(0)
  }

  stop(): void {
    this.timer.stop()
  }

  private async gc(): Promise<void> {
    const leases = this.leases!
    const { items } = await leases.list({ namespace: KUBE_SYSTEM, labels: [{ key: IDENTITY_LEASE_LABEL, operator: '=', values: [KUBE_APISERVER] }] })
    for (const lease of items) {
      if (!isLeaseExpired(lease)) continue
      const name = lease.metadata.name ?? ''
      try {
        // Read again: the holder may have renewed since the list.
        if (!isLeaseExpired(await leases.get(KUBE_SYSTEM, name))) continue
        await leases.delete(KUBE_SYSTEM, name)
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 404) this.log(2, `error deleting lease ${name}: ${(err as Error).message}`)
      }
    }
    this.timer.schedule(this.periodMs)
  }
}
