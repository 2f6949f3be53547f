/** Outermost safety net: a handler that throws answers 500 instead of taking the process down. */
import type { Logger } from '../log/logger.js'
import { httpError } from '../http/respond.js'
import type { Filter } from '../http/types.js'

export function withPanicRecovery(log: Logger): Filter {
  return (next) => async (req, res, ctx) => {
    try {
      await next(req, res, ctx)
    } catch (err) {
      log.error(`panic serving ${req.method} ${ctx.url.pathname}: ${(err as Error)?.stack ?? String(err)}`)
      if (!res.headersSent) httpError(res, 500, 'This request caused apiserver to panic. Look in the logs for details.')
      else res.destroy()
    }
  }
}
