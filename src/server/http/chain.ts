/** Composes filters around a handler; the first filter in the list is the outermost. */
import type { Filter, Handler } from './types.js'

export function chain(filters: readonly Filter[], handler: Handler): Handler {
  return filters.reduceRight<Handler>((next, filter) => filter(next), handler)
}
