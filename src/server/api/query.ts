/**
 * Query parameters as the reference's parameter codec converts them into its option types
 * (apimachinery runtime conversions from url.Values): a boolean is false only when absent,
 * "0" or "false" in any case, and true for any other value, the empty one included (so
 * `watch=True`, `watch=yes` and `watch=` all watch); an integer is Go's strconv.ParseInt in
 * base 10 within int64, with its error text.
 */
import { errors } from './status-errors.js'

/** A boolean option: undefined when the parameter is absent. */
export function queryFlag(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name)
  if (value === null) return undefined
  const lower = value.toLowerCase()
  return !(lower === '0' || lower === 'false')
}

const INT64_MAX = 2n ** 63n - 1n
const INT64_MIN = -(2n ** 63n)

/**
 * strconv.ParseInt(s, 10, 64), or the reference's 400 with its error. Values beyond what a
 * JavaScript number holds exactly are clamped to ±Number.MAX_SAFE_INTEGER: as a limit or a
 * number of seconds they mean the same (more than anything there is).
 */
export function parseInt64(value: string): number {
  const fail = (why: string) => errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: ${why}`)
  if (!/^[+-]?\d+$/.test(value)) throw fail('invalid syntax')
  const big = BigInt(value)
  if (big > INT64_MAX || big < INT64_MIN) throw fail('value out of range')
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER
  if (big < BigInt(-Number.MAX_SAFE_INTEGER)) return -Number.MAX_SAFE_INTEGER
  return Number(big)
}

/** An integer option: undefined when the parameter is absent or empty. */
export function queryInt64(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name)
  if (value === null || value === '') return undefined
  return parseInt64(value)
}
