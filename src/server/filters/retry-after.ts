/**
 * With --shutdown-send-retry-after, once the server stops accepting new requests every
 * request that is not a probe or metrics scrape is answered 429, and its connection closed,
 * so that clients move to another server while in-flight requests drain.
 */
import type { LifecycleSignals } from '../lifecycle/signals.js'
import { closeAfterResponse, httpError } from '../http/respond.js'
import type { Filter, Request } from '../http/types.js'

const EXEMPT_PREFIXES = ['/readyz', '/livez', '/healthz', '/metrics']

export function isExemptFromShutdown(req: Request, path: string): boolean {
  const agent = req.headers['user-agent'] ?? ''
  return EXEMPT_PREFIXES.some((p) => path.startsWith(p)) || agent.startsWith('kube-apiserver/')
}

export function withRetryAfter(signals: LifecycleSignals, enabled: boolean): Filter {
  // Without --shutdown-send-retry-after: no link at all.
  if (!enabled) return (next) => next
  return (next) => (req, res, ctx) => {
    if (signals.notAcceptingNewRequest.signalled && !isExemptFromShutdown(req, ctx.url.pathname)) {
      closeAfterResponse(res)
      res.setHeader('Retry-After', '5')
      httpError(res, 429, 'The apiserver is shutting down, please try again later.')
      return
    }
    return next(req, res, ctx)
  }
}
