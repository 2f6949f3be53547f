/**
 * The peer endpoint lease of this server (the `peer-endpoint-reconciler-controller` hook of
 * pkg/controlplane/apiserver/server.go, staging/src/k8s.io/apiserver/pkg/reconcilers
 * PeerEndpointLeaseController), with the mixed-version proxy on: once /readyz passes, the
 * lease `/peerserverleases/<identity>` with the peer address is written every 10 s with a TTL of
 * 15 s; a server that stops removes it.
 */
import { type ApiserverIdentity } from '../peers/apiserver-id.js'
import { PEER_ENDPOINT_INTERVAL_MS, removePeerEndpointLease, updatePeerEndpointLease } from '../peers/peer-endpoint-leases.js'
import type { Store } from '../store/types.js'
import type { Controller, ControllerContext } from './controller.js'
import { RetryTimer } from './retry-timer.js'

export class PeerEndpointReconciler implements Controller {
  readonly name = 'peer-endpoint-reconciler-controller'
  private log: ControllerContext['log'] = () => {}
  private stopped = false
  private readonly timer = new RetryTimer(
    () => this.update(),
    (err) => this.log(2, `unable to update peer endpoint leases: ${(err as Error).message}`),
  )

  constructor(
    private readonly identity: ApiserverIdentity,
    private readonly store: () => Store,
    private readonly intervalMs = PEER_ENDPOINT_INTERVAL_MS,
  ) {}

  start(ctx: ControllerContext): void {
    this.log = ctx.log
    void ctx.ready.then((ready) => {
      if (ready && !this.stopped) this.timer.schedule(0)
    })
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.timer.stop()
    await removePeerEndpointLease(this.store(), this.identity.id)
  }

  private async update(): Promise<void> {
    if (this.stopped) return
    await updatePeerEndpointLease(this.store(), this.identity.id, this.identity.peerAddress)
    this.timer.schedule(this.intervalMs)
  }
}
