/**
 * Audit: records each request and its response with the configured backend (log, webhook)
 * at the level the audit policy gives it (the reference's filters.WithAudit). Its place in
 * the chain is here, after authentication so events name the user; without a policy or a
 * backend (no --audit-policy-file: no events, as the reference) it is no link at all.
 *
 * One event per stage: RequestReceived before the request goes on (a backend refusing it in
 * blocking-strict mode fails the request with a 500), ResponseStarted when a long-running
 * request's (a watch's) headers go, ResponseComplete when the response is over, Panic instead
 * when the handling threw. The event gathers what later links learn: the impersonated user,
 * the authorization decision and the admission annotations (RequestContext.auditAnnotations),
 * the objects the handlers decoded and answered with (http/audit-objects.ts), and the response's
 * status. The event model, policy and
 * backends live in `src/server/audit/`.
 */
import { bodyIfRead } from '../api/negotiation.js'
import { loadYaml } from '../../core/util/yaml.js'
import { requestObjectOf, responseObjectOf } from '../http/audit-objects.js'
import { goQuote } from '../api/validation/field/go-format.js'
import { sanitizeHtml } from '../authorization/forbidden.js'
import type { AuditBackend } from '../audit/backend.js'
import { type AuditEvent, type Stage, levelAtLeast, microTime, preciseNow } from '../audit/event.js'
import { type AuditMetrics, NO_AUDIT_METRICS } from '../audit/metrics.js'
import type { PolicyRuleEvaluator, RequestAuditConfig } from '../audit/policy.js'
import { auditUser, logRequestObject, logResponseObject, newRequestEvent } from '../audit/request-event.js'
import { LatencyTrackers, latencyAnnotations } from '../http/latency-trackers.js'
import { type MaybePromise, isPromise } from '../http/maybe-promise.js'
import { httpError } from '../http/respond.js'
import type { Filter, Handler, Request, RequestContext, Response } from '../http/types.js'
import { type ResponseMoments, watchResponse } from './audit-response.js'

export type { AuditBackend } from '../audit/backend.js'

export interface AuditOptions {
  backend?: AuditBackend
  policy?: PolicyRuleEvaluator
  metrics?: AuditMetrics
}

export function withAudit({ backend, policy, metrics = NO_AUDIT_METRICS }: AuditOptions): Filter {
  // Nothing to record: no link at all, so a request pays nothing for audit.
  if (!backend || !policy) return (next) => next
  return (next) => (req, res, ctx) => {
    const config = policy.evaluatePolicyRule({ user: ctx.user, request: ctx.info })
    metrics.policyLevel(config.level)
    if (config.level === 'None') return next(req, res, ctx)
    return new RequestAudit(req, res, ctx, config, backend, metrics).serve(next)
  }
}

/**
 * The audit of one request: its event, stamped and handed over at each stage. It is its
 * response's watcher itself (onStart, onEnd), so that a request makes no closures for its audit.
 */
class RequestAudit implements ResponseMoments {
  private readonly event: AuditEvent
  /** The user as authenticated; a different one later is the impersonated user. */
  private readonly authenticated: RequestContext['user']
  private panicked = false
  private completed = false

  constructor(
    private readonly req: Request,
    private readonly res: Response,
    private readonly ctx: RequestContext,
    private readonly config: RequestAuditConfig,
    private readonly backend: AuditBackend,
    private readonly metrics: AuditMetrics,
  ) {
    this.event = newRequestEvent(req, ctx, config.level)
    this.authenticated = ctx.user
    // Later links (authorization, admission) annotate the event through the context.
    ctx.auditAnnotations ??= {}
    // A watch's time is its stream's: no layers measured (the reference's WithLatencyTrackers).
    if (ctx.info.verb !== 'watch') ctx.latencyTrackers ??= new LatencyTrackers()
  }

  serve(next: Handler): void | Promise<void> {
    const stored = this.process('RequestReceived')
    return isPromise(stored) ? stored.then((ok) => this.received(ok, next)) : this.received(stored, next)
  }

  /** The RequestReceived event was handed over (`ok`: stored): the request goes on, or fails. */
  private received(ok: boolean, next: Handler): void | Promise<void> {
    if (!ok) {
      this.metrics.requestRejected()
      httpError(this.res, 500, sanitizeHtml(`Internal Server Error: ${goQuote(this.req.url ?? '')}: failed to store audit event`))
      return
    }
    watchResponse(this.res, this)
    try {
      const handled = next(this.req, this.res, this.ctx)
      return isPromise(handled) ? handled.catch((err: unknown) => this.panic(err)) : handled
    } catch (err) {
      this.panic(err)
    }
  }

