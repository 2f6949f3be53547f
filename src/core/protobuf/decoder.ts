/**
 * Protobuf bytes -> the reference's JSON form, in one pass with no intermediate message objects.
 * Each message's fields are read into slots (wire order), then laid out in declaration order,
 * which is Go's JSON key order:
 * - metav1.Time {seconds, nanos} -> RFC 3339 string in UTC, second precision; MicroTime keeps six
 *   fractional digits; a zero time -> null
 * - metav1.Duration {duration (ns)} -> Go duration string
 * - resource.Quantity {string} -> string ("0" when empty); intstr.IntOrString -> number | string
 * - runtime.RawExtension and metav1.FieldsV1 {raw} -> the JSON value the raw bytes hold (or the
 *   nested protobuf envelope's object)
 * - bytes -> base64 strings; named slice types ({items}) -> arrays; map keys sorted
 * - embedded structs (`json:",inline"`) -> their fields in the parent's JSON object
 * Presence: every field present in the bytes is emitted, except zero scalars that Go's omitempty
 * drops, and lists Go has no omitempty for print null when empty (omitempty.ts). A message field
 * that occurs twice is merged, as protobuf (and protobufjs) merge it.
 */
import { ProtobufError } from './errors.js'
import { type FieldPlan, type MessagePlan, type Plans, Scalar, Shape, Special } from './plan.js'
import { formatDuration, formatMicroTime, formatTime } from './well-known.js'
import { Reader, WIRE_LENGTH, WIRE_VARINT } from './wire.js'

type Json = unknown
type JsonObject = Record<string, unknown>

/** Decodes raw bytes holding a nested protobuf envelope. */
type EnvelopeDecoder = (raw: Buffer) => JsonObject

/** An error under a path: each message level adds its segment on the way up. */
export class PathFault extends Error {
  readonly segments: string[] = []
  constructor(readonly detail: string) {
    super(detail)
  }

  at(root: string): string {
    return `${root}${this.segments.reverse().join('')}: ${this.detail}`
  }
}

/** A map as read so far: entries arrive sorted from every Go or our own encoder, so usually `obj` is the answer. */
interface MapSlot {
  obj: JsonObject
  last: string | undefined
  sorted: boolean
}

export class JsonDecoder {
  constructor(
    private readonly plans: Plans,
    private readonly decodeEnvelope: EnvelopeDecoder,
  ) {}

