/**
 * A custom resource against its CRD version's structural schema (openAPIV3Schema), as the
 * reference's apiextensions-apiserver treats it: unknown fields are pruned and reported (unless
 * `x-kubernetes-preserve-unknown-fields`), `default`s fill missing fields, and validation gives
 * the field errors of a 422 Invalid (`openapi-validate.ts`, `embedded.ts`, `listtype.ts`).
 */
import type { Cause } from '../status-errors.js'
import { validateEmbedded } from './embedded.js'
import { validateListSetsAndMaps } from './listtype.js'
import { validateOpenAPI } from './openapi-validate.js'

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

/**
 * A custom resource's field errors in the reference's order (customResourceStrategy.Validate):
 * the OpenAPI schema's, then the embedded resources' (objectmeta), then the list types'.
 * With `old` (an update), unchanged values are ratcheted and the list types are checked only
 * when the old object passed them.
 */
export function validateSchema(schema: Json, value: unknown, path = '', old?: unknown): Cause[] {
  const causes = validateOpenAPI(schema, value, path, old === undefined ? undefined : { value: old })
  causes.push(...validateEmbedded(path, value, schema))
  if (isObj(value) && (old === undefined || !isObj(old) || validateListSetsAndMaps(path, schema, old).length === 0)) {
    causes.push(...validateListSetsAndMaps(path, schema, value))
  }
  return causes
}
