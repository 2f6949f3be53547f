/**
 * The mixed-version proxy's link of the chain (UnknownVersionInteroperabilityProxy; the
 * reference wraps the API handler with peerProxy.WrapHandler, so it runs after authorization):
 * a resource request this server does not serve but a peer does is answered by the peer
 * (../peers/peer-proxy.ts). Non-resource requests, requests already proxied once and requests
 * before the peers are first known are served here.
 */
import { writeErrorNegotiated } from '../api/negotiation.js'
import { ApiError } from '../api/status-errors.js'
import { failureStatus } from '../http/status.js'
import type { Filter } from '../http/types.js'
import type { PeerProxy } from '../peers/peer-proxy.js'
import { PEER_PROXIED_HEADER } from '../peers/peer-request.js'

export function withPeerProxy(proxy: PeerProxy): Filter {
  return (next) => (req, res, ctx) => {
    if (!ctx.info.isResourceRequest || req.headers[PEER_PROXIED_HEADER] === 'true' || !proxy.discovery.hasFinishedSync()) return next(req, res, ctx)
    return proxy.route(ctx).then((route) => {
      if (route.to === 'local') return next(req, res, ctx)
      if (route.to === 'peer') return proxy.forward(req, res, ctx, route.address)
      return writeErrorNegotiated(req, res, new ApiError(failureStatus(503, 'ServiceUnavailable', route.error)))
    })
  }
}
