/**
 * --cors-allowed-origins: requests whose Origin matches one of the expressions get the CORS
 * headers, and a preflight (OPTIONS) is answered here with 204.
 */
import type { Filter } from '../http/types.js'

const ALLOWED_METHODS = 'POST, GET, OPTIONS, PUT, DELETE, PATCH'
const ALLOWED_HEADERS = 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since'
const EXPOSED_HEADERS = 'Date'

export function withCors(allowedOrigins: readonly string[]): Filter {
  const patterns = allowedOrigins.map((expr) => new RegExp(expr))
  // No --cors-allowed-origins: no link at all.
  if (patterns.length === 0) return (next) => next
  return (next) => (req, res, ctx) => {
    const origin = req.headers.origin
    if (typeof origin !== 'string' || origin === '') return next(req, res, ctx)
    if (!patterns.some((p) => p.test(origin))) return next(req, res, ctx)
    res.setHeader('Access-Control-Allow-Origin', origin)
    res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS)
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS)
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS)
    res.setHeader('Access-Control-Allow-Credentials', 'true')
    if (req.method === 'OPTIONS') {
      res.statusCode = 204
      res.end()
      return
    }
    return next(req, res, ctx)
  }
}
