/**
 * A custom resource against its CRD version's structural schema (openAPIV3Schema), as the
 * reference's apiextensions-apiserver treats it: unknown fields are pruned and reported (unless
 * `x-kubernetes-preserve-unknown-fields`), `default`s fill missing fields, and validation gives
 * the field errors of a 422 Invalid (type, required, enum, minimum/maximum, length, items,
 * pattern, simple formats, nullable, x-kubernetes-int-or-string).
 */
import type { Cause } from '../status-errors.js'

type Json = Record<string, unknown>

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T)
}

/** Pruning and defaulting of one value; `unknown` collects the pruned fields' paths. */
export function pruneAndDefault(schema: Json, value: unknown, path: string, unknown: string[], root = false): unknown {
  if (Array.isArray(value)) {
    const items = isObj(schema.items) ? schema.items : undefined
    return items ? value.map((v, i) => pruneAndDefault(items, v, `${path}[${i}]`, unknown)) : value
  }
  if (!isObj(value)) return value
  const properties = isObj(schema.properties) ? (schema.properties as Record<string, Json>) : undefined
  const additional = isObj(schema.additionalProperties) ? schema.additionalProperties : undefined
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true
  const embedded = schema['x-kubernetes-embedded-resource'] === true
  const out: Json = {}
  for (const [key, v] of Object.entries(value)) {
    const child = path === '' ? key : `${path}.${key}`
    // apiVersion, kind and metadata belong to every object at the root and in embedded resources.
    if ((root || embedded) && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) {
      out[key] = v
      continue
    }
    const prop = properties?.[key]
    if (prop) out[key] = pruneAndDefault(prop, withDefault(prop, v), child, unknown)
    else if (additional) out[key] = pruneAndDefault(additional, withDefault(additional, v), child, unknown)
    else if (preserve || (!properties && !additional && schema.type === undefined)) out[key] = v
    else unknown.push(child)
  }
  if (properties) {
    for (const [key, prop] of Object.entries(properties)) {
      if (out[key] === undefined && prop.default !== undefined) out[key] = pruneAndDefault(prop, clone(prop.default), path === '' ? key : `${path}.${key}`, [])
    }
  }
  return out
}

/** A null in a non-nullable field with a default becomes the default. */
function withDefault(schema: Json, v: unknown): unknown {
  if (v === null && schema.nullable !== true && schema.default !== undefined) return clone(schema.default)
  return v
}

function typeOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number'
  if (typeof v === 'boolean') return 'boolean'
  return typeof v === 'string' ? 'string' : 'object'
}

function quote(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : typeof v === 'object' ? JSON.stringify(v) : String(v)
}

