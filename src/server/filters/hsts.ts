/** --strict-transport-security-directives: the HSTS header on every response when given. */
import type { Filter } from '../http/types.js'

export function withHsts(directives: readonly string[]): Filter {
  const value = directives.join('; ')
  return (next) => (req, res, ctx) => {
    if (value !== '') res.setHeader('Strict-Transport-Security', value)
    return next(req, res, ctx)
  }
}
