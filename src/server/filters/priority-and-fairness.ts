/**
 * --enable-priority-and-fairness: one pool of seats (the sum of the two in-flight limits),
 * with a queue per user dispatched round-robin, so one busy client cannot starve the others.
 * Probes of /healthz, /livez and /readyz and members of system:masters are exempt: they are
 * never queued or rejected. A request that finds its user's queue full, or waits past its
 * deadline, is refused with 429 and a Retry-After that grows while rejections continue.
 */
import { randomUUID } from 'node:crypto'
import type { Filter, Request, RequestContext } from '../http/types.js'
import { tooManyRequests } from './max-in-flight.js'
import { onSettled } from './wait-group.js'

const PROBE_PATHS = new Set(['/healthz', '/livez', '/readyz'])
const QUEUE_LENGTH_LIMIT = 50
const MAX_QUEUE_WAIT_MS = 15_000

interface Waiter {
  admit: () => void
  reject: () => void
}

export interface FlowControlOptions {
  seats: number
  now?: () => number
}

function isExempt(req: Request, ctx: RequestContext): boolean {
  return ((req.method === 'GET' || req.method === 'HEAD') && PROBE_PATHS.has(ctx.info.path)) || Boolean(ctx.user?.groups.includes('system:masters'))
}

export function withPriorityAndFairness({ seats, now = Date.now }: FlowControlOptions): Filter {
  // The schema and level identities the server advertises in the X-Kubernetes-Pf-* headers.
  const ids = {
    exempt: { schema: randomUUID(), level: randomUUID() },
    global: { schema: randomUUID(), level: randomUUID() },
  }
  let busy = 0
  const queues = new Map<string, Waiter[]>()
  let rejections: number[] = []

  const dispatch = () => {
    while (busy < seats && queues.size > 0) {
      // Round-robin: take the first flow in insertion order and move it to the back.
      const [flow, queue] = queues.entries().next().value as [string, Waiter[]]
      queues.delete(flow)
      const waiter = queue.shift()!
      if (queue.length > 0) queues.set(flow, queue)
      busy++
      waiter.admit()
    }
  }

  const retryAfter = () => {
    const t = now()
    rejections = rejections.filter((at) => t - at < 10_000)
    rejections.push(t)
    return Math.min(32, 2 ** Math.floor(Math.log2(rejections.length)))
  }

  return (next) => async (req, res, ctx) => {
    if (isExempt(req, ctx) || ctx.info.longRunning) {
      const id = isExempt(req, ctx) ? ids.exempt : ids.global
      res.setHeader('X-Kubernetes-Pf-Flowschema-Uid', id.schema)
      res.setHeader('X-Kubernetes-Pf-Prioritylevel-Uid', id.level)
      return next(req, res, ctx)
    }
    res.setHeader('X-Kubernetes-Pf-Flowschema-Uid', ids.global.schema)
    res.setHeader('X-Kubernetes-Pf-Prioritylevel-Uid', ids.global.level)
    if (busy >= seats) {
      const flow = ctx.user?.name ?? ''
      const queue = queues.get(flow) ?? []
      if (queue.length >= QUEUE_LENGTH_LIMIT) {
        tooManyRequests(res, retryAfter())
        return
      }
      const admitted = await new Promise<boolean>((resolve) => {
        const waitMs = Math.min(MAX_QUEUE_WAIT_MS, (ctx.deadline ?? Infinity) - now())
        const waiter: Waiter = {
          admit: () => {
            clearTimeout(timer)
            resolve(true)
          },
          reject: () => resolve(false),
        }
        const timer = setTimeout(() => {
          const q = queues.get(flow)
          const i = q?.indexOf(waiter) ?? -1
          if (q && i !== -1) {
            q.splice(i, 1)
            if (q.length === 0) queues.delete(flow)
          }
          waiter.reject()
        }, Math.max(0, waitMs))
        queue.push(waiter)
        queues.set(flow, queue)
        res.once('close', () => {
          const q = queues.get(flow)
          const i = q?.indexOf(waiter) ?? -1
          if (q && i !== -1) {
            clearTimeout(timer)
            q.splice(i, 1)
            if (q.length === 0) queues.delete(flow)
            resolve(false)
          }
        })
      })
      if (!admitted) {
        if (!res.writableEnded && !res.destroyed) tooManyRequests(res, retryAfter())
        return
      }
    } else {
      busy++
    }
    onSettled(res, () => {
      busy--
      dispatch()
    })
    return next(req, res, ctx)
  }
}
