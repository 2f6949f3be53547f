/**
 * Conversion between the reference's JSON form of an object and the plain objects protobufjs
 * encodes and decodes, following the Go types' JSON and protobuf marshalling:
 * - metav1.Time {seconds, nanos} <-> RFC 3339 string in UTC, second precision; MicroTime keeps six
 *   fractional digits; a zero Time is an empty message <-> null
 * - metav1.Duration {duration (ns)} <-> Go duration string
 * - resource.Quantity {string} <-> string; intstr.IntOrString {type, intVal, strVal} <-> number | string
 * - runtime.RawExtension and metav1.FieldsV1 {raw} <-> the JSON value the raw bytes hold
 * - bytes <-> base64 strings; named slice types ({items}) <-> arrays
 * - embedded structs (`json:",inline"`) <-> their fields in the parent's JSON object
 * Presence: the encoder writes exactly what the JSON has (null counts as absent, except for times,
 * and a null list element or map value is Go's zero value). The decoder emits every field present
 * in the bytes, which is what the reference's JSON has for an object a Go client sent, except zero
 * scalars that Go's omitempty drops, and it prints null for an empty list Go has no omitempty for
 * (omitempty.ts has the rule and its tables). Fields of the JSON that have no proto field are
 * dropped, as Go's JSON decoding drops them. Key order is Go's: the proto declares fields in the Go
 * struct's order, map keys are sorted.
 */
import type { Field, MapField, Type } from 'protobufjs'
import type { K8sDescriptor } from './descriptor.js'
import { ProtobufError } from './errors.js'
import { NULL_WHEN_EMPTY, POINTER_STRINGS, VALUE_OMITEMPTY } from './omitempty.js'
import { formatDuration, formatMicroTime, formatTime, parseDuration, parseTimestamp } from './well-known.js'

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.'
const TIME = META + 'Time'
const MICRO_TIME = META + 'MicroTime'
const DURATION = META + 'Duration'
const FIELDS_V1 = META + 'FieldsV1'
const QUANTITY = 'k8s.io.apimachinery.pkg.api.resource.Quantity'
const INT_OR_STRING = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString'
const RAW_EXTENSION = 'k8s.io.apimachinery.pkg.runtime.RawExtension'

const INTEGER_TYPES = new Set(['int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32', 'fixed64', 'sfixed32', 'sfixed64'])

type Json = unknown
type JsonObject = Record<string, unknown>
type Plain = Record<string, unknown>

const ZERO_SCALAR: Record<string, unknown> = { string: '', bool: false, bytes: Buffer.alloc(0), double: 0, float: 0 }

/** Decodes a runtime.RawExtension's bytes that are not JSON (a nested protobuf envelope). */
export type RawDecoder = (raw: Uint8Array, where: string) => Json

const nameOf = (type: Type) => type.fullName.replace(/^\./, '')
const shortName = (type: Type) => type.name

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value)

/** int64 values arrive as Long objects when the `long` package is installed. */
function toNumber(value: unknown): number {
  if (typeof value === 'number') return value
  if (value && typeof (value as { toNumber?: () => number }).toNumber === 'function') return (value as { toNumber: () => number }).toNumber()
  return Number(value)
}

export class JsonForm {
  private readonly optional = new Map<string, Set<string>>()
  private readonly wrappers: Set<string>

  constructor(
    private readonly descriptor: K8sDescriptor,
    private readonly rawDecoder: RawDecoder,
  ) {
    for (const [message, fields] of Object.entries(descriptor.optional)) this.optional.set(message, new Set(fields))
    this.wrappers = new Set(descriptor.listWrappers)
  }

  // JSON -> protobufjs plain object

  toProto(type: Type, json: JsonObject, where: string): Plain {
    const out: Plain = {}
    const renames = this.descriptor.json[nameOf(type)] ?? {}
    for (const field of type.fieldsArray) {
      const jsonName = renames[field.name] ?? field.name
      if (jsonName === '') {
        // Go always writes an embedded struct, empty or not.
        out[field.name] = this.toProto(field.resolvedType as Type, json, where)
        continue
      }
      const value = json[jsonName]
      if (value === undefined) continue
      const path = `${where}.${jsonName}`
      const converted = this.fieldToProto(field, value, path)
      if (converted !== undefined) out[field.name] = converted
    }
    return out
  }

  private fieldToProto(field: Field, value: Json, where: string): unknown {
    if ((field as unknown as MapField).map) {
      if (value === null) return undefined
      if (!isObject(value)) throw new ProtobufError(`${where}: expected an object, got ${describe(value)}`)
      const out: Plain = {}
      for (const key of Object.keys(value).sort()) {
        out[key] = this.elementToProto(field, value[key], `${where}[${JSON.stringify(key)}]`)
      }
      return out
    }
    if (field.repeated) {
      if (value === null) return undefined
      if (!Array.isArray(value)) throw new ProtobufError(`${where}: expected an array, got ${describe(value)}`)
      return value.map((item, index) => this.elementToProto(field, item, `${where}[${index}]`))
    }
    if (value === null) {
      const typeName = field.resolvedType ? nameOf(field.resolvedType as Type) : ''
      // A zero metav1.Time marshals to an empty message and to JSON null.
      return typeName === TIME || typeName === MICRO_TIME ? {} : undefined
    }
    return this.valueToProto(field, value, where)
  }

