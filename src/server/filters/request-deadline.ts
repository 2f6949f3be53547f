/**
 * The deadline of a non-long-running request: the `timeout` query parameter, capped by
 * --request-timeout. An unparsable `timeout` is a 400 before anything else runs.
 */
import { parseGoDuration } from '../../core/options/go-syntax.js'
import { jsonResponse } from '../http/respond.js'
import { failureStatus } from '../http/status.js'
import type { Filter } from '../http/types.js'

export function withRequestDeadline(requestTimeoutMs: number): Filter {
  return (next) => (req, res, ctx) => {
    if (ctx.info.longRunning) return next(req, res, ctx)
    let timeout = requestTimeoutMs
    const given = ctx.rawQuery === '' ? null : ctx.url.searchParams.get('timeout')
    if (given !== null && given !== '') {
      let parsed: number
      try {
        parsed = parseGoDuration(given)
      } catch (err) {
        const message = `invalid timeout specified in the request URL - ${(err as Error).message}`
        jsonResponse(res, 400, failureStatus(400, 'BadRequest', message))
        return
      }
      if (parsed > 0 && parsed < requestTimeoutMs) timeout = parsed
    }
    if (timeout > 0) ctx.deadline = ctx.receivedAt + timeout
    return next(req, res, ctx)
  }
}
