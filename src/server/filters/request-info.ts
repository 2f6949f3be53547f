/**
 * The reference's WithRequestInfo (endpoints/filters/requestinfo.go): the request info is
 * resolved with the request's context (src/server/http/request-info.ts); a resource path it
 * cannot make sense of (`/api/v1/watch`: a verb in the path and nothing after it) is the
 * reference's plain-text 500, before authentication or anything else reads the info.
 */
import { httpError } from '../http/respond.js'
import type { Filter } from '../http/types.js'
import { sanitizeHtml } from '../authorization/forbidden.js'
import { goQuote } from '../api/validation/field/go-format.js'

export function withRequestInfo(): Filter {
  return (next) => (req, res, ctx) => {
    const error = ctx.info.error
    if (error === undefined) return next(req, res, ctx)
    // RequestURI for the quoted part, the request's URL (without a fragment, which Go never keeps) for the resolver's %v.
    const uri = req.url ?? ''
    const url = uri.split('#')[0]!
    httpError(res, 500, sanitizeHtml(`Internal Server Error: ${goQuote(uri)}: failed to create RequestInfo: ${error}, ${url}`))
  }
}