  /** A list element or map value: Go decodes a JSON null there to the zero value. */
  private elementToProto(field: Field, value: Json, where: string): unknown {
    if (value !== null) return this.valueToProto(field, value, where)
    if (field.resolvedType) {
      // The zero struct is the empty message; a zero Quantity prints "0", a zero IntOrString is 0.
      const name = nameOf(field.resolvedType as Type)
      if (name === QUANTITY) return { string: '0' }
      if (name === INT_OR_STRING) return { type: 0, intVal: 0, strVal: '' }
      return {}
    }
    return ZERO_SCALAR[field.type] ?? 0
  }

  private valueToProto(field: Field, value: Json, where: string): unknown {
    const resolved = field.resolvedType
    if (resolved) return this.messageToProto(resolved as Type, value, where)
    return scalarToProto(field.type, value, where)
  }

  private messageToProto(type: Type, value: Json, where: string): Plain {
    const name = nameOf(type)
    switch (name) {
      case TIME:
      case MICRO_TIME:
        if (value === null) return {}
        if (typeof value !== 'string') throw new ProtobufError(`${where}: expected an RFC 3339 time string, got ${describe(value)}`)
        return timestampToProto(parseTimestamp(value, where))
      case DURATION:
        if (typeof value !== 'string') throw new ProtobufError(`${where}: expected a duration string, got ${describe(value)}`)
        return { duration: parseDuration(value, where) }
      case QUANTITY:
        if (typeof value === 'number') return { string: String(value) }
        if (typeof value !== 'string') throw new ProtobufError(`${where}: expected a quantity string, got ${describe(value)}`)
        return { string: value }
      case INT_OR_STRING:
        if (typeof value === 'number') {
          if (!Number.isInteger(value)) throw new ProtobufError(`${where}: expected an integer or a string, got ${value}`)
          return { type: 0, intVal: value, strVal: '' }
        }
        if (typeof value !== 'string') throw new ProtobufError(`${where}: expected an integer or a string, got ${describe(value)}`)
        return { type: 1, intVal: 0, strVal: value }
      case RAW_EXTENSION:
      case FIELDS_V1:
        // The bytes field is `raw` in RawExtension but `Raw` in FieldsV1.
        return value === null ? {} : { [type.fieldsArray[0].name]: Buffer.from(JSON.stringify(value)) }
    }
    if (this.wrappers.has(name)) {
      if (!Array.isArray(value)) throw new ProtobufError(`${where}: expected an array, got ${describe(value)}`)
      return { items: this.fieldToProto(type.fieldsArray[0], value, where) }
    }
    if (!isObject(value)) throw new ProtobufError(`${where}: expected an object, got ${describe(value)}`)
    return this.toProto(type, value, where)
  }

  // protobufjs decoded message -> JSON

  fromProto(type: Type, message: Plain, where: string): JsonObject {
    const out: JsonObject = {}
    const name = nameOf(type)
    const renames = this.descriptor.json[name] ?? {}
    const optional = this.optional.get(name)
    for (const field of type.fieldsArray) {
      const jsonName = renames[field.name] ?? field.name
      if (NULL_WHEN_EMPTY.has(`${shortName(type)}.${field.name}`) && this.isNilSlice(field, message[field.name])) {
        out[jsonName] = null
        continue
      }
      if (!Object.prototype.hasOwnProperty.call(message, field.name)) continue
      const value = message[field.name]
      if (value === undefined || value === null) continue
      const path = `${where}.${jsonName}`
      if (jsonName === '') {
        Object.assign(out, this.fromProto(field.resolvedType as Type, value as Plain, where))
        continue
      }
      if ((field as unknown as MapField).map) {
        const entries = Object.keys(value as Plain)
        if (entries.length === 0) continue
        const map: JsonObject = {}
        for (const key of entries.sort()) map[key] = this.valueFromProto(field, (value as Plain)[key], `${path}[${JSON.stringify(key)}]`)
        out[jsonName] = map
        continue
      }
      if (field.repeated) {
        const items = value as unknown[]
        if (items.length === 0) continue
        out[jsonName] = items.map((item, index) => this.valueFromProto(field, item, `${path}[${index}]`))
        continue
      }
      const json = this.valueFromProto(field, value, path)
      if (!field.resolvedType && isZero(json) && this.omitsZero(type, field, optional)) continue
      out[jsonName] = json
    }
    return out
  }