  /** The fields of a message into `out` (the JSON object), from r.pos to end. */
  object(plan: MessagePlan, r: Reader, end: number, out: JsonObject): JsonObject {
    const slots = this.slots(plan, r, end)
    const fields = plan.fields
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]
      const value = slots[i]
      if (field.nullWhenEmpty && isNil(field, value)) {
        out[field.json] = null
        continue
      }
      if (value === undefined) continue
      switch (field.shape) {
        case Shape.Scalar:
          if (field.omitZero && (value === '' || value === 0 || value === false)) continue
          out[field.json] = value
          break
        case Shape.Inline:
          Object.assign(out, value)
          break
        case Shape.Map: {
          const map = value as MapSlot
          if (map.last === undefined) continue
          out[field.json] = map.sorted ? map.obj : sortedObject(map.obj)
          break
        }
        case Shape.RepeatedScalar:
        case Shape.RepeatedMessage:
          if ((value as unknown[]).length === 0) continue
          out[field.json] = value
          break
        default:
          out[field.json] = value
      }
    }
    return out
  }

  /** A message's JSON value: an object, or what its special form says. */
  value(plan: MessagePlan, r: Reader, end: number): Json {
    switch (plan.special) {
      case Special.None:
        return this.object(plan, r, end, {})
      case Special.RawJson:
        return this.rawJson(r, end)
    }
    const slots = this.slots(plan, r, end)
    const first = slots[0]
    switch (plan.special) {
      case Special.Time:
      case Special.MicroTime: {
        const seconds = (first as number | undefined) ?? 0
        const nanos = (slots[1] as number | undefined) ?? 0
        if (seconds === 0 && nanos === 0) return null
        return plan.special === Special.Time ? formatTime({ seconds, nanos }) : formatMicroTime({ seconds, nanos })
      }
      case Special.Duration:
        return formatDuration((first as number | undefined) ?? 0)
      case Special.Quantity:
        // A zero Quantity prints as "0".
        return first !== undefined && first !== '' ? first : '0'
      case Special.IntOrString:
        if (first === 1) return (slots[2] as string | undefined) ?? ''
        return (slots[1] as number | undefined) ?? 0
      default:
        return (first as Json[] | undefined) ?? []
    }
  }

  /** The raw field (1) of a RawExtension or FieldsV1: the JSON it holds, null when empty. */
  private rawJson(r: Reader, end: number): Json {
    let start = -1
    let stop = -1
    const outer = r.len
    r.len = end
    while (r.pos < end) {
      const tag = r.tag()
      if (tag === 0x0a) {
        stop = r.delimited()
        start = r.pos
        r.pos = stop
      } else r.skip(tag & 7, tag >>> 3)
    }
    if (r.pos !== end) throw new RangeError('index out of range')
    r.len = outer
    if (start < 0 || stop === start) return null
    const buf = r.buf
    // JSON starts with optional whitespace then a value; protobuf envelopes start with "k8s\0".
    if (stop - start >= 4 && buf[start] === 0x6b && buf[start + 1] === 0x38 && buf[start + 2] === 0x73 && buf[start + 3] === 0) {
      try {
        return this.decodeEnvelope(buf.subarray(start, stop))
      } catch (error) {
        throw new PathFault((error as Error).message)
      }
    }
    try {
      return JSON.parse(buf.utf8Slice(start, stop))
    } catch {
      throw new PathFault('embedded raw object is neither JSON nor a protobuf envelope')
    }
  }

  /** Field values in declaration-order slots (undefined = absent), each already in JSON form. */
  private slots(plan: MessagePlan, r: Reader, end: number): unknown[] {
    const fields = plan.fields
    const byId = plan.byId
    const slots = new Array<unknown>(fields.length)
    const start = r.pos
    let merge: number[] | undefined
    let field: FieldPlan | undefined
    const outer = r.len
    r.len = end
    try {
      while (r.pos < end) {
        const tag = r.tag()
        const id = tag >>> 3
        const wire = tag & 7
        const index = id < byId.length ? byId[id] : -1
        if (index < 0) {
          r.skip(wire, id)
          continue
        }
        field = fields[index]
        switch (field.shape) {
          case Shape.Scalar:
            if (wire !== field.wire) r.skip(wire, id)
            else slots[index] = scalar(r, field.scalar)
            break
          case Shape.Message:
          case Shape.Inline: {
            if (wire !== WIRE_LENGTH) {
              r.skip(wire, id)
              break
            }
            const stop = r.message()
            if (slots[index] !== undefined) (merge ??= []).push(index)
            const sub = this.plans.sub(field)
            slots[index] = field.shape === Shape.Inline ? this.object(sub, r, stop, {}) : this.value(sub, r, stop)
            if (r.pos !== stop) throw new RangeError('index out of range')
            break
          }
          case Shape.RepeatedMessage: {
            if (wire !== WIRE_LENGTH) {
              r.skip(wire, id)
              break
            }
            const stop = r.message()
            const list = (slots[index] ??= []) as Json[]
            list.push(this.value(this.plans.sub(field), r, stop))
            if (r.pos !== stop) throw new RangeError('index out of range')
            break
          }
          case Shape.RepeatedScalar: {
            const list = (slots[index] ??= []) as Json[]
            if (wire === field.wire) list.push(scalar(r, field.scalar))
            else if (wire === WIRE_LENGTH && field.wire === WIRE_VARINT) {
              // Packed, which protobufjs also accepts.
              const stop = r.delimited()
              r.len = stop
              while (r.pos < stop) list.push(scalar(r, field.scalar))
              r.len = end
            } else r.skip(wire, id)
            break
          }
          case Shape.Map:
            if (wire !== WIRE_LENGTH) r.skip(wire, id)
            else this.entry(field, r, (slots[index] ??= { obj: {}, last: undefined, sorted: true }) as MapSlot)
            break
        }
      }
      if (r.pos !== end) throw new RangeError('index out of range')
      r.len = outer
      if (merge) for (const index of new Set(merge)) slots[index] = this.merged(plan, fields[index], r.buf, start, end)
    } catch (error) {
      if (error instanceof PathFault && field) {
        const index = plan.byId[field.id]
        const element = field.shape === Shape.RepeatedMessage ? `[${((slots[index] as unknown[] | undefined) ?? []).length}]` : ''
        // A named slice's items are its own elements: no ".items" in the path.
        if (field.json !== '') error.segments.push(plan.special === Special.ListWrapper ? element : `.${field.json}${element}`)
      }
      throw error
    }
    return slots
  }

  /** One map entry {key 1, value 2}; an absent value is the zero value. */
  private entry(field: FieldPlan, r: Reader, map: MapSlot): void {
    const stop = r.message()
    const outer = r.len
    r.len = stop
    const buf = r.buf
    if ((field.scalar === Scalar.String || field.scalar === Scalar.Bytes) && r.pos < stop && buf[r.pos] === 0x0a) {
      // map<string, string or bytes> as every encoder writes it: key then value, nothing else.
      const at = r.pos++
      const key = r.key()
      if (buf[r.pos] === 0x12 && r.pos < stop) {
        r.pos++
        const value = field.scalar === Scalar.String ? r.string() : r.base64()
        if (r.pos === stop) {
          r.len = outer
          addEntry(map, key, value)
          return
        }
      }
      r.pos = at
    }
    let key = ''
    let value: Json
    let spans: number[] | undefined
    while (r.pos < stop) {
      const tag = r.tag()
      if (tag === 0x0a) key = r.key()
      else if (tag === ((2 << 3) | field.wire)) {
        if (field.messageType) {
          const end = r.message()
          ;(spans ??= []).push(r.pos, end)
          r.pos = end
        } else value = scalar(r, field.scalar)
      } else r.skip(tag & 7, tag >>> 3)
    }
    if (r.pos !== stop) throw new RangeError('index out of range')
    r.len = outer
    if (field.messageType) {
      const sub = this.plans.sub(field)
      try {
        if (!spans) value = this.value(sub, new Reader(Buffer.alloc(0)), 0)
        else if (spans.length === 2) {
          const at = r.pos
          r.pos = spans[0]
          value = this.value(sub, r, spans[1])
          r.pos = at
        } else value = this.value(sub, ...concatenated(r.buf, spans))
      } catch (error) {
        if (error instanceof PathFault) error.segments.push(`[${JSON.stringify(key)}]`)
        throw error
      }
    } else if (value === undefined) value = zeroScalar(field.scalar)
    addEntry(map, key, value)
  }

  /** A message field that occurs more than once: the occurrences' bytes concatenated (protobuf's merge). */
  private merged(plan: MessagePlan, field: FieldPlan, buf: Buffer, start: number, end: number): Json {
    const r = new Reader(buf, start, end)
    const spans: number[] = []
    while (r.pos < end) {
      const tag = r.tag()
      if (tag === field.tag) {
        const stop = r.message()
        spans.push(r.pos, stop)
        r.pos = stop
      } else r.skip(tag & 7, tag >>> 3)
    }
    const sub = this.plans.sub(field)
    const [reader, stop] = concatenated(buf, spans)
    return field.shape === Shape.Inline ? this.object(sub, reader, stop, {}) : this.value(sub, reader, stop)
  }
}

