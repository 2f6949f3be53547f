/**
 * The audit of a request authentication refused (the reference's WithFailedAuthenticationAudit,
 * around its Unauthorized handler): the policy is evaluated with no user, and a request it
 * selects gets one event, at stage ResponseStarted when the 401 goes, whose responseStatus
 * says which credentials were tried ("Authentication failed, attempted: basic, x509"). No
 * RequestReceived nor ResponseComplete: the reference's failed handler makes only this one.
 */
import type { AuditBackend } from '../audit/backend.js'
import { microTime, preciseNow } from '../audit/event.js'
import { type AuditMetrics, NO_AUDIT_METRICS } from '../audit/metrics.js'
import type { PolicyRuleEvaluator } from '../audit/policy.js'
import { newRequestEvent } from '../audit/request-event.js'
import { peerCertificates } from '../authentication/x509.js'
import { isPromise } from '../http/maybe-promise.js'
import type { Handler, Request, RequestContext } from '../http/types.js'
import { watchResponse } from './audit-response.js'

export interface FailedAuthenticationAuditOptions {
  backend?: AuditBackend
  policy?: PolicyRuleEvaluator
  metrics?: AuditMetrics
}

export function withFailedAuthenticationAudit(failed: Handler, { backend, policy, metrics = NO_AUDIT_METRICS }: FailedAuthenticationAuditOptions): Handler {
  if (!backend || !policy) return failed
  return (req, res, ctx) => {
    const config = policy.evaluatePolicyRule({ user: undefined, request: ctx.info })
    metrics.policyLevel(config.level)
    if (config.level === 'None') return failed(req, res, ctx)
    const event = newRequestEvent(req, { ...ctx, user: undefined }, config.level)
    event.responseStatus = { metadata: {}, message: attemptedMethods(req, ctx) }
    watchResponse(res, {
      onStart: (code) => {
        event.responseStatus!.code = code
        if (config.omitStages.includes('ResponseStarted')) return
        event.stage = 'ResponseStarted'
        event.stageTimestamp = microTime(preciseNow())
        metrics.event()
        const stored = backend.processEvents(event)
        // The backend reports its own failures; the 401 goes out whatever happened.
        if (isPromise(stored)) stored.catch(() => false)
      },
      onEnd: () => {},
    })
    return failed(req, res, ctx)
  }
}

/** The reference's getAuthMethods: the kinds of credential the request carried. */
function attemptedMethods(req: Request, ctx: RequestContext): string {
  const methods: string[] = []
  const header = req.headers.authorization
  const auth = (typeof header === 'string' ? header : '').trim()
  if (hasBasicAuth(typeof header === 'string' ? header : '')) methods.push('basic')
  const parts = auth.split(' ')
  if (parts.length > 1 && parts[0]!.toLowerCase() === 'bearer') methods.push('bearer')
  if ((ctx.url.searchParams.get('access_token') ?? '').trim() !== '') methods.push('access_token')
  if (peerCertificates(req).length > 0) methods.push('x509')
  return methods.length > 0 ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided'
}

/** Go's Request.BasicAuth: "Basic " (any case) and base64 of "user:password". */
function hasBasicAuth(header: string): boolean {
  const prefix = 'basic '
  if (header.length < prefix.length || header.slice(0, prefix.length).toLowerCase() !== prefix) return false
  const encoded = header.slice(prefix.length)
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false
  return Buffer.from(encoded, 'base64').toString('latin1').includes(':')
}
