/**
 * The reference's protobuf wire format (k8s.io/apimachinery runtime/serializer/protobuf):
 * - a body is the 4-byte magic "k8s\0" then a runtime.Unknown {typeMeta {apiVersion, kind}, raw,
 *   contentEncoding, contentType} whose raw holds the object's go-to-protobuf message;
 * - a watch stream uses the "raw" serializer: each frame is a 4-byte big-endian length then a bare
 *   metav1.WatchEvent {type, object: RawExtension {raw}} (no magic, no Unknown), and raw holds the
 *   object encoded as a full body (magic + Unknown).
 */
import type { Root, Type } from 'protobufjs'
import type { K8sDescriptor } from './descriptor.js'
import { ProtobufError } from './errors.js'
import { JsonForm } from './json-form.js'

export const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00])

const UNKNOWN = 'k8s.io.apimachinery.pkg.runtime.Unknown'
const WATCH_EVENT = 'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent'

export function isProtobufEnvelope(data: Buffer): boolean {
  return data.length >= 4 && data[0] === 0x6b && data[1] === 0x38 && data[2] === 0x73 && data[3] === 0x00
}

type JsonObject = Record<string, unknown>

export class K8sProtobufCodec {
  private readonly types = new Map<string, Type>()
  private readonly form: JsonForm
  private readonly unknown: Type
  private readonly watchEvent: Type

  constructor(
    private readonly root: Root,
    private readonly descriptor: K8sDescriptor,
  ) {
    this.form = new JsonForm(descriptor, (raw, where) => this.decodeEmbedded(Buffer.from(raw), where))
    this.unknown = this.type(UNKNOWN)
    this.watchEvent = this.type(WATCH_EVENT)
  }

  private type(name: string): Type {
    let type = this.types.get(name)
    if (!type) {
      type = this.root.lookupType(name)
      this.types.set(name, type)
    }
    return type
  }

  private messageFor(apiVersion: string, kind: string): string | undefined {
    return this.descriptor.kinds[`${apiVersion}/${kind}`] ?? this.descriptor.anyGroup[kind]
  }

  hasType(apiVersion: string, kind: string): boolean {
    return this.messageFor(apiVersion, kind) !== undefined
  }

  encode(obj: Record<string, unknown>): Buffer {
    const { apiVersion, kind } = obj
    if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !apiVersion || !kind) {
      throw new ProtobufError('Object has no apiVersion and kind: cannot encode it as protobuf')
    }
    const message = this.messageFor(apiVersion, kind)
    if (!message) throw new ProtobufError(`no protobuf message is registered for ${apiVersion}, Kind=${kind}`)
    const type = this.type(message)
    const raw = type.encode(this.form.toProto(type, obj, kind)).finish()
    // Go's Unknown marshaller writes every field, the empty contentEncoding and contentType too.
    const envelope = this.unknown.encode({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' }).finish()
    return Buffer.concat([MAGIC, envelope])
  }

  decode(data: Buffer, expected?: { apiVersion: string; kind: string }): Record<string, unknown> {
    if (!isProtobufEnvelope(data)) throw new ProtobufError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]')
    let envelope: Record<string, unknown>
    try {
      envelope = this.unknown.decode(data.subarray(4)) as unknown as Record<string, unknown>
    } catch (error) {
      throw new ProtobufError(`malformed protobuf envelope: ${(error as Error).message}`)
    }
    const typeMeta = (envelope.typeMeta ?? {}) as { apiVersion?: string; kind?: string }
    const contentEncoding = (envelope.contentEncoding as string | undefined) ?? ''
    if (contentEncoding !== '') throw new ProtobufError(`unsupported protobuf content encoding "${contentEncoding}"`)
    let apiVersion = typeMeta.apiVersion ?? ''
    let kind = typeMeta.kind ?? ''
    if (!apiVersion && !kind && expected) ({ apiVersion, kind } = expected)
    if (!kind) throw new ProtobufError('Object kind is missing from the protobuf envelope')
    const message = this.messageFor(apiVersion, kind)
    if (!message) throw new ProtobufError(`no protobuf message is registered for ${apiVersion}, Kind=${kind}`)
    const type = this.type(message)
    const raw = (envelope.raw as Uint8Array | undefined) ?? new Uint8Array()
    let decoded: Record<string, unknown>
    try {
      decoded = type.decode(raw) as unknown as Record<string, unknown>
    } catch (error) {
      throw new ProtobufError(`malformed protobuf ${apiVersion}, Kind=${kind}: ${(error as Error).message}`)
    }
    // Go's TypeMeta order: kind, then apiVersion.
    return { kind, apiVersion, ...this.form.fromProto(type, decoded, kind) }
  }

  private decodeEmbedded(raw: Buffer, where: string): Record<string, unknown> {
    try {
      return this.decode(raw)
    } catch (error) {
      throw new ProtobufError(`${where}: ${(error as Error).message}`)
    }
  }

  encodeWatchFrame(type: string, object: Record<string, unknown>, groupVersion: string): Buffer {
    // The object keeps its own apiVersion; the request's group version only fills a missing one.
    const embedded = this.encode(object.apiVersion ? object : { ...object, apiVersion: groupVersion })
    const event = Buffer.from(this.watchEvent.encode({ type, object: { raw: embedded } }).finish())
    const length = Buffer.alloc(4)
    length.writeUInt32BE(event.length)
    return Buffer.concat([length, event])
  }

  decodeWatchFrames(data: Buffer): { type: string; object: Record<string, unknown> }[] {
    const events: { type: string; object: Record<string, unknown> }[] = []
    let offset = 0
    while (offset < data.length) {
      if (offset + 4 > data.length) throw new ProtobufError(`truncated watch frame header at byte ${offset}`)
      const length = data.readUInt32BE(offset)
      const start = offset + 4
      if (start + length > data.length) throw new ProtobufError(`truncated watch frame at byte ${offset}: ${length} bytes announced, ${data.length - start} present`)
      let event: Record<string, unknown>
      try {
        event = this.watchEvent.decode(data.subarray(start, start + length)) as unknown as Record<string, unknown>
      } catch (error) {
        throw new ProtobufError(`malformed watch event at byte ${offset}: ${(error as Error).message}`)
      }
      const raw = ((event.object as { raw?: Uint8Array } | undefined)?.raw) ?? new Uint8Array()
      const object = isProtobufEnvelope(Buffer.from(raw)) ? this.decode(Buffer.from(raw)) : parseJsonObject(raw, offset)
      events.push({ type: (event.type as string | undefined) ?? '', object })
      offset = start + length
    }
    return events
  }
}

function parseJsonObject(raw: Uint8Array, offset: number): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(raw).toString('utf8'))
  } catch {
    throw new ProtobufError(`watch event at byte ${offset} holds neither a protobuf envelope nor JSON`)
  }
}