  /** An absent or empty list, map or named slice type. */
  private isNilSlice(field: Field, value: unknown): boolean {
    if (field.repeated || (field as unknown as MapField).map) return isEmpty(value)
    if (field.resolvedType && this.wrappers.has(nameOf(field.resolvedType as Type))) return value === undefined || value === null || isEmpty((value as Plain).items)
    return false
  }

  private omitsZero(type: Type, field: Field, optional: Set<string> | undefined): boolean {
    const key = `${shortName(type)}.${field.name}`
    if (field.type === 'string') return optional?.has(field.name) === true && !POINTER_STRINGS.has(key)
    return VALUE_OMITEMPTY.has(key)
  }

  private valueFromProto(field: Field, value: unknown, where: string): Json {
    const resolved = field.resolvedType
    if (resolved) return this.messageFromProto(resolved as Type, value as Plain, where)
    return scalarFromProto(field.type, value)
  }

  private messageFromProto(type: Type, message: Plain, where: string): Json {
    const name = nameOf(type)
    const has = (key: string) => Object.prototype.hasOwnProperty.call(message, key)
    switch (name) {
      case TIME:
      case MICRO_TIME: {
        const seconds = has('seconds') ? toNumber(message.seconds) : 0
        const nanos = has('nanos') ? toNumber(message.nanos) : 0
        if (seconds === 0 && nanos === 0) return null
        return name === TIME ? formatTime({ seconds, nanos }) : formatMicroTime({ seconds, nanos })
      }
      case DURATION:
        return formatDuration(has('duration') ? toNumber(message.duration) : 0)
      case QUANTITY:
        // A zero Quantity prints as "0".
        return has('string') && message.string !== '' ? (message.string as string) : '0'
      case INT_OR_STRING:
        if (has('type') && toNumber(message.type) === 1) return has('strVal') ? (message.strVal as string) : ''
        return has('intVal') ? toNumber(message.intVal) : 0
      case RAW_EXTENSION:
      case FIELDS_V1: {
        const raw = type.fieldsArray[0].name
        if (!has(raw)) return null
        return this.rawFromProto(message[raw] as Uint8Array, where)
      }
    }
    if (this.wrappers.has(name)) {
      const items = has('items') ? (message.items as unknown[]) : []
      return items.map((item, index) => this.valueFromProto(type.fieldsArray[0], item, `${where}[${index}]`))
    }
    return this.fromProto(type, message, where)
  }

  private rawFromProto(raw: Uint8Array, where: string): Json {
    if (raw.length === 0) return null
    // JSON starts with optional whitespace then a value; protobuf envelopes start with "k8s\0".
    if (raw[0] === 0x6b && raw[1] === 0x38 && raw[2] === 0x73 && raw[3] === 0) return this.rawDecoder(raw, where)
    try {
      return JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('utf8'))
    } catch {
      throw new ProtobufError(`${where}: embedded raw object is neither JSON nor a protobuf envelope`)
    }
  }
}

function timestampToProto(t: { seconds: number; nanos: number }): Plain {
  const out: Plain = {}
  // Go writes both fields; an all-zero time is an empty message (Time.Marshal returns nothing).
  if (t.seconds === 0 && t.nanos === 0) return out
  out.seconds = t.seconds
  out.nanos = t.nanos
  return out
}

function scalarToProto(type: string, value: Json, where: string): unknown {
  if (type === 'string') {
    if (typeof value !== 'string') throw new ProtobufError(`${where}: expected a string, got ${describe(value)}`)
    return value
  }
  if (type === 'bool') {
    if (typeof value !== 'boolean') throw new ProtobufError(`${where}: expected a boolean, got ${describe(value)}`)
    return value
  }
  if (type === 'bytes') {
    if (typeof value !== 'string') throw new ProtobufError(`${where}: expected a base64 string, got ${describe(value)}`)
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) throw new ProtobufError(`${where}: illegal base64 data`)
    return Buffer.from(value, 'base64')
  }
  if (INTEGER_TYPES.has(type)) {
    if (typeof value !== 'number' || !Number.isInteger(value)) throw new ProtobufError(`${where}: expected an integer, got ${describe(value)}`)
    return value
  }
  if (type === 'double' || type === 'float') {
    if (typeof value !== 'number') throw new ProtobufError(`${where}: expected a number, got ${describe(value)}`)
    return value
  }
  throw new ProtobufError(`${where}: unsupported protobuf type ${type}`)
}

function scalarFromProto(type: string, value: unknown): Json {
  if (type === 'bytes') return Buffer.from(value as Uint8Array).toString('base64')
  if (INTEGER_TYPES.has(type)) return toNumber(value)
  return value as Json
}

const isZero = (value: Json) => value === '' || value === 0 || value === false

const isEmpty = (value: unknown) => value === undefined || value === null || (Array.isArray(value) ? value.length === 0 : typeof value === 'object' && Object.keys(value).length === 0)

function describe(value: Json): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  return `${typeof value} ${JSON.stringify(value)}`
}
