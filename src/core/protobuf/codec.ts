/**
 * The reference's protobuf wire format (k8s.io/apimachinery runtime/serializer/protobuf):
 * - a body is the 4-byte magic "k8s\0" then a runtime.Unknown {typeMeta {apiVersion, kind}, raw,
 *   contentEncoding, contentType} whose raw holds the object's go-to-protobuf message;
 * - a watch stream uses the "raw" serializer: each frame is a 4-byte big-endian length then a bare
 *   metav1.WatchEvent {type, object: RawExtension {raw}} (no magic, no Unknown), and raw holds the
 *   object encoded as a full body (magic + Unknown).
 */
import type { Type } from 'protobufjs'
import type { LazyRoot } from './lazy-root.js'
import type { K8sDescriptor } from './descriptor.js'
import { JsonDecoder, PathFault } from './decoder.js'
import { JsonEncoder } from './encoder.js'
import { ProtobufError } from './errors.js'
import { type MessagePlan, Plans } from './plan.js'
import { Reader, Writer } from './wire.js'

export const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00])

export function isProtobufEnvelope(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === 0x6b && data[1] === 0x38 && data[2] === 0x73 && data[3] === 0x00
}

type JsonObject = Record<string, unknown>

/** runtime.Unknown's fields, as read from an envelope. */
interface Envelope {
  apiVersion: string
  kind: string
  rawStart: number
  rawEnd: number
  contentEncoding: string
}

export class K8sProtobufCodec {
  private readonly plans: Plans
  private readonly decoder: JsonDecoder
  private readonly encoder: JsonEncoder
  /** apiVersion -> kind -> plan (null: no message). */
  private readonly messages = new Map<string, Map<string, MessagePlan | null>>()

  constructor(
    private readonly root: LazyRoot,
    private readonly descriptor: K8sDescriptor,
  ) {
    this.plans = new Plans(descriptor)
    this.decoder = new JsonDecoder(this.plans, (raw) => this.decode(raw))
    this.encoder = new JsonEncoder(this.plans)
  }

  /** The plan of the message registered for apiVersion/kind, null when there is none. */
  private planFor(apiVersion: string, kind: string): MessagePlan | null {
    let kinds = this.messages.get(apiVersion)
    if (!kinds) this.messages.set(apiVersion, (kinds = new Map()))
    let plan = kinds.get(kind)
    if (plan === undefined) {
      const message = this.descriptor.kinds[`${apiVersion}/${kind}`] ?? this.descriptor.anyGroup[kind]
      plan = message ? this.plans.of(this.root.lookupType(message)) : null
      kinds.set(kind, plan)
    }
    return plan
  }

  hasType(apiVersion: string, kind: string): boolean {
    return this.planFor(apiVersion, kind) !== null
  }

  encode(obj: Record<string, unknown>): Buffer {
    const w = new Writer()
    this.write(obj, w)
    return w.finish()
  }

