/** Converting CEL results to plain JSON values for callers that store or compare them. */
import { Optional } from '@marcbachmann/cel-js'

export function toJson(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value)
  if (value instanceof Optional) return value.hasValue() ? toJson(value.value()) : undefined
  if (Array.isArray(value)) return value.map(toJson)
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toJson(v)]))
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64')
  if (value && typeof value === 'object' && value.constructor === Object) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]))
  }
  if (value && typeof value === 'object' && typeof (value as { valueOf(): unknown }).valueOf() === 'bigint') {
    // uint
    return Number((value as { valueOf(): bigint }).valueOf())
  }
  return value
}
