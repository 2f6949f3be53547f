/**
 * A list's answer in pieces: the bytes before the items, each item's bytes, and the bytes after
 * them, in JSON, YAML and protobuf, so that a list is written while it is read (list-stream.ts).
 * Put together, the pieces are byte for byte what the whole-list encoders of negotiation.ts
 * write (`JSON.stringify` + newline, js-yaml's dump, the protobuf codec's envelope).
 */
import type { ProtobufCodec } from '../../../core/protobuf/index.js'
import { MAGIC } from '../../../core/protobuf/codec.js'
import { jsYaml } from '../../../core/util/yaml.js'

/** The list's fields other than its items (kind, apiVersion, metadata; a Table's column definitions). */
export type ListEnvelope = Record<string, unknown>

/** A text encoding of a list: `head`, then `item` for each (index from 0), then `tail`. */
export interface TextListPieces {
  contentType: string
  head: string
  item(value: unknown, index: number): string
  tail(count: number): string
}

/** `JSON.stringify({...envelope, [key]: items})` and a newline, as writeObject writes it. */
export function jsonListPieces(envelope: ListEnvelope, key: string): TextListPieces {
  const open = JSON.stringify(envelope)
  return {
    contentType: 'application/json',
    head: `${open.slice(0, -1)}${open === '{}' ? '' : ','}${JSON.stringify(key)}:[`,
    item: (value, index) => (index === 0 ? '' : ',') + JSON.stringify(value),
    tail: () => ']}\n',
  }
}

const YAML_OPTIONS = { lineWidth: -1, noRefs: true } as const

/**
 * js-yaml's dump of the whole list: the envelope's keys, then `key:` and each item as a block
 * sequence entry, which is the item dumped alone as a one-entry sequence, indented one level
 * (two spaces on every line that is not empty: js-yaml indents no empty line, block scalars'
 * included). An empty list is js-yaml's flow form, `key: []`. The items key is the last one.
 */
export function yamlListPieces(envelope: ListEnvelope, key: string): TextListPieces {
  const yaml = jsYaml()
  return {
    contentType: 'application/yaml',
    head: Object.keys(envelope).length === 0 ? '' : yaml.dump(envelope, YAML_OPTIONS),
    item: (value, index) => (index === 0 ? `${key}:\n` : '') + indentLines(yaml.dump([value], YAML_OPTIONS)),
    tail: (count) => (count === 0 ? `${key}: []\n` : ''),
  }
}

function indentLines(text: string): string {
  return text.replace(/^(?=.)/gm, '  ')
}

/** A binary encoding of a list: `head` needs the total size of the items' bytes. */
export interface BinaryListPieces {
  contentType: string
  head(itemBytes: number): Buffer
  /** An item's bytes; a Buffer item already is them (a stored object's list item field). */
  item(value: Record<string, unknown> | Buffer): Buffer
  tail: Buffer
}

/** The parts of a protobuf body: MAGIC, runtime.Unknown's typeMeta field, its raw field's contents, and what follows. */
interface EnvelopeParts {
  typeMeta: Buffer
  raw: Buffer
  tail: Buffer
}

function readVarint(buf: Buffer, at: number): { value: number; next: number } {
  let value = 0
  let shift = 0
  for (let i = at; i < buf.length && shift < 35; i++) {
    const b = buf[i]!
    value += (b & 0x7f) * 2 ** shift
    if (b < 0x80) return { value, next: i + 1 }
    shift += 7
  }
  throw new RangeError('malformed varint')
}

function varint(value: number): Buffer {
  const bytes: number[] = []
  while (value >= 0x80) {
    bytes.push((value % 0x80) | 0x80)
    value = Math.floor(value / 0x80)
  }
  bytes.push(value)
  return Buffer.from(bytes)
}

/** Splits the codec's body: MAGIC, `0a` typeMeta, `12` raw, then contentEncoding and contentType. */
function envelopeParts(body: Buffer): EnvelopeParts | undefined {
  if (!body.subarray(0, 4).equals(MAGIC) || body[4] !== 0x0a) return undefined
  const typeMetaLength = readVarint(body, 5)
  const typeMetaEnd = typeMetaLength.next + typeMetaLength.value
  if (body[typeMetaEnd] !== 0x12) return undefined
  const rawLength = readVarint(body, typeMetaEnd + 1)
  const rawEnd = rawLength.next + rawLength.value
  return { typeMeta: body.subarray(4, typeMetaEnd), raw: body.subarray(rawLength.next, rawEnd), tail: body.subarray(rawEnd) }
}

/** Whether `raw` is exactly one field 1, length-delimited (the list's metadata), or nothing. */
function onlyMetadataField(raw: Buffer): boolean {
  if (raw.length === 0) return true
  if (raw[0] !== 0x0a) return false
  const length = readVarint(raw, 1)
  return length.next + length.value === raw.length
}

/**
 * The codec's envelope around a list message: the list's raw message is its metadata (field 1)
 * then each item (field 2, `12` length body), in field-number order as Go marshals it, so the
 * items' bytes are those of a one-item list without metadata. Undefined when the codec has no
 * message for the list or its message is not laid out so (then the caller builds it whole).
 * Throws ProtobufError as the codec does for an item it cannot encode.
 */
export function protobufListPieces(codec: ProtobufCodec, envelope: ListEnvelope & { apiVersion: string; kind: string }): BinaryListPieces | undefined {
  const { apiVersion, kind } = envelope
  if (!codec.hasType(apiVersion, kind)) return undefined
  const empty = envelopeParts(codec.encode({ ...envelope, items: [] }))
  if (!empty || !onlyMetadataField(empty.raw)) return undefined
  const { typeMeta, raw: metadata, tail } = empty
  return {
    contentType: 'application/vnd.kubernetes.protobuf',
    head: (itemBytes) => Buffer.concat([MAGIC, typeMeta, Buffer.from([0x12]), varint(metadata.length + itemBytes), metadata]),
    item: (value) => {
      if (Buffer.isBuffer(value)) return value
      const parts = envelopeParts(codec.encode({ apiVersion, kind, items: [value] }))
      // The one-item list's raw message is the item's field alone (no metadata was given).
      if (!parts || parts.raw[0] !== 0x12) throw new Error(`the protobuf encoding of a ${kind} item is not the list's items field`)
      return parts.raw
    },
    tail,
  }
}
