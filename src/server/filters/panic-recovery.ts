/** Outermost safety net: a handler that throws answers 500 instead of taking the process down. */
import type { Logger } from '../log/logger.js'
import { httpError } from '../http/respond.js'
import { isPromise } from '../http/maybe-promise.js'
import type { Filter } from '../http/types.js'

export function withPanicRecovery(log: Logger): Filter {
  return (next) => (req, res, ctx) => {
    const recover = (err: unknown) => {
      log.error(`panic serving ${req.method} ${ctx.url.pathname}: ${(err as Error)?.stack ?? String(err)}`)
      if (!res.headersSent) httpError(res, 500, 'This request caused apiserver to panic. Look in the logs for details.')
      else res.destroy()
    }
    // Not an async function: a handler that answers at once is not made to wait a turn.
    let result: void | Promise<void>
    try {
      result = next(req, res, ctx)
    } catch (err) {
      recover(err)
      return
    }
    if (isPromise(result)) return result.catch(recover)
  }
}
