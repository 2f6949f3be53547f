/**
 * --enable-priority-and-fairness: every request (but non-watch long-running ones) is classified
 * by the FlowSchemas into a priority level, and the response headers name both by UID. The
 * level decides: the exempt level runs everything at once; a limited level runs a request when
 * a seat of its concurrency limit is free, else queues it (fairly, by flow) or refuses it with
 * 429 and the reference's text, with a Retry-After that grows while rejections continue (see
 * ../flowcontrol/). Probes of /healthz, /livez and /readyz and members of system:masters reach
 * the exempt level through the default FlowSchemas; before the store is open the default
 * configuration is used. Watches are classified but hold no seat once started.
 */
import { randomUUID } from 'node:crypto'
import { type MaybePromise, isPromise } from '../http/maybe-promise.js'
import type { Filter, Handler, Request, RequestContext, Response } from '../http/types.js'
import { tooManyRequests } from './max-in-flight.js'
import { onSettled } from './wait-group.js'
import type { FlowObject } from '../flowcontrol/flow-schemas.js'
import { FlowController } from '../flowcontrol/controller.js'
import type { Outcome, RequestMeta } from '../flowcontrol/queue-set.js'

/** A queued request may wait a quarter of its deadline (at most a minute), as in the reference. */
const DEFAULT_REQUEST_WAIT_LIMIT_MS = 15_000
const MAX_REQUEST_WAIT_LIMIT_MS = 60_000

export interface FlowControlOptions {
  /** The server concurrency limit: --max-requests-inflight + --max-mutating-requests-inflight. */
  seats: number
  now?: () => number
  /** The FlowSchemas and priority levels in the store (undefined until it is open). */
  configuration?: () => MaybePromise<{ schemas: FlowObject[]; levels: FlowObject[] } | undefined>
  /** The controller to use (the server shares it with the debug endpoints and metrics). */
  controller?: FlowController
}

function waitLimit(ctx: RequestContext): number {
  const limit = ctx.deadline === undefined ? DEFAULT_REQUEST_WAIT_LIMIT_MS : (ctx.deadline - ctx.receivedAt) / 4
  return Math.min(limit, MAX_REQUEST_WAIT_LIMIT_MS) - (Date.now() - ctx.receivedAt)
}

export function withPriorityAndFairness({ seats, now = Date.now, configuration, controller = new FlowController({ serverConcurrencyLimit: seats, now }) }: FlowControlOptions): Filter {
  // The identities the headers carry for the imagined mandatory objects, which have no UID.
  const imagined = new Map<string, string>()
  const uidOf = (kind: string, name: string, uid: string) => {
    if (uid) return uid
    const key = `${kind}/${name}`
    let id = imagined.get(key)
    if (!id) imagined.set(key, (id = randomUUID()))
    return id
  }
  controller.startBorrowing()

  // Not async: with the configuration read and a free seat (or an exempt request) nothing waits.
  return (next) => (req, res, ctx) => {
    if (ctx.info.longRunning && ctx.info.verb !== 'watch') return next(req, res, ctx)
    const config = configuration?.()
    if (isPromise(config)) return config.then((c) => admit(next, req, res, ctx, c))
    return admit(next, req, res, ctx, config)
  }

  function admit(next: Handler, req: Request, res: Response, ctx: RequestContext, config: { schemas: FlowObject[]; levels: FlowObject[] } | undefined): void | Promise<void> {
    controller.digest(config)
    const found = controller.classify(ctx)
    res.setHeader('X-Kubernetes-Pf-Flowschema-Uid', uidOf('FlowSchema', found.schema.name, found.schema.uid))
    res.setHeader('X-Kubernetes-Pf-Prioritylevel-Uid', uidOf('PriorityLevelConfiguration', found.level.name, found.level.uid))
    const level = controller.level(found.level.name)
    // The reference only computes a flow for levels with more than one queue (never the exempt ones).
    const distinguisher = level.exempt ? '' : flowDistinguisher(level.object.spec, found.schema.name, ctx)
    const info = ctx.info
    const meta: RequestMeta = {
      flowSchema: found.schema.name,
      distinguisher,
      seats: 1,
      userName: ctx.user?.name ?? '',
      verb: info.verb,
      path: info.path,
      namespace: info.namespace ?? '',
      name: info.name ?? '',
      apiGroup: info.apiGroup ?? '',
      apiVersion: info.apiVersion ?? '',
      resource: info.resource ?? '',
      subresource: info.subresource ?? '',
    }
    const outcome = level.queueSet.start(meta, waitLimit(ctx), (cancel) => res.once('close', cancel))
    if (isPromise(outcome)) {
      // Queued: the wait is the request's apf-queue-wait latency (the reference's observeQueueWaitTime).
      const queuedAt = performance.now()
      return outcome.then((o) => (ctx.latencyTrackers?.max('apfQueueWait', performance.now() - queuedAt), run(o, found.level.name, next, req, res, ctx)))
    }
    return run(outcome, found.level.name, next, req, res, ctx)
  }

  /** The flow's distinguisher (the user or the namespace, per the schema) on a level with several queues; else ''. */
  function flowDistinguisher(levelSpec: unknown, schemaName: string, ctx: RequestContext): string {
    const spec = (levelSpec ?? {}) as { limited?: { limitResponse?: { type?: string; queuing?: { queues?: number } } } }
    if ((spec.limited?.limitResponse?.queuing?.queues ?? 0) <= 1) return ''
    const schema = controller.schemaNamed(schemaName)
    const method = ((schema?.spec ?? {}) as { distinguisherMethod?: { type?: string } }).distinguisherMethod?.type
    return method === 'ByUser' ? (ctx.user?.name ?? '') : method === 'ByNamespace' ? (ctx.info.namespace ?? '') : ''
  }

  function run(outcome: Outcome, level: string, next: Handler, req: Request, res: Response, ctx: RequestContext): void | Promise<void> {
    if (!outcome.execute) {
      controller.dropped.recordDroppedRequest(level)
      if (!res.writableEnded && !res.destroyed) tooManyRequests(res, controller.dropped.retryAfter(level))
      return
    }
    if (res.destroyed) {
      outcome.finish()
      return
    }
    // A watch holds its seat only until it starts streaming.
    if (ctx.info.verb === 'watch') {
      outcome.finish()
      return next(req, res, ctx)
    }
    onSettled(res, outcome.finish)
    return next(req, res, ctx)
  }
}
