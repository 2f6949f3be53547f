/**
 * --max-connection-bytes-per-sec: the responses of long-running requests (watches, and the
 * streams of exec, attach, port-forward, logs and proxies) paced to that many bytes a second,
 * each on its own (the reference paces each connection it streams this way). Other
 * requests are not paced.
 */
import { throttleResponse } from '../http/throttle.js'
import type { Filter } from '../http/types.js'

export function withConnectionThrottle(bytesPerSec: number): Filter {
  return (next) => (req, res, ctx) => {
    if (ctx.info.longRunning) throttleResponse(res, bytesPerSec)
    return next(req, res, ctx)
  }
}
