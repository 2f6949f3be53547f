/** Outermost safety net: a handler that throws answers 500 instead of taking the process down. */
import type { Logger } from '../log/logger.js'
import { httpError } from '../http/respond.js'
import { isPromise } from '../http/maybe-promise.js'
import type { Filter, Request, RequestContext, Response } from '../http/types.js'

export function withPanicRecovery(log: Logger): Filter {
  return (next) => (req, res, ctx) => {
    // Not an async function: a handler that answers at once is not made to wait a turn (nor
    // given a closure it will not need).
    let result: void | Promise<void>
    try {
      result = next(req, res, ctx)
    } catch (err) {
      recover(log, req, res, ctx, err)
      return
    }
    if (isPromise(result)) return result.catch((err: unknown) => recover(log, req, res, ctx, err))
  }
}

function recover(log: Logger, req: Request, res: Response, ctx: RequestContext, err: unknown): void {
  log.error(`panic serving ${req.method} ${ctx.url.pathname}: ${(err as Error)?.stack ?? String(err)}`)
  if (!res.headersSent) httpError(res, 500, 'This request caused apiserver to panic. Look in the logs for details.')
  else res.destroy()
}