function invalid(field: string, value: unknown, detail: string): Cause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${quote(value)}: ${detail}`, field }
}

const FORMATS: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
  ipv4: /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/,
  email: /^[^@\s]+@[^@\s]+\.[^@\s]+$/,
  byte: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
}

/** The field errors of `value` against `schema` (the object's fields from `path`). */
export function validateSchema(schema: Json, value: unknown, path: string, causes: Cause[] = []): Cause[] {
  const at = path === '' ? '<root>' : path
  if (value === null) {
    if (schema.nullable !== true && schema.type !== undefined) causes.push(invalid(at, 'null', `${at} in body must be of type ${String(schema.type)}: "null"`))
    return causes
  }
  const actual = typeOf(value)
  if (schema['x-kubernetes-int-or-string'] === true) {
    if (actual !== 'integer' && actual !== 'string') causes.push(invalid(at, actual, `${at} in body must be of type integer,string: ${JSON.stringify(actual)}`))
  } else if (typeof schema.type === 'string') {
    const ok = schema.type === actual || (schema.type === 'number' && actual === 'integer')
    if (!ok) {
      causes.push(invalid(at, actual, `${at} in body must be of type ${schema.type}: ${JSON.stringify(actual)}`))
      return causes
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${quote(value)}: supported values: ${schema.enum.map(quote).join(', ')}`, field: at })
  }
  if (typeof value === 'number') {
    if (typeof schema.maximum === 'number') {
      if (schema.exclusiveMaximum === true ? value >= schema.maximum : value > schema.maximum) {
        causes.push(invalid(at, value, `${at} in body should be less than ${schema.exclusiveMaximum === true ? '' : 'or equal to '}${schema.maximum}`))
      }
    }
    if (typeof schema.minimum === 'number') {
      if (schema.exclusiveMinimum === true ? value <= schema.minimum : value < schema.minimum) {
        causes.push(invalid(at, value, `${at} in body should be greater than ${schema.exclusiveMinimum === true ? '' : 'or equal to '}${schema.minimum}`))
      }
    }
    if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0 && !Number.isInteger(value / schema.multipleOf)) {
      causes.push(invalid(at, value, `${at} in body should be a multiple of ${schema.multipleOf}`))
    }
  }
  if (typeof value === 'string') {
    const length = [...value].length
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) {
      causes.push({ reason: 'FieldValueTooLong', message: `Too long: may not be more than ${schema.maxLength} bytes`, field: at })
    }
    if (typeof schema.minLength === 'number' && length < schema.minLength) {
      causes.push(invalid(at, value, `${at} in body should be at least ${schema.minLength} chars long`))
    }
    if (typeof schema.pattern === 'string') {
      let re: RegExp | undefined
      try {
        re = new RegExp(schema.pattern, 'u')
      } catch {
        re = undefined
      }
      if (re && !re.test(value)) causes.push(invalid(at, value, `${at} in body should match '${schema.pattern}'`))
    }
    if (typeof schema.format === 'string' && FORMATS[schema.format] && !FORMATS[schema.format]!.test(value)) {
      causes.push(invalid(at, value, `${at} in body must be of type ${schema.format}`))
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
      causes.push({ reason: 'FieldValueTooMany', message: `Too many: ${value.length}: must have at most ${schema.maxItems} items`, field: at })
    }
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
      causes.push(invalid(at, value.length, `${at} in body should have at least ${schema.minItems} items`))
    }
    if (isObj(schema.items)) value.forEach((v, i) => validateSchema(schema.items as Json, v, `${path}[${i}]`, causes))
    causes.push(...listTypeCauses(schema, value, at))
  }
  if (isObj(value)) {
    const properties = isObj(schema.properties) ? (schema.properties as Record<string, Json>) : {}
    for (const req of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
      if (value[req] === undefined) causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: path === '' ? req : `${path}.${req}` })
    }
    for (const [key, v] of Object.entries(value)) {
      const child = path === '' ? key : `${path}.${key}`
      if (path === '' && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue
      const prop = properties[key] ?? (isObj(schema.additionalProperties) ? schema.additionalProperties : undefined)
      if (prop) validateSchema(prop, v, child, causes)
    }
  }
  return causes
}

/** Go's `%#v` of a decoded JSON scalar or `map[string]interface{}`, as field.Duplicate prints them. */
function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return '<nil>'
  if (typeof v === 'string') return JSON.stringify(v)
  if (isObj(v)) {
    const entries = Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goSyntax(v[k])}`)
    return `map[string]interface {}{${entries.join(', ')}}`
  }
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`
  return String(v)
}

/** field.Duplicate's message body: scalars plainly, strings quoted, maps as Go syntax. */
function duplicateValue(v: unknown): string {
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : goSyntax(v)
}

/**
 * The uniqueness of `x-kubernetes-list-type: set` items and of `map` items' keys, as the
 * reference's listtype validation reports it: one Duplicate cause per repeated value, at its
 * second appearance.
 */
function listTypeCauses(schema: Json, items: unknown[], at: string): Cause[] {
  const listType = schema['x-kubernetes-list-type']
  if (listType !== 'set' && listType !== 'map') return []
  let keys: unknown[] = items
  if (listType === 'map') {
    const bad = items.findIndex((x) => x !== null && !isObj(x))
    if (bad >= 0) return [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(items[bad])}: must be an object for an array of list-type map`, field: `${at}[${bad}]` }]
    const keyFields = Array.isArray(schema['x-kubernetes-list-map-keys']) ? (schema['x-kubernetes-list-map-keys'] as string[]) : []
    keys = items.map((x) => {
      const key: Json = {}
      for (const f of keyFields) if (isObj(x) && x[f] !== undefined) key[f] = x[f]
      return key
    })
  }
  const seen = new Map<string, number>()
  const causes: Cause[] = []
  keys.forEach((k, i) => {
    const id = JSON.stringify(k, (_key, value: unknown) => (isObj(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))) : value))
    const times = seen.get(id) ?? 0
    seen.set(id, times + 1)
    if (times === 1) causes.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${duplicateValue(k)}`, field: `${at}[${i}]` })
  })
  return causes
}
