/**
 * encoding/json's type errors, as the reference's plugin configurations quote them when a
 * field has the wrong JSON type (`json: cannot unmarshal string into Go struct field
 * Limit.limits.burst of type int32`).
 */
export type Obj = Record<string, unknown>

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Go's name of a JSON value in a type error. */
export function jsonValue(v: unknown): string {
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'number') return `number ${String(v)}`
  return typeof v === 'object' ? 'object' : typeof v
}

export function typeError(v: unknown, struct: string, field: string, type: string): Error {
  return new Error(`json: cannot unmarshal ${jsonValue(v)} into Go struct field ${struct}.${field} of type ${type}`)
}
