/** Converting between plain JSON values and CEL values for callers that store, compare or pass them. */
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

/**
 * A decoded JSON value as the reference's schemaless (unstructured) CEL values: whole numbers
 * are ints (bigint), others doubles; maps, lists, strings, booleans and null as they are. JSON
 * loses whether `1.0` was written as a float, so a whole number is always an int here.
 */
export function fromJson(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value
  if (Array.isArray(value)) return value.map(fromJson)
  if (value !== null && typeof value === 'object' && (value.constructor === Object || Object.getPrototypeOf(value) === null)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = fromJson(v)
    return out
  }
  return value
}
