/**
 * The types MutatingAdmissionPolicy expressions construct (the reference's
 * k8s.io/apiserver/pkg/cel/mutation): `Object` and `Object.<field path>` objects, whose fields
 * are all dyn and whose type names must follow the field path from the root `Object`
 * (dynamic.ObjectVal), and `JSONPatch` operations with their string `op`, `path`, `from` and dyn
 * `value` (JSONPatchVal). Constructions reach the library as calls (construction.ts); here each
 * constructed type name is registered with its constructor function, field selection and `==`.
 */
import type { Environment } from '@marcbachmann/cel-js'
import { type Construction, HAS_FIELD_FUNCTION, JSON_PATCH_FIELDS, jsonPatchFieldFunction } from '../construction.js'
import { toJson } from '../values.js'

const TYPE_NAME = Symbol('typeName')

/** A constructed `Object...` value: its fields as own properties (for selection), its type name aside. */
export class CelObjectValue {
  declare readonly [TYPE_NAME]: string
  constructor(typeName: string, fields: Record<string, unknown>) {
    Object.defineProperty(this, TYPE_NAME, { value: typeName, enumerable: false })
    Object.assign(this, fields)
  }

  static typeNameOf(value: CelObjectValue): string {
    return value[TYPE_NAME]
  }
}

/** A constructed `JSONPatch`: unset string fields read as "" (the reference's zero values). */
export class CelJsonPatchValue {
  op = ''
  path = ''
  from = ''
  value?: unknown
  constructor(fields: Record<string, unknown>) {
    Object.assign(this, fields)
  }
}

function entries(fields: unknown): Record<string, unknown> {
  if (fields instanceof Map) return Object.fromEntries(fields)
  return { ...(fields as Record<string, unknown>) }
}

/** `value` as plain JSON: constructed objects as maps of their fields. */
export function mutationValueToJson(value: unknown): unknown {
  if (value instanceof CelObjectValue) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mutationValueToJson(v)]))
  if (value instanceof CelJsonPatchValue) return { op: value.op, path: value.path, from: value.from, value: mutationValueToJson(value.value) }
  if (Array.isArray(value)) return value.map(mutationValueToJson)
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), mutationValueToJson(v)]))
  if (value && typeof value === 'object' && value.constructor === Object) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mutationValueToJson(v)]))
  }
  // cel-go's JSON values of a timestamp (RFC 3339, fraction trimmed) and a duration (seconds, `s`).
  if (value instanceof Date) return value.toISOString().replace(/\.?0+Z$/, 'Z')
  if (isDuration(value)) return `${(Number(value.seconds) + value.nanos / 1e9).toString()}s`
  return toJson(value)
}

function isDuration(value: unknown): value is { seconds: bigint; nanos: number } {
  return typeof value === 'object' && value !== null && value.constructor?.name === 'Duration' && typeof (value as { seconds?: unknown }).seconds === 'bigint'
}

function equalValues(a: unknown, b: unknown): boolean {
  return JSON.stringify(mutationValueToJson(a)) === JSON.stringify(mutationValueToJson(b)) && typeOf(a) === typeOf(b)
}

function typeOf(value: unknown): string {
  if (value instanceof CelObjectValue) return CelObjectValue.typeNameOf(value)
  if (value instanceof CelJsonPatchValue) return 'JSONPatch'
  if (typeof value === 'bigint') return 'int'
  return typeof value
}

/**
 * The reference's CheckTypeNamesMatchFieldPathNames: every object under field `f` of a value of
 * type T must be of type `T.f`; lists and maps in between are transparent.
 */
export function typeNameMismatches(value: unknown, path: string[] = []): string[] {
  const errs: string[] = []
  if (value instanceof CelObjectValue) {
    const expected = path.length === 0 ? CelObjectValue.typeNameOf(value) : path.join('.')
    if (CelObjectValue.typeNameOf(value) !== expected) {
      errs.push(`unexpected type name ${JSON.stringify(CelObjectValue.typeNameOf(value))}, expected ${JSON.stringify(expected)}, which matches field name path from root Object type`)
    }
    const base = path.length === 0 ? [CelObjectValue.typeNameOf(value)] : path
    for (const [k, v] of Object.entries(value)) errs.push(...typeNameMismatches(v, [...base, k]))
  } else if (Array.isArray(value)) {
    for (const v of value) errs.push(...typeNameMismatches(v, path))
  } else if (value instanceof Map) {
    for (const v of value.values()) errs.push(...typeNameMismatches(v, path))
  } else if (value && typeof value === 'object' && value.constructor === Object) {
    for (const v of Object.values(value)) errs.push(...typeNameMismatches(v, path))
  }
  return errs
}

/** has() of a constructed value's field: a JSONPatch string set non-empty, its value given; an object's field present. */
function hasField(value: unknown, field: string): boolean {
  if (value instanceof CelJsonPatchValue) {
    if (field === 'value') return value.value !== undefined
    return field in JSON_PATCH_FIELDS && (value[field as 'op' | 'path' | 'from'] ?? '').length > 0
  }
  return value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, field)
}

/** Registers the JSONPatch type and each constructed type name of an expression. */
export function registerConstructions(env: Environment, constructions: readonly Construction[]): void {
  env.registerType('JSONPatch', { ctor: CelJsonPatchValue, fields: { op: 'string', path: 'string', from: 'string', value: 'dyn' } } as never)
  env.registerOperator('JSONPatch == JSONPatch', equalValues)
  env.registerFunction(`${HAS_FIELD_FUNCTION}(dyn, string): bool`, hasField)
  for (const [field, type] of Object.entries(JSON_PATCH_FIELDS)) {
    if (type === 'string') env.registerFunction(`${jsonPatchFieldFunction(field)}(string): string`, (s: string) => s)
  }
  for (const { typeName, fn } of constructions) {
    if (typeName === 'JSONPatch') {
      env.registerFunction(`${fn}(map<string, dyn>): JSONPatch`, (fields: unknown) => new CelJsonPatchValue(entries(fields)))
      continue
    }
    // One class per type name: the library knows a type by its constructor.
    const ctor = class extends CelObjectValue {}
    env.registerType(typeName, ctor as never)
    env.registerFunction(`${fn}(map<string, dyn>): ${typeName}`, (fields: unknown) => new ctor(typeName, entries(fields)))
    env.registerOperator(`${typeName} == ${typeName}`, equalValues)
  }
}
