/**
 * The authorization link of the chain: asks the configured authorizer (see
 * ../authorization/index.ts) about the request; anything not allowed is the reference's 403
 * Status, and an authorizer error without an allow is its 500.
 */
import { httpError } from '../http/respond.js'
import { writeErrorNegotiated } from '../api/negotiation.js'
import { ApiError } from '../api/status-errors.js'
import type { Filter } from '../http/types.js'
import { type Authorizer, requestAttributes } from '../authorization/authorizer.js'
import { requestForbidden, sanitizeHtml } from '../authorization/forbidden.js'

export function withAuthorization(authorizer: Authorizer): Filter {
  return (next) => async (req, res, ctx) => {
    const attributes = requestAttributes(ctx.user!, ctx.info, ctx.url.searchParams.get('fieldSelector') ?? undefined)
    const { decision, reason, error } = await authorizer.authorize(attributes)
    if (decision === 'allow') return next(req, res, ctx)
    if (error) {
      httpError(res, 500, sanitizeHtml(`Internal Server Error: ${JSON.stringify(req.url ?? '')}: ${error}`))
      return
    }
    await writeErrorNegotiated(req, res, new ApiError(requestForbidden(attributes, reason)))
  }
}
