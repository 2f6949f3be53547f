/**
 * The authorization link of the chain: asks the configured authorizer (see
 * ../authorization/index.ts) about the request; anything not allowed is the reference's 403
 * Status, and an authorizer error without an allow is its 500.
 */
import { httpError } from '../http/respond.js'
import { writeErrorNegotiated } from '../api/negotiation.js'
import { ApiError } from '../api/status-errors.js'
import type { Filter, Handler, Request, RequestContext, Response } from '../http/types.js'
import { type Attributes, type Authorizer, type Decision, requestAttributes } from '../authorization/authorizer.js'
import { isPromise } from '../http/maybe-promise.js'
import { requestForbidden, sanitizeHtml } from '../authorization/forbidden.js'
import { goQuote } from '../api/validation/field/go-format.js'

export function withAuthorization(authorizer: Authorizer): Filter {
  return (next) => (req, res, ctx) => {
    const attributes = requestAttributes(ctx.user!, ctx.info)
    // RBAC, Node and ABAC decide at once (no closure then); only a webhook makes the request wait.
    const decision = authorizer.authorize(attributes)
    return isPromise(decision) ? decision.then((d) => decide(next, req, res, ctx, attributes, d)) : decide(next, req, res, ctx, attributes, decision)
  }
}

function decide(next: Handler, req: Request, res: Response, ctx: RequestContext, attributes: Attributes, { decision, reason, error }: Decision): void | Promise<void> {
  if (decision === 'allow') {
    annotate(ctx, { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': reason ?? '' })
    return next(req, res, ctx)
  }
  if (error) {
    annotate(ctx, { 'authorization.k8s.io/reason': 'internal error' })
    httpError(res, 500, sanitizeHtml(`Internal Server Error: ${goQuote(req.url ?? '')}: ${error}`))
    return
  }
  annotate(ctx, { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': reason ?? '' })
  return writeErrorNegotiated(req, res, new ApiError(requestForbidden(attributes, reason)))
}

/**
 * The decision for the request's audit event (the reference's audit annotations), only when
 * the request is audited: the audit filter gives it annotations then.
 */
function annotate(ctx: RequestContext, annotations: Record<string, string>): void {
  if (ctx.auditAnnotations) Object.assign(ctx.auditAnnotations, annotations)
}
