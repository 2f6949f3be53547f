/**
 * --goaway-chance: that fraction of HTTP/2 requests end their connection with a GOAWAY after
 * the response, so that clients behind a load balancer spread over servers again.
 */
import { Http2ServerResponse } from 'node:http2'
import type { Filter } from '../http/types.js'

export function withProbabilisticGoaway(chance: number, random: () => number = Math.random): Filter {
  // --goaway-chance=0 (the default): no link at all.
  if (!(chance > 0)) return (next) => next
  return (next) => (req, res, ctx) => {
    if (res instanceof Http2ServerResponse && !ctx.info.longRunning && random() < chance) {
      const session = res.stream.session
      res.once('finish', () => {
        if (session && !session.closed && !session.destroyed) session.goaway()
      })
    }
    return next(req, res, ctx)
  }
}
