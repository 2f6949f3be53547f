/**
 * The identity Lease of this server (pkg/controlplane/apiserver/server.go, the
 * `start-kube-apiserver-identity-lease-controller` hook, with
 * k8s.io/component-helpers/apimachinery/lease's controller): `kube-system/<identity>`, labelled
 * `apiserver.kubernetes.io/identity=kube-apiserver` and with the host name, held by the identity
 * and a UUID of this run for 3600 s, renewed every 10 s. With the mixed-version proxy on it
 * carries the peer address in the `kubernetes.io/peer-advertise-address` annotation.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { ApiError } from '../api/status-errors.js'
import { HOSTNAME_LABEL, IDENTITY_LEASE_LABEL, KUBE_APISERVER, PEER_ADVERTISE_ADDRESS_ANNOTATION, type ApiserverIdentity } from '../peers/apiserver-id.js'
import { microTime } from '../peers/lease-times.js'
import type { Controller, ControllerContext } from './controller.js'
import { RetryTimer } from './retry-timer.js'

/** IdentityLeaseDurationSeconds and IdentityLeaseRenewIntervalPeriod. */
export const IDENTITY_LEASE_DURATION_SECONDS = 3600
export const IDENTITY_LEASE_RENEW_INTERVAL_MS = 10_000
export const KUBE_SYSTEM = 'kube-system'

export interface IdentityLeaseOptions {
  readonly identity: ApiserverIdentity
  /** The mixed-version proxy is on: the lease names the peer address. */
  readonly advertisePeerAddress: boolean
  readonly renewIntervalMs?: number
}

export class ApiserverIdentityLeaseController implements Controller {
  readonly name = 'start-kube-apiserver-identity-lease-controller'
  private leases: GenericStore | undefined
  private readonly timer: RetryTimer

  constructor(private readonly options: IdentityLeaseOptions) {
    this.timer = new RetryTimer(
      () => this.sync(),
      (err) => this.log(2, `failed to ensure the identity lease: ${(err as Error).message}`),
    )
  }

  private log: ControllerContext['log'] = () => {}

  start(ctx: ControllerContext): void {
    this.leases = ctx.registry.lookup('coordination.k8s.io', 'v1', 'leases')
    if (!this.leases) return
    this.log = ctx.log
    this.timer.schedule(0)
  }

  stop(): void {
    this.timer.stop()
  }

  /** The post-processing of every write (labelAPIServerHeartbeatFunc). */
  private label(lease: KubeObject): KubeObject {
    const { identity } = this.options
    lease.metadata.labels = { ...lease.metadata.labels, [IDENTITY_LEASE_LABEL]: KUBE_APISERVER, [HOSTNAME_LABEL]: identity.hostname }
    if (this.options.advertisePeerAddress) lease.metadata.annotations = { ...lease.metadata.annotations, [PEER_ADVERTISE_ADDRESS_ANNOTATION]: identity.peerAddress }
    return lease
  }

  /** Creates the lease when missing, else renews it; then again after the renew interval. */
  private async sync(): Promise<void> {
    const leases = this.leases!
    const { identity } = this.options
    const now = microTime(Date.now())
    try {
      await leases.update(KUBE_SYSTEM, identity.id, (current) => {
        // A lease of an earlier run keeps its holder, as the reference's controller keeps it;
        // the duration is asserted on every write.
        const spec = (current.spec ?? {}) as Record<string, unknown>
        return this.label({ ...current, spec: { ...spec, leaseDurationSeconds: IDENTITY_LEASE_DURATION_SECONDS, renewTime: now } })
      }, { retryOnConflict: true })
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 404) throw err
      await leases.create(
        this.label({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: identity.id, namespace: KUBE_SYSTEM },
          spec: { holderIdentity: identity.holder, leaseDurationSeconds: IDENTITY_LEASE_DURATION_SECONDS, renewTime: now },
        }),
      )
    }
    this.timer.schedule(this.options.renewIntervalMs ?? IDENTITY_LEASE_RENEW_INTERVAL_MS)
  }
}