function concatenated(buf: Buffer, spans: number[]): [Reader, number] {
  const parts: Buffer[] = []
  for (let i = 0; i < spans.length; i += 2) parts.push(buf.subarray(spans[i], spans[i + 1]))
  const joined = Buffer.concat(parts)
  return [new Reader(joined), joined.length]
}

function scalar(r: Reader, type: Scalar): Json {
  switch (type) {
    case Scalar.String:
      return r.string()
    case Scalar.Int32:
      return r.int32()
    case Scalar.Int64:
      return r.int64()
    case Scalar.Bool:
      return r.bool()
    case Scalar.Bytes:
      return r.base64()
    default:
      throw new ProtobufError('unsupported protobuf scalar type')
  }
}

function zeroScalar(type: Scalar): Json {
  switch (type) {
    case Scalar.String:
    case Scalar.Bytes:
      return ''
    case Scalar.Bool:
      return false
    default:
      return 0
  }
}

/** An absent or empty list, map or named slice. */
function isNil(field: FieldPlan, value: unknown): boolean {
  if (value === undefined || value === null) return true
  if (field.shape === Shape.Map) return (value as MapSlot).last === undefined
  return Array.isArray(value) && value.length === 0
}

function addEntry(map: MapSlot, key: string, value: Json): void {
  if (map.last !== undefined && !(map.last < key)) map.sorted = false
  map.last = key
  map.obj[key] = value
}

/** Keys sorted (a key that occurred twice keeps its last value). */
function sortedObject(map: JsonObject): JsonObject {
  const out: JsonObject = {}
  for (const key of Object.keys(map).sort()) out[key] = map[key]
  return out
}
