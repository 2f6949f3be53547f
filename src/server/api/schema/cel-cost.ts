/**
 * What the cost estimates of a CRD's rules know of the data: the reference's SchemaDeclType
 * (apiserver/pkg/cel/common/schemas.go, with apiextensions' WithTypeAndObjectMeta) reduced to
 * kinds and sizes. maxLength, maxItems and maxProperties bound strings, lists and maps; without
 * them the request size limit (3 MiB) does, divided by the smallest serialized element.
 */
import { type CelDeclType, MAX_REQUEST_SIZE_BYTES } from '../../../core/cel/index.js'
import { escapeProperty } from './cel-escape.js'

type Json = Record<string, unknown>

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** apiserver/pkg/cel/limits.go. */
const MAX_DURATION_SIZE_JSON = 32n
const MAX_DATETIME_SIZE_JSON = 32n
const MIN_DURATION_SIZE_JSON = 3n
const JSON_DATE_SIZE = 12n
const MIN_DATETIME_SIZE_JSON = 21n
const MIN_STRING_SIZE = 2n
const MIN_BOOL_SIZE = 4n
const MIN_NUMBER_SIZE = 1n
/** DNS1123SubdomainMaxLength: metadata.name's bound (generateName's is one less, for the generated suffix). */
const NAME_MAX_LENGTH = 253n

const nonNegative = (v: unknown): bigint => (typeof v === 'number' && v > 0 ? BigInt(Math.floor(v)) : 0n)
const has = (v: unknown): boolean => typeof v === 'number'

function scalar(kind: CelDeclType['kind'], minSerializedSize: bigint, maxElements = 0n): CelDeclType {
  return { kind, maxElements, minSerializedSize }
}

/** model.WithTypeAndObjectMeta: kind, apiVersion, and metadata with only name (at most 253) and generateName (252). */
function withTypeAndObjectMeta(schema: Json): Json {
  const properties = isObj(schema.properties) ? schema.properties : {}
  const t = (v: unknown) => (isObj(v) ? v.type : undefined)
  const metadata = isObj(properties.metadata) ? properties.metadata : {}
  const metaProps = isObj(metadata.properties) ? metadata.properties : undefined
  if (isObj(schema.properties) && t(properties.kind) === 'string' && t(properties.apiVersion) === 'string' && metadata.type === 'object' && metaProps && t(metaProps.name) === 'string' && t(metaProps.generateName) === 'string') return schema
  const capped = (existing: unknown, max: bigint) => {
    const own = isObj(existing) && typeof existing.maxLength === 'number' ? BigInt(Math.floor(existing.maxLength)) : undefined
    return { type: 'string', maxLength: Number(own !== undefined && own < max ? own : max) }
  }
  return {
    ...schema,
    properties: {
      ...properties,
      kind: { type: 'string' },
      apiVersion: { type: 'string' },
      metadata: { type: 'object', properties: { name: capped(metaProps?.name, NAME_MAX_LENGTH), generateName: capped(metaProps?.generateName, NAME_MAX_LENGTH - 1n) } },
    },
  }
}

function stringLengthPerRequest(): bigint {
  return MAX_REQUEST_SIZE_BYTES - 2n
}

/** SchemaDeclType: the declared type of a schema node, or undefined where CEL does not see it. */
export function schemaDeclType(schema: Json, isResourceRoot = false): CelDeclType | undefined {
  if (schema['x-kubernetes-int-or-string'] === true) {
    return scalar('dyn', 1n, has(schema.maxLength) ? nonNegative(schema.maxLength) * 4n : stringLengthPerRequest())
  }
  const s = isResourceRoot ? withTypeAndObjectMeta(schema) : schema
  switch (s.type) {
    case 'array': {
      if (!isObj(s.items)) return undefined
      const items = schemaDeclType(s.items, s.items['x-kubernetes-embedded-resource'] === true)
      if (!items) return undefined
      const maxItems = has(s.maxItems) ? nonNegative(s.maxItems) : (MAX_REQUEST_SIZE_BYTES - 2n) / (items.minSerializedSize + 1n)
      return { kind: 'list', elem: items, maxElements: maxItems, minSerializedSize: 2n }
    }
    case 'object': {
      if (isObj(s.additionalProperties)) {
        const values = schemaDeclType(s.additionalProperties, s.additionalProperties['x-kubernetes-embedded-resource'] === true)
        if (!values) return undefined
        const maxProperties = has(s.maxProperties) ? nonNegative(s.maxProperties) : (MAX_REQUEST_SIZE_BYTES - 2n) / (values.minSerializedSize + 6n)
        return { kind: 'map', key: scalar('string', MIN_STRING_SIZE), elem: values, maxElements: maxProperties, minSerializedSize: 2n }
      }
      const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [])
      const fields: Record<string, CelDeclType> = {}
      let minSerializedSize = 2n
      for (const [name, prop] of Object.entries(isObj(s.properties) ? s.properties : {})) {
        if (!isObj(prop)) continue
        const fieldType = schemaDeclType(prop, prop['x-kubernetes-embedded-resource'] === true)
        if (!fieldType) continue
        const escaped = escapeProperty(name)
        if (escaped !== undefined) fields[escaped] = fieldType
        if (required.has(name) && (prop.default === undefined || prop.default === null)) minSerializedSize += BigInt(name.length) + fieldType.minSerializedSize + 4n
      }
      return { kind: 'object', fields, maxElements: 0n, minSerializedSize }
    }
    case 'string':
      switch (s.format) {
        case 'byte':
          return scalar('bytes', MIN_STRING_SIZE, has(s.maxLength) ? nonNegative(s.maxLength) : stringLengthPerRequest())
        case 'duration':
          return scalar('duration', MIN_DURATION_SIZE_JSON, MAX_DURATION_SIZE_JSON)
        case 'date':
          return scalar('timestamp', JSON_DATE_SIZE, JSON_DATE_SIZE)
        case 'date-time':
          return scalar('timestamp', MIN_DATETIME_SIZE_JSON, MAX_DATETIME_SIZE_JSON)
      }
      if (has(s.maxLength)) return scalar('string', MIN_STRING_SIZE, nonNegative(s.maxLength) * 4n)
      if (Array.isArray(s.enum) && s.enum.length > 0) {
        const longest = s.enum.reduce<bigint>((m, v) => (typeof v === 'string' && BigInt(Buffer.byteLength(v)) > m ? BigInt(Buffer.byteLength(v)) : m), 0n)
        return scalar('string', MIN_STRING_SIZE, longest)
      }
      return scalar('string', MIN_STRING_SIZE, stringLengthPerRequest())
    case 'boolean':
      return scalar('bool', MIN_BOOL_SIZE)
    case 'number':
      return scalar('double', MIN_NUMBER_SIZE)
    case 'integer':
      return scalar('int', MIN_NUMBER_SIZE)
  }
  return undefined
}

/** maxCardinality: how many times data of this smallest size fits in a request (one comma between each). */
export function maxCardinality(minSerializedSize: bigint): bigint {
  return MAX_REQUEST_SIZE_BYTES / (minSerializedSize + 1n)
}
