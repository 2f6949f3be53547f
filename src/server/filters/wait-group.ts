/**
 * Counts the non-long-running requests in flight so that shutdown can wait for them; once
 * the server stops accepting new requests, new ones that reach here get 503.
 */
import { failureStatus } from '../http/status.js'
import type { LifecycleSignals, WaitGroup } from '../lifecycle/signals.js'
import type { Filter, Response } from '../http/types.js'
import { onSettled } from '../http/settled.js'
import { isExemptFromShutdown } from './retry-after.js'

export { onSettled } from '../http/settled.js'

export function shuttingDown503(res: Response): void {
  res.setHeader('Retry-After', '1')
  res.setHeader('Content-Type', 'application/json')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.statusCode = 503
  res.end(`${JSON.stringify(failureStatus(503, 'ServiceUnavailable', 'apiserver is shutting down'))}\n\n`)
}

export function withWaitGroup(signals: LifecycleSignals, inFlight: WaitGroup): Filter {
  // One callback for every request, not a closure each.
  const done = () => inFlight.done()
  return (next) => (req, res, ctx) => {
    if (ctx.info.longRunning) return next(req, res, ctx)
    if (signals.notAcceptingNewRequest.signalled && !isExemptFromShutdown(req, ctx.url.pathname)) {
      shuttingDown503(res)
      return
    }
    inFlight.add()
    onSettled(res, done)
    return next(req, res, ctx)
  }
}