  /** MAGIC + runtime.Unknown {typeMeta {apiVersion, kind}, raw, contentEncoding, contentType}. */
  private write(obj: JsonObject, w: Writer): void {
    const { apiVersion, kind } = obj
    if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !apiVersion || !kind) {
      throw new ProtobufError('Object has no apiVersion and kind: cannot encode it as protobuf')
    }
    const plan = this.planFor(apiVersion, kind)
    if (!plan) throw new ProtobufError(`no protobuf message is registered for ${apiVersion}, Kind=${kind}`)
    w.raw(MAGIC)
    w.byte(0x0a)
    const typeMeta = w.fork()
    w.byte(0x0a)
    w.string(apiVersion)
    w.byte(0x12)
    w.string(kind)
    w.ldelim(typeMeta)
    w.byte(0x12)
    const raw = w.fork()
    try {
      this.encoder.body(plan, obj, w)
    } catch (error) {
      if (error instanceof PathFault) throw new ProtobufError(error.at(kind))
      throw error
    }
    w.ldelim(raw)
    // Go's Unknown marshaller writes every field, the empty contentEncoding and contentType too.
    w.byte(0x1a)
    w.byte(0)
    w.byte(0x22)
    w.byte(0)
  }

  decode(data: Buffer, expected?: { apiVersion: string; kind: string }): Record<string, unknown> {
    if (!isProtobufEnvelope(data)) throw new ProtobufError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]')
    const buf = Buffer.isBuffer(data) ? data : Buffer.from((data as Uint8Array).buffer, (data as Uint8Array).byteOffset, (data as Uint8Array).length)
    let envelope: Envelope
    try {
      envelope = readEnvelope(new Reader(buf, 4))
    } catch (error) {
      throw new ProtobufError(`malformed protobuf envelope: ${(error as Error).message}`)
    }
    if (envelope.contentEncoding !== '') throw new ProtobufError(`unsupported protobuf content encoding "${envelope.contentEncoding}"`)
    let { apiVersion, kind } = envelope
    if (!apiVersion && !kind && expected) ({ apiVersion, kind } = expected)
    if (!kind) throw new ProtobufError('Object kind is missing from the protobuf envelope')
    const plan = this.planFor(apiVersion, kind)
    if (!plan) throw new ProtobufError(`no protobuf message is registered for ${apiVersion}, Kind=${kind}`)
    try {
      // Go's TypeMeta order: kind, then apiVersion.
      return this.decoder.object(plan, new Reader(buf, envelope.rawStart, envelope.rawEnd), envelope.rawEnd, { kind, apiVersion })
    } catch (error) {
      // Bytes that do not parse are reported as such even where a bad embedded object came first.
      const malformed = error instanceof PathFault || error instanceof ProtobufError ? this.malformed(plan, buf.subarray(envelope.rawStart, envelope.rawEnd)) : (error as Error).message
      if (malformed !== undefined) throw new ProtobufError(`malformed protobuf ${apiVersion}, Kind=${kind}: ${malformed}`)
      throw error instanceof PathFault ? new ProtobufError(error.at(kind)) : error
    }
  }

  /** Why protobufjs's reflection rejects the bytes, if it does (only asked on the error path). */
  private malformed(plan: MessagePlan, raw: Buffer): string | undefined {
    try {
      plan.type.decode(raw)
      return undefined
    } catch (error) {
      return (error as Error).message
    }
  }

  encodeWatchFrame(type: string, object: Record<string, unknown>, groupVersion: string): Buffer {
    // The object keeps its own apiVersion; the request's group version only fills a missing one.
    const embedded = object.apiVersion ? object : { ...object, apiVersion: groupVersion }
    const w = new Writer()
    // Length prefix, then WatchEvent {type 1, object 2: RawExtension {raw 1: the full body}}.
    w.ensure(4)
    w.pos = 4
    w.byte(0x0a)
    w.string(type)
    w.byte(0x12)
    const event = w.fork()
    w.byte(0x0a)
    const raw = w.fork()
    this.write(embedded, w)
    w.ldelim(raw)
    w.ldelim(event)
    w.buf.writeUInt32BE(w.pos - 4, 0)
    return w.finish()
  }

  decodeWatchFrames(data: Buffer): { type: string; object: Record<string, unknown> }[] {
    const events: { type: string; object: Record<string, unknown> }[] = []
    let offset = 0
    while (offset < data.length) {
      if (offset + 4 > data.length) throw new ProtobufError(`truncated watch frame header at byte ${offset}`)
      const length = data.readUInt32BE(offset)
      const start = offset + 4
      if (start + length > data.length) throw new ProtobufError(`truncated watch frame at byte ${offset}: ${length} bytes announced, ${data.length - start} present`)
      let event: { type: string; raw: Buffer }
      try {
        event = readWatchEvent(new Reader(data, start, start + length))
      } catch (error) {
        throw new ProtobufError(`malformed watch event at byte ${offset}: ${(error as Error).message}`)
      }
      const object = isProtobufEnvelope(event.raw) ? this.decode(event.raw) : parseJsonObject(event.raw, offset)
      events.push({ type: event.type, object })
      offset = start + length
    }
    return events
  }
}

/** runtime.Unknown; a typeMeta that occurs twice merges, as protobuf merges messages. */
function readEnvelope(r: Reader): Envelope {
  const envelope: Envelope = { apiVersion: '', kind: '', rawStart: 0, rawEnd: 0, contentEncoding: '' }
  while (r.pos < r.len) {
    const tag = r.tag()
    switch (tag) {
      case 0x0a: {
        const end = r.message()
        const outer = r.len
        r.len = end
        while (r.pos < end) {
          const inner = r.tag()
          if (inner === 0x0a) envelope.apiVersion = r.string()
          else if (inner === 0x12) envelope.kind = r.string()
          else r.skip(inner & 7, inner >>> 3)
        }
        if (r.pos !== end) throw new RangeError('index out of range')
        r.len = outer
        break
      }
      case 0x12:
        envelope.rawEnd = r.delimited()
        envelope.rawStart = r.pos
        r.pos = envelope.rawEnd
        break
      case 0x1a:
        envelope.contentEncoding = r.string()
        break
      default:
        r.skip(tag & 7, tag >>> 3)
    }
  }
  return envelope
}

/** metav1.WatchEvent {type, object: RawExtension {raw}}. */
function readWatchEvent(r: Reader): { type: string; raw: Buffer } {
  let type = ''
  let raw: Buffer = Buffer.alloc(0)
  while (r.pos < r.len) {
    const tag = r.tag()
    if (tag === 0x0a) type = r.string()
    else if (tag === 0x12) {
      const end = r.message()
      const outer = r.len
      r.len = end
      while (r.pos < end) {
        const inner = r.tag()
        if (inner === 0x0a) {
          const stop = r.delimited()
          raw = r.buf.subarray(r.pos, stop)
          r.pos = stop
        } else r.skip(inner & 7, inner >>> 3)
      }
      if (r.pos !== end) throw new RangeError('index out of range')
      r.len = outer
    } else r.skip(tag & 7, tag >>> 3)
  }
  return { type, raw }
}

function parseJsonObject(raw: Uint8Array, offset: number): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(raw).toString('utf8'))
  } catch {
    throw new ProtobufError(`watch event at byte ${offset} holds neither a protobuf envelope nor JSON`)
  }
}