  /** The response's status is decided: a long-running request's ResponseStarted. */
  onStart(code: number): void {
    this.event.responseStatus = { metadata: {}, code }
    if (this.ctx.info.longRunning) void this.process('ResponseStarted')
  }

  /** The response ends (or its connection closed first): ResponseComplete. */
  onEnd(): void {
    if (this.completed || this.panicked) return
    this.completed = true
    const longRunning = this.ctx.info.longRunning
    if (!this.event.responseStatus) {
      // Nothing was written: the reference's "Connection closed early".
      this.event.responseStatus = { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 }
      if (longRunning) void this.process('ResponseStarted')
    }
    // A watch's stream is no response object.
    const body = longRunning ? undefined : responseObjectOf(this.res)
    if (body !== undefined) logResponseObject(this.event, body, this.config.omitManagedFields)
    void this.process('ResponseComplete')
  }

  onWritten(ms: number): void {
    this.ctx.latencyTrackers?.add('responseWrite', ms)
  }

  /** The handling threw: a Panic event instead of ResponseComplete, and the error goes on to the panic recovery. */
  private panic(err: unknown): never {
    this.panicked = true
    this.event.responseStatus = { metadata: {}, status: 'Failure', message: `APIServer panic'd: ${err instanceof Error ? err.message : String(err)}`, reason: 'InternalError', code: 500 }
    void this.process('Panic')
    throw err
  }

  /** Stamps the stage on the event with what is known by now and hands it over (ProcessEventStage). */
  private process(stage: Stage): MaybePromise<boolean> {
    if (this.config.omitStages.includes(stage)) return true
    const event = this.event
    event.stage = stage
    const now = stage === 'RequestReceived' ? 0 : preciseNow()
    event.stageTimestamp = stage === 'RequestReceived' ? event.requestReceivedTimestamp : microTime(now)
    // A slow request's layers (writeLatencyToAnnotation), measured from its arrival to this stage.
    if (stage === 'ResponseComplete') {
      const latency = latencyAnnotations(this.ctx.latencyTrackers, now - this.ctx.receivedAt)
      if (latency) Object.assign(this.ctx.auditAnnotations!, latency)
    }
    if (stage !== 'RequestReceived') this.learn()
    this.metrics.event()
    const stored = this.backend.processEvents(event)
    // A backend reports its own failures; a rejection is a refusal, never an unhandled error.
    return isPromise(stored) ? stored.catch(() => false) : stored
  }

  /** What later links learned: the impersonated user, the request body, the annotations. */
  private learn(): void {
    const event = this.event
    const user = this.ctx.user
    if (user && user !== this.authenticated) event.impersonatedUser = auditUser(user)
    if (event.requestObject === undefined) {
      const patch = this.ctx.info.verb === 'patch'
      const body = patch ? patchBody(this.req) : requestObjectOf(this.req)
      if (body !== undefined) logRequestObject(event, body, patch, this.config.omitManagedFields)
    }
    const annotations = this.ctx.auditAnnotations
    if (annotations) event.annotations = sortedKeys(annotations) ?? event.annotations
  }
}

/**
 * A patch as sent (LogRequestPatch), when it is JSON; an apply patch in YAML converted to JSON,
 * as the reference's transcoding of apply patches before auditing (kubernetes#139419) does.
 */
function patchBody(req: Request): unknown {
  const bytes = bodyIfRead(req)
  if (!bytes || bytes.length === 0) return undefined
  const text = bytes.toString('utf8')
  try {
    return JSON.parse(text) as unknown
  } catch {
    if (!isApplyYaml(req)) return undefined
  }
  try {
    return loadYaml(text, { json: true })
  } catch {
    return undefined
  }
}

function isApplyYaml(req: Request): boolean {
  const type = req.headers['content-type']
  return typeof type === 'string' && type.split(';')[0]!.trim().toLowerCase() === 'application/apply-patch+yaml'
}

/** A map encoded as the reference encodes one: keys in order (most maps come in order: kept as they are); none when empty. */
function sortedKeys(map: Record<string, string>): Record<string, string> | undefined {
  const keys = Object.keys(map)
  if (keys.length === 0) return undefined
  let sorted = true
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! < keys[i]!
  if (sorted) return { ...map }
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
