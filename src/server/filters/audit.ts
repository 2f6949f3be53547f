/**
 * Audit: records each request and its response with the configured backend (log, webhook)
 * at the level the audit policy gives it. Its place in the chain is here, after
 * authentication so events name the user; without a policy or a backend (no
 * --audit-policy-file: no events, as the reference) it is no link at all. The event model,
 * policy and backends live in `src/server/audit/`.
 */
import type { AuditBackend } from '../audit/backend.js'
import { type Stage, microTime } from '../audit/event.js'
import type { PolicyRuleEvaluator } from '../audit/policy.js'
import { newRequestEvent } from '../audit/request-event.js'
import type { Filter } from '../http/types.js'

export type { AuditBackend } from '../audit/backend.js'

export interface AuditOptions {
  backend?: AuditBackend
  policy?: PolicyRuleEvaluator
}

export function withAudit({ backend, policy }: AuditOptions): Filter {
  // Nothing to record: no link at all, so a request pays nothing for audit.
  if (!backend || !policy) return (next) => next
  return (next) => (req, res, ctx) => {
    const config = policy.evaluatePolicyRule({ user: ctx.user, request: ctx.info })
    if (config.level === 'None') return next(req, res, ctx)
    const event = newRequestEvent(req, ctx, config.level)
    const process = (stage: Stage) => {
      if (config.omitStages.includes(stage)) return
      event.stage = stage
      event.stageTimestamp = microTime(Date.now())
      backend.processEvents(event)
    }
    process('RequestReceived')
    res.once('finish', () => {
      event.responseStatus = { metadata: {}, code: res.statusCode }
      process('ResponseComplete')
    })
    return next(req, res, ctx)
  }
}
