/**
 * A JSON Schema (draft-04) validator for the keywords the SARIF 2.1.0 schema uses: $ref (to
 * `#/definitions/...`), type, enum, properties, additionalProperties, required, items,
 * minItems, uniqueItems, minimum, maximum, pattern, anyOf, oneOf, and the formats uri,
 * uri-reference and date-time. No JSON Schema validator is among the project's packages; a
 * keyword the schema holds that this file does not know fails the check instead of passing
 * silently.
 */
import { isDeepStrictEqual } from 'node:util'

type Schema = Record<string, unknown>

const KNOWN = new Set(['$schema', 'id', 'title', 'description', 'default', 'definitions', '$ref', 'type', 'enum', 'properties', 'additionalProperties', 'required', 'items', 'minItems', 'uniqueItems', 'minimum', 'maximum', 'pattern', 'anyOf', 'oneOf', 'format'])

/** The problems of `value` against `schema` (empty when it is valid), each with its JSON path. */
export function validateJsonSchema(root: Schema, value: unknown): string[] {
  const problems: string[] = []
  check(root, root, value, '$', problems)
  return problems
}

function typeOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number'
  return typeof v
}

function matchesType(v: unknown, type: string): boolean {
  const t = typeOf(v)
  return t === type || (type === 'number' && t === 'integer')
}

function check(root: Schema, schema: Schema, v: unknown, path: string, out: string[]): void {
  for (const key of Object.keys(schema)) if (!KNOWN.has(key)) out.push(`${path}: the schema uses "${key}", which this validator does not know`)
  if (typeof schema.$ref === 'string') {
    const m = /^#\/definitions\/(.+)$/.exec(schema.$ref)
    if (!m) {
      out.push(`${path}: unsupported $ref ${schema.$ref}`)
      return
    }
    check(root, (root.definitions as Record<string, Schema>)[m[1]!]!, v, path, out)
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string]
    if (!types.some((t) => matchesType(v, t))) {
      out.push(`${path}: ${typeOf(v)} is not ${types.join(' or ')}`)
      return
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => isDeepStrictEqual(e, v))) out.push(`${path}: ${JSON.stringify(v)} is not one of ${JSON.stringify(schema.enum)}`)
  if (typeof v === 'number') {
    if (typeof schema.minimum === 'number' && v < schema.minimum) out.push(`${path}: ${v} < ${schema.minimum}`)
    if (typeof schema.maximum === 'number' && v > schema.maximum) out.push(`${path}: ${v} > ${schema.maximum}`)
  }
  if (typeof v === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(v)) out.push(`${path}: ${JSON.stringify(v)} does not match ${schema.pattern}`)
    if (schema.format === 'uri' && !/^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$/.test(v)) out.push(`${path}: ${JSON.stringify(v)} is not a URI`)
    if (schema.format === 'uri-reference' && /[\s"<>\\^`{|}]/.test(v)) out.push(`${path}: ${JSON.stringify(v)} is not a URI reference`)
    if (schema.format === 'date-time' && Number.isNaN(Date.parse(v))) out.push(`${path}: ${JSON.stringify(v)} is not a date-time`)
  }
  if (Array.isArray(v)) {
    if (typeof schema.minItems === 'number' && v.length < schema.minItems) out.push(`${path}: fewer than ${schema.minItems} items`)
    if (schema.uniqueItems === true && v.some((a, i) => v.some((b, j) => j > i && isDeepStrictEqual(a, b)))) out.push(`${path}: items are not unique`)
    if (schema.items && typeof schema.items === 'object') v.forEach((item, i) => check(root, schema.items as Schema, item, `${path}[${i}]`, out))
  }
  if (typeOf(v) === 'object') {
    const obj = v as Record<string, unknown>
    const props = (schema.properties ?? {}) as Record<string, Schema>
    for (const name of (schema.required as string[] | undefined) ?? []) if (!(name in obj)) out.push(`${path}: "${name}" is required`)
    for (const [name, item] of Object.entries(obj)) {
      if (props[name]) check(root, props[name], item, `${path}.${name}`, out)
      else if (schema.additionalProperties === false) out.push(`${path}: "${name}" is not allowed`)
      else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') check(root, schema.additionalProperties as Schema, item, `${path}.${name}`, out)
    }
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as Schema[] | undefined
    if (!options) continue
    const passing = options.filter((o) => {
      const sub: string[] = []
      check(root, o, v, path, sub)
      return sub.length === 0
    }).length
    if (key === 'anyOf' ? passing === 0 : passing !== 1) out.push(`${path}: ${passing} of the ${key} schemas match`)
  }
}
