/**
 * Decoding a built-in object as the reference's typed JSON decoding sees it, from the OpenAPI
 * definitions: fields the Go types do not have are unknown (reported as `unknown field
 * "spec.foo"`, with `[i]` for list items, and dropped), and the first value of the wrong JSON
 * type is the decoder's error, in encoding/json's words:
 * `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`
 * (the struct holding the field, then the JSON field names from the root, list indexes left out).
 * The types with their own decoders (IntOrString, Quantity, Time, MicroTime, base64 bytes) fail
 * with their own messages.
 */
type Json = Record<string, unknown>

interface TypedDecodeResult {
  /** The object with the unknown fields dropped. */
  value: unknown
  /** Unknown field paths, in the order met. */
  unknown: string[]
  /** The first decoding error (then the object cannot be handled). */
  error?: string
}

const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString'
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity'
const TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time'
const MICRO_TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime'

export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** encoding/json's name of a JSON value's kind. */
function jsonKind(v: unknown): string {
  if (typeof v === 'string') return 'string'
  if (typeof v === 'number') return 'number'
  if (typeof v === 'boolean') return 'bool'
  if (Array.isArray(v)) return 'array'
  return 'object'
}

/** The Go type of a value the unstructured converter holds (integers are int64, as PreserveInts decodes them). */
function unstructuredKind(v: unknown): string {
  if (typeof v === 'string') return 'string'
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64'
  if (typeof v === 'boolean') return 'bool'
  if (Array.isArray(v)) return '[]interface {}'
  return 'map[string]interface {}'
}

/** reflect.Kind's name of such a value. */
function reflectKind(v: unknown): string {
  if (Array.isArray(v)) return 'slice'
  if (isObj(v)) return 'map'
  return unstructuredKind(v)
}

/** The Go type name of a definition: `io.k8s.api.apps.v1.DeploymentSpec` is `v1.DeploymentSpec`. */
function goTypeOfDefinition(name: string): string {
  const parts = name.split('.')
  return `${parts[parts.length - 2] ?? ''}.${parts[parts.length - 1] ?? ''}`
}

function shortName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1)
}

class DecodeError extends Error {}

/**
 * Where a value is, for the messages of an unknown field or a type error: the strict decoder's
 * path (`spec.containers[0].image`), and encoding/json's context (the struct holding the field,
 * and the JSON field names from the root, list indexes left out). Spelled only when a message
 * needs them: most objects decode without any, and building them for every field cost more
 * than the decoding.
 */
class Context {
  private pathText: string | undefined
  private fieldNames: string[] | undefined

  private constructor(
    private readonly parent: Context | undefined,
    /** A struct field (`field`, counted in `fields`), a list index or a map key (`index`, `key`). */
    private readonly step: 'field' | 'index' | 'key' | 'root',
    private readonly name: string,
    readonly struct: string,
  ) {}

  static root(): Context {
    return new Context(undefined, 'root', '', '')
  }

  /** The field `key` of a struct named `struct`. */
  field(key: string, struct: string): Context {
    return new Context(this, 'field', key, struct)
  }

  /** The item `i` of a list. */
  index(i: number): Context {
    return new Context(this, 'index', String(i), this.struct)
  }

  /** The entry `key` of a map. */
  key(key: string): Context {
    return new Context(this, 'key', key, this.struct)
  }

  get path(): string {
    if (this.pathText === undefined) {
      const parent = this.parent?.path ?? ''
      switch (this.step) {
        case 'root':
          this.pathText = ''
          break
        case 'field':
          this.pathText = parent === '' ? this.name : `${parent}.${this.name}`
          break
        case 'index':
          this.pathText = `${parent}[${this.name}]`
          break
        case 'key':
          this.pathText = `${parent}.${this.name}`
          break
      }
    }
    return this.pathText
  }

  get fields(): string[] {
    if (this.fieldNames === undefined) {
      const parent = this.parent?.fields ?? []
      this.fieldNames = this.step === 'field' ? [...parent, this.name] : parent
    }
    return this.fieldNames
  }
}

const DEFINITIONS = '#/definitions/'

/** The definition a `$ref` names. */
function refName(ref: string): string {
  return ref.startsWith(DEFINITIONS) ? ref.slice(DEFINITIONS.length) : ref.replace(DEFINITIONS, '')
}

const SUFFIXES = new Set(['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E'])

