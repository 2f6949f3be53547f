/**
 * The reference's JSON form -> protobuf bytes, written straight to the wire (no intermediate
 * message objects), as the Go types marshal:
 * - RFC 3339 times -> metav1.Time {seconds, nanos}; null -> an empty Time
 * - Go duration strings -> metav1.Duration; quantities -> {string}; int-or-string -> {type, intVal, strVal}
 * - any JSON under a RawExtension or FieldsV1 -> its bytes; base64 strings -> bytes
 * - arrays of a named slice type -> {items}; inlined structs -> an embedded message, always written
 * Presence: exactly what the JSON has is written (null counts as absent, except for times, and a
 * null list element or map value is Go's zero value); map keys sorted; fields the message does not
 * have are dropped, as Go's JSON decoding drops them. Fields are written in field-number order;
 * an object that fails is walked again in declaration order, so the error names the first bad
 * field in JSON order.
 */
import { type FieldPlan, type MessagePlan, type Plans, Scalar, Shape, Special } from './plan.js'
import { PathFault } from './decoder.js'
import { parseDuration, parseTimestamp } from './well-known.js'
import { Writer } from './wire.js'

type Json = unknown
type JsonObject = Record<string, unknown>

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value)

export class JsonEncoder {
  constructor(private readonly plans: Plans) {}

  /**
   * Set while re-walking an object that failed, in declaration order: its first error is the one
   * to report (the first bad field in JSON order), whatever the field-number order met first.
   */
  private checking = false

  /** Encodes the body of a message; on a fault, walks it again in declaration order for the error. */
  body(plan: MessagePlan, json: JsonObject, w: Writer): void {
    try {
      this.object(plan, json, w)
    } catch (error) {
      if (!(error instanceof PathFault)) throw error
      this.checking = true
      try {
        this.object(plan, json, new Writer())
      } finally {
        this.checking = false
      }
      throw error
    }
  }

  /** The fields of `json` as the message's body, in field-number order. */
  private object(plan: MessagePlan, json: JsonObject, w: Writer): void {
    const fields = plan.fields
    const order = this.checking ? undefined : plan.idOrder
    let field: FieldPlan | undefined
    try {
      for (let k = 0; k < fields.length; k++) {
        field = fields[order ? order[k] : k]
        if (field.shape === Shape.Inline) {
          // Go always writes an embedded struct, empty or not.
          w.uint32(field.tag)
          const at = w.fork()
          this.object(this.plans.sub(field), json, w)
          w.ldelim(at)
          continue
        }
        const value = json[field.json]
        if (value === undefined) continue
        this.field(field, value, w)
      }
    } catch (error) {
      if (error instanceof PathFault && field && field.json !== '') error.segments.push(`.${field.json}`)
      throw error
    }
  }

  private field(field: FieldPlan, value: Json, w: Writer): void {
    switch (field.shape) {
      case Shape.Scalar:
        if (value === null) return
        w.uint32(field.tag)
        writeScalar(field, value, w)
        return
      case Shape.Message: {
        const sub = this.plans.sub(field)
        if (value === null) {
          // A zero metav1.Time marshals to an empty message and to JSON null.
          if (sub.special === Special.Time || sub.special === Special.MicroTime) {
            w.uint32(field.tag)
            w.byte(0)
          }
          return
        }
        w.uint32(field.tag)
        const at = w.fork()
        this.value(sub, value, w)
        w.ldelim(at)
        return
      }
      case Shape.Map:
        if (value === null) return
        if (!isObject(value)) throw new PathFault(`expected an object, got ${describe(value)}`)
        this.map(field, value, w)
        return
      default:
        if (value === null) return
        if (!Array.isArray(value)) throw new PathFault(`expected an array, got ${describe(value)}`)
        this.list(field, value, w)
    }
  }

  private list(field: FieldPlan, items: Json[], w: Writer): void {
    let index = 0
    try {
      if (field.shape === Shape.RepeatedScalar) {
        for (; index < items.length; index++) {
          w.uint32(field.tag)
          const item = items[index]
          if (item === null) writeZeroScalar(w)
          else writeScalar(field, item, w)
        }
        return
      }
      const sub = this.plans.sub(field)
      for (; index < items.length; index++) {
        w.uint32(field.tag)
        const at = w.fork()
        const item = items[index]
        if (item === null) writeZeroMessage(sub, w)
        else this.value(sub, item, w)
        w.ldelim(at)
      }
    } catch (error) {
      if (error instanceof PathFault) error.segments.push(`[${index}]`)
      throw error
    }
  }

  private map(field: FieldPlan, map: JsonObject, w: Writer): void {
    const sub = field.messageType ? this.plans.sub(field) : undefined
    for (const key of this.checking ? Object.keys(map).sort() : mapKeys(map)) {
      try {
        w.uint32(field.tag)
        const entry = w.fork()
        w.byte(0x0a)
        w.string(key)
        const value = map[key]
        if (sub) {
          w.byte(0x12)
          const at = w.fork()
          if (value === null) writeZeroMessage(sub, w)
          else this.value(sub, value, w)
          w.ldelim(at)
        } else {
          w.byte((2 << 3) | field.wire)
          if (value === null) writeZeroScalar(w)
          else writeScalar(field, value, w)
        }
        w.ldelim(entry)
      } catch (error) {
        if (error instanceof PathFault) error.segments.push(`[${JSON.stringify(key)}]`)
        throw error
      }
    }
  }

