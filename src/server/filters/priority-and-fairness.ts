/**
 * --enable-priority-and-fairness: one pool of seats (the sum of the two in-flight limits),
 * with a queue per user dispatched round-robin, so one busy client cannot starve the others.
 * Probes of /healthz, /livez and /readyz and members of system:masters are exempt: they are
 * never queued or rejected. A request that finds its user's queue full, or waits past its
 * deadline, is refused with 429 and a Retry-After that grows while rejections continue.
 */
import { randomUUID } from 'node:crypto'
import { type MaybePromise, isPromise } from '../http/maybe-promise.js'
import type { Filter, Handler, Request, RequestContext, Response } from '../http/types.js'
import { tooManyRequests } from './max-in-flight.js'
import { onSettled } from './wait-group.js'
import { type FlowObject, classify } from './flow-schemas.js'

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
  /** The FlowSchemas and priority levels in the store (undefined until it is open). */
  configuration?: () => MaybePromise<{ schemas: FlowObject[]; levels: FlowObject[] } | undefined>
}

function isExempt(req: Request, ctx: RequestContext): boolean {
  return ((req.method === 'GET' || req.method === 'HEAD') && PROBE_PATHS.has(ctx.info.path)) || Boolean(ctx.user?.groups.includes('system:masters'))
}

export function withPriorityAndFairness({ seats, now = Date.now, configuration }: FlowControlOptions): Filter {
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

  /** The headers name the FlowSchema and priority level the request was classified into. */
  const identify = (req: Request, res: Response, ctx: RequestContext, config: { schemas: FlowObject[]; levels: FlowObject[] } | undefined): void => {
    const found = config ? classify(config.schemas, config.levels, ctx) : undefined
    const fallback = isExempt(req, ctx) ? ids.exempt : ids.global
    res.setHeader('X-Kubernetes-Pf-Flowschema-Uid', found?.schema.uid || fallback.schema)
    res.setHeader('X-Kubernetes-Pf-Prioritylevel-Uid', found?.level.uid || fallback.level)
  }

  // Not async: with the configuration read and a free seat (or an exempt request) nothing waits.
  return (next) => (req, res, ctx) => {
    const config = configuration?.()
    if (isPromise(config)) return config.then((c) => admit(next, req, res, ctx, c))
    return admit(next, req, res, ctx, config)
  }

  function admit(next: Handler, req: Request, res: Response, ctx: RequestContext, config: { schemas: FlowObject[]; levels: FlowObject[] } | undefined): void | Promise<void> {
    identify(req, res, ctx, config)
    if (isExempt(req, ctx) || ctx.info.longRunning) return next(req, res, ctx)
    if (busy < seats) {
      busy++
      onSettled(res, release)
      return next(req, res, ctx)
    }
    return queued(next, req, res, ctx)
  }

  function release(): void {
    busy--
    dispatch()
  }

  /** No free seat: the request waits in its user's queue (or is refused when that is full). */
  async function queued(next: Handler, req: Request, res: Response, ctx: RequestContext): Promise<void> {
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
    onSettled(res, release)
    return next(req, res, ctx)
  }
}
