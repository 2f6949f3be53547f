/**
 * The query parameters of the connect subresources decoded as the reference's parameter codec
 * decodes them (runtime's Convert_Slice_string_To_*): a boolean is false only for `false` or
 * `0` (any case), a number is strconv.ParseInt's, a time RFC 3339; a value that does not
 * decode is a 400 with Go's message.
 */
import { errors } from '../api/status-errors.js'
import { goQuote } from '../api/validation/field/go-format.js'

export function boolParam(query: URLSearchParams, name: string): boolean {
  const value = query.get(name)
  if (value === null || value === '') return false
  const lower = value.toLowerCase()
  return lower !== 'false' && lower !== '0'
}

export function intParam(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name)
  if (value === null || value === '') return undefined
  if (!/^[+-]?[0-9]+$/.test(value)) throw errors.badRequest(`strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`)
  const n = BigInt(value)
  if (n < -(2n ** 63n) || n >= 2n ** 63n) throw errors.badRequest(`strconv.ParseInt: parsing ${goQuote(value)}: value out of range`)
  return Number(n)
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

export function timeParam(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name)
  if (value === null || value === '') return undefined
  if (!RFC3339.test(value) || Number.isNaN(Date.parse(value))) {
    throw errors.badRequest(`parsing time ${goQuote(value)} as "2006-01-02T15:04:05Z07:00": cannot parse ${goQuote(value)} as "2006"`)
  }
  // Sent on as the reference formats it (time.RFC3339: seconds, UTC as Z).
  return new Date(value).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

export function stringParam(query: URLSearchParams, name: string): string {
  return query.get(name) ?? ''
}