  /** A message's body from its JSON value (an object, or its special form). */
  value(plan: MessagePlan, value: Json, w: Writer): void {
    switch (plan.special) {
      case Special.None:
        if (!isObject(value)) throw new PathFault(`expected an object, got ${describe(value)}`)
        this.object(plan, value, w)
        return
      case Special.Time:
      case Special.MicroTime: {
        if (value === null) return
        if (typeof value !== 'string') throw new PathFault(`expected an RFC 3339 time string, got ${describe(value)}`)
        const { seconds, nanos } = parse(parseTimestamp, value)
        // Go writes both fields; an all-zero time is an empty message (Time.Marshal returns nothing).
        if (seconds === 0 && nanos === 0) return
        w.byte(0x08)
        w.int64(seconds)
        w.byte(0x10)
        w.int32(nanos)
        return
      }
      case Special.Duration:
        if (typeof value !== 'string') throw new PathFault(`expected a duration string, got ${describe(value)}`)
        w.byte(0x08)
        w.int64(parse(parseDuration, value))
        return
      case Special.Quantity:
        if (typeof value === 'number') value = String(value)
        else if (typeof value !== 'string') throw new PathFault(`expected a quantity string, got ${describe(value)}`)
        w.byte(0x0a)
        w.string(value as string)
        return
      case Special.IntOrString:
        if (typeof value === 'number') {
          if (!Number.isInteger(value)) throw new PathFault(`expected an integer or a string, got ${value}`)
          writeIntOrString(0, value, '', w)
          return
        }
        if (typeof value !== 'string') throw new PathFault(`expected an integer or a string, got ${describe(value)}`)
        writeIntOrString(1, 0, value, w)
        return
      case Special.RawJson:
        if (value === null) return
        w.byte(0x0a)
        w.string(JSON.stringify(value))
        return
      case Special.ListWrapper:
        if (!Array.isArray(value)) throw new PathFault(`expected an array, got ${describe(value)}`)
        this.list(plan.fields[0], value, w)
        return
    }
  }
}

/** parseTimestamp/parseDuration name the place in their message; here the path comes from the fault. */
function parse<T>(parser: (text: string, where: string) => T, text: string): T {
  try {
    return parser(text, '')
  } catch (error) {
    throw new PathFault((error as Error).message.replace(/^: /, ''))
  }
}

function writeIntOrString(type: number, intVal: number, strVal: string, w: Writer): void {
  w.byte(0x08)
  w.int64(type)
  w.byte(0x10)
  w.int32(intVal)
  w.byte(0x1a)
  w.string(strVal)
}

/** The zero struct of a null list element or map value: a zero Quantity is "0", a zero IntOrString is 0. */
function writeZeroMessage(plan: MessagePlan, w: Writer): void {
  if (plan.special === Special.Quantity) {
    w.byte(0x0a)
    w.string('0')
  } else if (plan.special === Special.IntOrString) writeIntOrString(0, 0, '', w)
}

/** '' and empty bytes are a zero length, false and 0 a zero varint: one zero byte either way. */
function writeZeroScalar(w: Writer): void {
  w.byte(0)
}

function writeScalar(field: FieldPlan, value: Json, w: Writer): void {
  switch (field.scalar) {
    case Scalar.String:
      if (typeof value !== 'string') throw new PathFault(`expected a string, got ${describe(value)}`)
      w.string(value)
      return
    case Scalar.Bool:
      if (typeof value !== 'boolean') throw new PathFault(`expected a boolean, got ${describe(value)}`)
      w.byte(value ? 1 : 0)
      return
    case Scalar.Bytes:
      if (typeof value !== 'string') throw new PathFault(`expected a base64 string, got ${describe(value)}`)
      if (value.length % 4 !== 0 || !BASE64.test(value)) throw new PathFault('illegal base64 data')
      w.base64(value)
      return
    case Scalar.Int32:
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new PathFault(`expected an integer, got ${describe(value)}`)
      w.int32(value)
      return
    case Scalar.Int64:
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new PathFault(`expected an integer, got ${describe(value)}`)
      w.int64(value)
      return
    default:
      throw new PathFault(`unsupported protobuf type ${field.scalarName}`)
  }
}

/**
 * Sorted keys in the order an object built from them lists them (what the previous encoder wrote:
 * integer-like keys come first, in numeric order).
 */
function mapKeys(map: JsonObject): string[] {
  const keys = Object.keys(map)
  let sorted = true
  let numeric = false
  for (let i = 0; i < keys.length; i++) {
    if (i > 0 && !(keys[i - 1] < keys[i])) sorted = false
    const c = keys[i].charCodeAt(0)
    if (c >= 0x30 && c <= 0x39) numeric = true
  }
  if (!sorted) keys.sort()
  if (!numeric) return keys
  const ordered: JsonObject = {}
  for (const key of keys) ordered[key] = true
  return Object.keys(ordered)
}

function describe(value: Json): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  return `${typeof value} ${JSON.stringify(value)}`
}