/** resource.ParseQuantity's errors, for the text of a quantity (undefined when it parses). */
export function quantityError(text: string): string | undefined {
  const m = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/.exec(text)
  if (!m) return QUANTITY_FORMAT_ERROR
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(m[1]!)) return 'unable to parse numeric part of quantity'
  const suffix = m[2]!
  if (!SUFFIXES.has(suffix) && !/^[eE][-+]?\d+$/.test(suffix)) return "unable to parse quantity's suffix"
  return undefined
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

export class TypedDecoder {
  private readonly roots = new Map<string, string>()

  /**
   * `json`: the request body decoder's words; `unstructured`: the unstructured converter's,
   * which decodes the result of a strategic merge patch.
   */
  constructor(
    private readonly definitions: Readonly<Record<string, Json>>,
    private readonly mode: 'json' | 'unstructured' = 'json',
  ) {
    for (const [name, def] of Object.entries(definitions)) {
      const gvks = def['x-kubernetes-group-version-kind']
      if (!Array.isArray(gvks)) continue
      for (const gvk of gvks as Json[]) this.roots.set(`${String(gvk.group)}/${String(gvk.version)}/${String(gvk.kind)}`, name)
    }
  }

  /** The definition of a kind, when the document has it. */
  rootOf(group: string, version: string, kind: string): string | undefined {
    return this.roots.get(`${group}/${version}/${kind}`)
  }

  decode(definition: string, value: unknown): TypedDecodeResult {
    const unknown: string[] = []
    try {
      const out = this.ref(definition, value, Context.root(), unknown)
      return { value: out, unknown }
    } catch (err) {
      if (err instanceof DecodeError) return { value, unknown, error: err.message }
      throw err
    }
  }

