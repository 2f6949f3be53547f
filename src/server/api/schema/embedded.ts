/**
 * The objects a custom resource embeds (`x-kubernetes-embedded-resource: true`), after the
 * reference's `pkg/apiserver/schema/objectmeta/validation.go`: apiVersion and kind required,
 * strings, a group/version and a kind of DNS-1035 form (mixed case), and their metadata
 * validated as an object's (names as path segments, `fakename` standing in for no name).
 */
import type { Cause } from '../status-errors.js'
import { Path } from '../validation/field/index.js'
import { pathSegmentName } from '../validation/names.js'
import { validateObjectMeta } from '../validation/objectmeta.js'
import { isDNS1035Label } from '../validation/strings.js'
import { fieldValue } from './go-value.js'

type Json = Record<string, unknown>

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function invalid(field: string, value: unknown, detail: string): Cause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${fieldValue(value)}: ${detail}`, field }
}

/** schema.ParseGroupVersion's error, if any. */
function groupVersionError(gv: string): string | undefined {
  if (gv === '/' || gv.split('/').length <= 2) return undefined
  return `unexpected GroupVersion string: ${gv}`
}

/** The metadata of an embedded object: ValidateObjectMeta with path-segment names, `fakename` standing in for none. */
function validateEmbeddedObjectMeta(meta: Json, path: string): Cause[] {
  const m = typeof meta.name === 'string' && meta.name !== '' ? meta : { ...meta, name: 'fakename' }
  const namespaced = typeof m.namespace === 'string' && m.namespace !== ''
  return validateObjectMeta(m, namespaced, pathSegmentName, Path.of(path)).map((e) => e.toCause())
}

function validateEmbeddedResource(path: string, x: Json): Cause[] {
  const child = (k: string): string => (path === '' ? k : `${path}.${k}`)
  const causes: Cause[] = []
  if (!Object.hasOwn(x, 'apiVersion')) causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: child('apiVersion') })
  if (!Object.hasOwn(x, 'kind')) causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: child('kind') })
  for (const [k, v] of Object.entries(x)) {
    if (k === 'apiVersion') {
      if (typeof v !== 'string') causes.push(invalid(child(k), v, 'must be a string'))
      else if (v === '') causes.push(invalid(child(k), v, 'must not be empty'))
      else {
        const err = groupVersionError(v)
        if (err) causes.push(invalid(child(k), v, err))
      }
    } else if (k === 'kind') {
      if (typeof v !== 'string') causes.push(invalid(child(k), v, 'must be a string'))
      else if (v === '') causes.push(invalid(child(k), v, 'must not be empty'))
      else {
        const errs = isDNS1035Label(v.toLowerCase())
        if (errs.length > 0) causes.push(invalid(child(k), v, `may have mixed case, but should otherwise match: ${errs.join(',')}`))
      }
    } else if (k === 'metadata') {
      if (v !== null && !isObj(v)) causes.push(invalid(child(k), v, 'invalid metadata'))
      else if (isObj(v)) causes.push(...validateEmbeddedObjectMeta(v, child(k)))
    }
  }
  return causes
}

/** objectmeta.Validate below the root: every embedded resource the schema marks. */
export function validateEmbedded(path: string, x: unknown, schema: Json | undefined): Cause[] {
  if (!schema) return []
  const causes: Cause[] = []
  if (isObj(x)) {
    if (schema['x-kubernetes-embedded-resource'] === true) causes.push(...validateEmbeddedResource(path, x))
    const properties = isObj(schema.properties) ? (schema.properties as Record<string, Json>) : {}
    for (const [k, v] of Object.entries(x)) {
      if (isObj(properties[k])) causes.push(...validateEmbedded(path === '' ? k : `${path}.${k}`, v, properties[k]))
      else if (isObj(schema.additionalProperties)) causes.push(...validateEmbedded(`${path}[${k}]`, v, schema.additionalProperties))
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => causes.push(...validateEmbedded(`${path}[${i}]`, v, isObj(schema.items) ? schema.items : undefined)))
  }
  return causes
}
