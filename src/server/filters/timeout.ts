/**
 * A non-long-running request that has written nothing by its deadline is answered 504; one
 * that has started writing is cut off. Writes the handler makes afterwards go nowhere.
 */
import { Http2ServerResponse } from 'node:http2'
import { onSettled } from '../http/settled.js'
import type { Filter, Response } from '../http/types.js'

const TIMEOUT_BODY =
  '{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n'

function silence(res: Response): void {
  const r = res as unknown as Record<string, unknown>
  r.setHeader = () => res
  r.writeHead = () => res
  r.write = () => true
  r.end = () => res
}

export function withTimeout(): Filter {
  return (next) => (req, res, ctx) => {
    if (ctx.deadline === undefined) return next(req, res, ctx)
    const outerHeaders = res.getHeaderNames()
    const result = next(req, res, ctx)
    // A response the handler ended within its call (a probe, a GET the store read at once) has
    // nothing left to time out: no timer for it. Otherwise the timer is armed now for the same
    // deadline (an absolute time), which the handler's synchronous part could not have passed
    // unnoticed: the timer fires at once if it has.
    if (res.writableEnded) return result
    armTimeout(res, ctx.deadline, outerHeaders)
    return result
  }
}

function armTimeout(res: Response, deadline: number, outerHeaders: string[]): void {
  const timer = setTimeout(() => {
    if (res.writableEnded) return
    if (res.headersSent) {
      if (res instanceof Http2ServerResponse) res.stream.close(2 /* INTERNAL_ERROR: like Go's RST_STREAM */)
      else res.destroy()
      return
    }
    for (const name of res.getHeaderNames()) if (!outerHeaders.includes(name)) res.removeHeader(name)
    // No explicit type, like the reference; Go sniffs this body as plain text.
    res.setHeader('Content-Type', 'text/plain; charset=utf-8')
    res.statusCode = 504
    res.end(TIMEOUT_BODY)
    silence(res)
  }, Math.max(0, deadline - Date.now()))
  onSettled(res, () => clearTimeout(timer))
}
