/** Responses are private and not to be cached unless a handler says otherwise (it may overwrite this). */
import type { Filter } from '../http/types.js'

export function withCacheControl(): Filter {
  return (next) => (req, res, ctx) => {
    res.setHeader('Cache-Control', 'no-cache, private')
    return next(req, res, ctx)
  }
}