  /**
   * The error for `value` where `goType` was expected. encoding/json names the JSON kind (and
   * the literal of a number that does not fit an integer); the unstructured converter (the
   * strategic merge patch path) names Go types. `custom`: inside a type's own UnmarshalJSON,
   * which the converter calls without the field context.
   */
  private typeError(value: unknown, goType: string, ctx: Context, custom = false): DecodeError {
    if (this.mode === 'unstructured') {
      if (custom) return new DecodeError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type ${goType}`)
      const kind = unstructuredKind(value)
      if (goType.startsWith('[]') && goType !== '[]uint8') return new DecodeError(`cannot restore slice from ${reflectKind(value)}`)
      if (goType.startsWith('map[')) return new DecodeError(`cannot restore map from ${reflectKind(value)}`)
      if (goType.includes('.')) return new DecodeError(`cannot restore struct from: ${reflectKind(value)}`)
      return new DecodeError(`cannot convert ${kind} to ${goType}`)
    }
    const kind = typeof value === 'number' && /^int/.test(goType) ? `number ${String(value)}` : jsonKind(value)
    if (ctx.struct !== '' || ctx.fields.length > 0) {
      return new DecodeError(`json: cannot unmarshal ${kind} into Go struct field ${ctx.struct}.${ctx.fields.join('.')} of type ${goType}`)
    }
    return new DecodeError(`json: cannot unmarshal ${kind} into Go value of type ${goType}`)
  }

  private goType(schema: Json): string {
    if (typeof schema.$ref === 'string') {
      const name = refName(schema.$ref)
      if (name === INT_OR_STRING) return 'intstr.IntOrString'
      if (name === QUANTITY) return 'resource.Quantity'
      return goTypeOfDefinition(name)
    }
    switch (schema.type) {
      case 'string':
        return schema.format === 'byte' ? '[]uint8' : 'string'
      case 'integer':
        return schema.format === 'int64' ? 'int64' : 'int32'
      case 'number':
        return 'float64'
      case 'boolean':
        return 'bool'
      case 'array':
        return `[]${isObj(schema.items) ? this.goType(schema.items) : 'interface {}'}`
      case 'object':
        return isObj(schema.additionalProperties) ? `map[string]${this.goType(schema.additionalProperties)}` : 'map[string]interface {}'
      default:
        return 'interface {}'
    }
  }

  private ref(name: string, value: unknown, ctx: Context, unknown: string[]): unknown {
    if (value === null) return value
    const def = this.definitions[name]
    if (!def) return value
    switch (name) {
      case INT_OR_STRING:
        if (typeof value === 'string') return value
        if (typeof value === 'number') return this.integer(value, 'int32', ctx, true)
        throw this.typeError(value, 'int32', ctx, true)
      case QUANTITY: {
        const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value)
        const err = quantityError(text.trim())
        if (err) throw new DecodeError(err)
        return value
      }
      case TIME:
      case MICRO_TIME:
        if (typeof value !== 'string') throw this.typeError(value, 'string', ctx, true)
        if (!RFC3339.test(value)) {
          const layout = name === TIME ? '2006-01-02T15:04:05Z07:00' : '2006-01-02T15:04:05.000000Z07:00'
          throw new DecodeError(`parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}: cannot parse ${JSON.stringify(value)} as "2006"`)
        }
        return value
      default:
        break
    }
    if (isObj(def.properties)) return this.struct(name, def, value, ctx, unknown)
    return this.schema(def, value, ctx, unknown, goTypeOfDefinition(name))
  }

  private struct(name: string, def: Json, value: unknown, ctx: Context, unknown: string[]): unknown {
    if (!isObj(value)) throw this.typeError(value, goTypeOfDefinition(name), ctx)
    const properties = def.properties as Record<string, Json>
    const out: Json = {}
    let struct: string | undefined
    for (const [key, v] of Object.entries(value)) {
      const prop = properties[key]
      if (!prop) {
        unknown.push(ctx.path === '' ? key : `${ctx.path}.${key}`)
        continue
      }
      // A null leaves the Go field unset, and unset optional fields are omitted when encoded.
      if (v === null) continue
      out[key] = this.schema(prop, v, ctx.field(key, (struct ??= shortName(name))), unknown)
    }
    return out
  }

  private integer(value: number, goType: string, ctx: Context, custom = false): number {
    const bits = goType === 'int64' ? 64 : 32
    const limit = 2 ** (bits - 1)
    if (!Number.isInteger(value) || value < -limit || value >= limit) throw this.typeError(value, goType, ctx, custom)
    return value
  }

  private schema(schema: Json, value: unknown, ctx: Context, unknown: string[], goTypeName?: string): unknown {
    if (value === null) return value
    if (typeof schema.$ref === 'string') return this.ref(refName(schema.$ref), value, ctx, unknown)
    // The Go type is named in errors only (and decides an integer's width): found when needed.
    switch (schema.type) {
      case 'string':
        if (typeof value !== 'string') throw this.typeError(value, (goTypeName ?? this.goType(schema)), ctx)
        if (schema.format === 'byte') {
          const bad = base64Error(value)
          if (bad) throw new DecodeError(bad)
        }
        return value
      case 'integer':
        if (typeof value !== 'number') throw this.typeError(value, (goTypeName ?? this.goType(schema)), ctx)
        return this.integer(value, (goTypeName ?? this.goType(schema)), ctx)
      case 'number':
        if (typeof value !== 'number') throw this.typeError(value, (goTypeName ?? this.goType(schema)), ctx)
        return value
      case 'boolean':
        if (typeof value !== 'boolean') throw this.typeError(value, (goTypeName ?? this.goType(schema)), ctx)
        return value
      case 'array': {
        if (!Array.isArray(value)) throw this.typeError(value, (goTypeName ?? this.goType(schema)), ctx)
        const items = isObj(schema.items) ? schema.items : undefined
        return value.map((v, i) => (items ? this.schema(items, v, ctx.index(i), unknown) : v))
      }
      case 'object': {
        if (isObj(schema.properties)) return this.struct((goTypeName ?? this.goType(schema)), schema, value, ctx, unknown)
        if (!isObj(schema.additionalProperties)) return value
        if (!isObj(value)) throw this.typeError(value, (goTypeName ?? this.goType(schema)), ctx)
        const additional = schema.additionalProperties
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.schema(additional, v, ctx.key(k), unknown)]))
      }
      default:
        return value
    }
  }
}

/** encoding/base64's error for a []byte field's text, or undefined. */
function base64Error(text: string): string | undefined {
  const valid = /^[A-Za-z0-9+/]*$/
  const body = text.replace(/=+$/, '')
  for (let i = 0; i < body.length; i++) {
    if (!valid.test(body[i]!)) return `illegal base64 data at input byte ${i}`
  }
  const padding = text.length - body.length
  if (padding > 2 || (text.length % 4 !== 0 && padding > 0) || body.length % 4 === 1) {
    return `illegal base64 data at input byte ${Math.max(0, body.length - (body.length % 4))}`
  }
  if (padding === 0 && body.length % 4 !== 0) return `illegal base64 data at input byte ${body.length - (body.length % 4)}`
  return undefined
}
