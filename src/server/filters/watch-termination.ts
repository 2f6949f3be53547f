/**
 * With --shutdown-watch-termination-grace-period, counts active watches so that shutdown can
 * wait (up to the grace period) for them to end; new watches after that point get 503.
 */
import type { LifecycleSignals, WaitGroup } from '../lifecycle/signals.js'
import type { Filter } from '../http/types.js'
import { isExemptFromShutdown } from './retry-after.js'
import { onSettled, shuttingDown503 } from './wait-group.js'

export function withWatchTermination(signals: LifecycleSignals, watches: WaitGroup, gracePeriodMs: number): Filter {
  // No grace period (the default): watches are not counted, so no link at all.
  if (gracePeriodMs <= 0) return (next) => next
  return (next) => (req, res, ctx) => {
    if (!ctx.info.longRunning) return next(req, res, ctx)
    if (signals.notAcceptingNewRequest.signalled && !isExemptFromShutdown(req, ctx.url.pathname)) {
      shuttingDown503(res)
      return
    }
    watches.add()
    onSettled(res, () => watches.done())
    return next(req, res, ctx)
  }
}
