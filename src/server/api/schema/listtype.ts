/**
 * The uniqueness of `x-kubernetes-list-type: set` items and of `map` items' keys, after the
 * reference's `pkg/apiserver/schema/listtype/validation.go`: one Duplicate per repeated value
 * at its second appearance (a map item's key shown as the object of its key fields), and an
 * Invalid for a map list's item that is not an object.
 */
import type { Cause } from '../status-errors.js'
import { fieldValue, goJSON } from './go-value.js'

type Json = Record<string, unknown>

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function duplicate(field: string, value: unknown): Cause {
  return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${fieldValue(value)}`, field }
}

/** Indexes of the second appearance of each repeated value (compounds compared as JSON). */
function nonUnique(values: unknown[]): number[] {
  const seen = new Map<string, number>()
  const out: number[] = []
  values.forEach((v, i) => {
    const id = v === UNSPECIFIED ? '\u0000unspecified' : isObj(v) || Array.isArray(v) ? `c${goJSON(v)}` : `s${typeof v}:${String(v)}`
    const times = seen.get(id) ?? 0
    seen.set(id, times + 1)
    if (times === 1) out.push(i)
  })
  return out
}

const UNSPECIFIED = Symbol('unspecified key')

function validateArray(path: string, schema: Json, items: unknown[]): Cause[] {
  const causes: Cause[] = []
  const listType = schema['x-kubernetes-list-type']
  if (listType === 'set') {
    for (const i of nonUnique(items)) causes.push(duplicate(`${path}[${i}]`, items[i]))
  } else if (listType === 'map') {
    causes.push(...validateListMap(path, schema, items))
  }
  if (isObj(schema.items)) items.forEach((x, i) => causes.push(...validateValue(`${path}[${i}]`, schema.items as Json, x)))
  return causes
}

function validateListMap(path: string, schema: Json, items: unknown[]): Cause[] {
  const bad = items.findIndex((x) => x !== null && !isObj(x))
  if (bad >= 0) return [{ reason: 'FieldValueInvalid', message: `Invalid value: ${fieldValue(items[bad])}: must be an object for an array of list-type map`, field: `${path}[${bad}]` }]
  if (items.length <= 1) return []
  const keyFields = Array.isArray(schema['x-kubernetes-list-map-keys']) ? (schema['x-kubernetes-list-map-keys'] as string[]) : []
  if (keyFields.length === 1) {
    const field = keyFields[0]!
    const keys = items.map((x) => (isObj(x) && Object.hasOwn(x, field) ? x[field] : UNSPECIFIED))
    return nonUnique(keys).map((i) => duplicate(`${path}[${i}]`, keys[i] === UNSPECIFIED ? {} : { [field]: keys[i] }))
  }
  const keys = items.map((x) => {
    const key: Json = {}
    for (const f of keyFields) if (isObj(x) && Object.hasOwn(x, f)) key[f] = x[f]
    return key
  })
  return nonUnique(keys).map((i) => duplicate(`${path}[${i}]`, keys[i]))
}

function validateValue(path: string, schema: Json, value: unknown): Cause[] {
  if (Array.isArray(value)) return validateArray(path, schema, value)
  if (isObj(value)) return validateListSetsAndMaps(path, schema, value)
  return []
}

/** ValidateListSetsAndMaps of an object (the custom resource at the root). */
export function validateListSetsAndMaps(path: string, schema: Json, value: Json): Cause[] {
  const causes: Cause[] = []
  const properties = isObj(schema.properties) ? (schema.properties as Record<string, Json>) : undefined
  if (isObj(schema.additionalProperties)) {
    for (const [k, v] of Object.entries(value)) causes.push(...validateValue(`${path}[${k}]`, schema.additionalProperties, v))
  }
  if (properties) {
    for (const [k, v] of Object.entries(value)) {
      const sub = properties[k]
      if (isObj(sub)) causes.push(...validateValue(path === '' ? k : `${path}.${k}`, sub, v))
    }
  }
  return causes
}
