/** --strict-transport-security-directives: the HSTS header on every response when given. */
import type { Filter } from '../http/types.js'

export function withHsts(directives: readonly string[]): Filter {
  const value = directives.join('; ')
  // Not configured: no link at all (nothing to do per request).
  if (value === '') return (next) => next
  return (next) => (req, res, ctx) => {
    res.setHeader('Strict-Transport-Security', value)
    return next(req, res, ctx)
  }
}
