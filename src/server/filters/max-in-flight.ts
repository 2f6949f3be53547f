/**
 * --max-requests-inflight / --max-mutating-requests-inflight when priority and fairness is
 * off: reads (get, list, watch) and writes each have a cap; a request over it is refused
 * with 429 at once. Long-running requests and members of system:masters are not limited;
 * 0 means no limit.
 */
import { httpError } from '../http/respond.js'
import type { Filter } from '../http/types.js'
import { onSettled } from './wait-group.js'

const READ_VERBS = new Set(['get', 'list', 'watch'])

export function tooManyRequests(res: Parameters<typeof httpError>[0], retryAfterSeconds: number): void {
  res.setHeader('Retry-After', String(retryAfterSeconds))
  httpError(res, 429, 'Too many requests, please try again later.')
}

export function withMaxInFlight(maxReads: number, maxWrites: number): Filter {
  const inFlight = { read: 0, write: 0 }
  return (next) => (req, res, ctx) => {
    if (ctx.info.longRunning || ctx.user?.groups.includes('system:masters')) return next(req, res, ctx)
    const kind = READ_VERBS.has(ctx.info.verb) || !ctx.info.isResourceRequest && (req.method === 'GET' || req.method === 'HEAD') ? 'read' : 'write'
    const limit = kind === 'read' ? maxReads : maxWrites
    if (limit > 0 && inFlight[kind] >= limit) {
      tooManyRequests(res, 1)
      return
    }
    inFlight[kind]++
    onSettled(res, () => inFlight[kind]--)
    return next(req, res, ctx)
  }
}
