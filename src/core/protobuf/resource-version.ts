/**
 * A stored protobuf object served as it is, with its resourceVersion spliced in.
 *
 * The store keeps an object as a full protobuf body (magic + runtime.Unknown) without its
 * resourceVersion, which comes from the store's revision on every read. Decoding the body and
 * encoding it again only to add that one string is most of a protobuf GET's work; instead the
 * bytes are copied once with ObjectMeta's field 6 (resourceVersion) written in its place and
 * the two enclosing lengths (the object's metadata, runtime.Unknown's raw) adjusted. The result
 * is byte for byte what encoding the decoded object would give, because the stored body was
 * written by the same encoder in the same canonical field order; anything else (another
 * envelope layout, fields out of order, a resourceVersion already set, malformed bytes) is
 * left to the caller's decode-and-encode path by answering undefined.
 */
import { isProtobufEnvelope } from './codec.js'
import { Reader } from './wire.js'

/** ObjectMeta.resourceVersion: field 6, length-delimited. */
const RESOURCE_VERSION_FIELD = 6
/** Every top-level Kubernetes message has its ObjectMeta as field 1. */
const METADATA_TAG = (1 << 3) | 2
const TYPE_META_TAG = (1 << 3) | 2
const RAW_TAG = (2 << 3) | 2
const LENGTH_DELIMITED = 2

/**
 * `stored` (a protobuf body of `expected` apiVersion and kind, as the encoder writes it) with
 * `resourceVersion` set in its metadata, or undefined when the bytes are not in that form.
 */
export function withResourceVersion(stored: Buffer, expected: { apiVersion: string; kind: string }, resourceVersion: string): Buffer | undefined {
  if (!isProtobufEnvelope(stored) || resourceVersion === '') return undefined
  try {
    return splice(stored, expected, Buffer.from(resourceVersion, 'utf8'))
  } catch {
    // Malformed bytes: the decoding path reports them properly.
    return undefined
  }
}

/**
 * The same, without the envelope: the object's own message (what a list's `items` entries and
 * runtime.Unknown's raw hold), for encoders that embed the object in a larger message.
 */
export function messageWithResourceVersion(stored: Buffer, expected: { apiVersion: string; kind: string }, resourceVersion: string): Buffer | undefined {
  const item = listItemWithResourceVersion(stored, expected, resourceVersion)
  if (!item) return undefined
  const r = new Reader(item, 0)
  r.tag()
  r.delimited()
  return item.subarray(r.pos)
}

/**
 * The object as one entry of a list message's `items` (field 2: `12`, the length, the object's
 * message with `resourceVersion` set), copied once from the stored body; undefined when the
 * bytes are not in the encoder's form (see withResourceVersion). A list encoder writes these
 * one after the other, as Go marshals a list's items.
 */
export function listItemWithResourceVersion(stored: Buffer, expected: { apiVersion: string; kind: string }, resourceVersion: string): Buffer | undefined {
  if (!isProtobufEnvelope(stored) || resourceVersion === '') return undefined
  try {
    const layout = locate(stored, expected)
    return layout && write(stored, layout, Buffer.from(resourceVersion, 'utf8'), 'item')
  } catch {
    return undefined
  }
}

/** Where the parts of a stored body are (offsets into it), as locate() found them. */
interface Layout {
  /** Where runtime.Unknown's raw length starts (everything before it is copied as is). */
  rawLengthAt: number
  rawEnd: number
  metaStart: number
  metaEnd: number
  /** The bytes of an existing empty resourceVersion field to drop, or the place to insert it. */
  cutStart: number
  cutEnd: number
}

function splice(stored: Buffer, expected: { apiVersion: string; kind: string }, rv: Buffer): Buffer | undefined {
  const layout = locate(stored, expected)
  return layout && write(stored, layout, rv, 'body')
}

/**
 * The stored body with `rv` in its metadata: the whole body (`body`), or the object's message
 * as a list item field (`item`: `12`, its length, the message).
 */
function write(stored: Buffer, at: Layout, rv: Buffer, form: 'body' | 'item'): Buffer | undefined {
  const { rawLengthAt, rawEnd, metaStart, metaEnd, cutStart, cutEnd } = at
  const field = [0x32, ...varint(rv.length)]
  const metaLength = metaEnd - metaStart - (cutEnd - cutStart) + field.length + rv.length
  const metaHeader = [METADATA_TAG, ...varint(metaLength)]
  const rawLength = metaHeader.length + metaLength + (rawEnd - metaEnd)
  const rawHeader = varint(rawLength)
  const trailerLength = form === 'body' ? stored.length - rawEnd : 0
  const leadLength = form === 'body' ? rawLengthAt : 1
  const out = Buffer.allocUnsafe(leadLength + rawHeader.length + rawLength + trailerLength)
  let pos = form === 'body' ? stored.copy(out, 0, 0, rawLengthAt) : ((out[0] = RAW_TAG), 1)
  for (const b of rawHeader) out[pos++] = b
  for (const b of metaHeader) out[pos++] = b
  pos += stored.copy(out, pos, metaStart, cutStart)
  for (const b of field) out[pos++] = b
  pos += rv.copy(out, pos)
  pos += stored.copy(out, pos, cutEnd, rawEnd)
  if (form === 'body') pos += stored.copy(out, pos, rawEnd)
  return pos === out.length ? out : undefined
}

function locate(stored: Buffer, expected: { apiVersion: string; kind: string }): Layout | undefined {
  const r = new Reader(stored, 4)
  // runtime.Unknown: typeMeta (1), raw (2), then contentEncoding and contentType.
  if (r.tag() !== TYPE_META_TAG) return undefined
  const typeMetaEnd = r.message()
  let apiVersion = ''
  let kind = ''
  const outer = r.len
  r.len = typeMetaEnd
  while (r.pos < typeMetaEnd) {
    const tag = r.tag()
    if (tag === 0x0a) apiVersion = r.string()
    else if (tag === 0x12) kind = r.string()
    else return undefined
  }
  r.len = outer
  if (apiVersion !== expected.apiVersion || kind !== expected.kind) return undefined
  if (r.tag() !== RAW_TAG) return undefined
  const rawLengthAt = r.pos
  const rawEnd = r.delimited()
  const rawStart = r.pos
  // The rest of the envelope must be the empty contentEncoding and contentType (nothing encoded).
  const trailer = stored.subarray(rawEnd)
  if (trailer.length !== 4 || trailer[0] !== 0x1a || trailer[1] !== 0 || trailer[2] !== 0x22 || trailer[3] !== 0) return undefined

  r.len = rawEnd
  if (rawStart === rawEnd || r.tag() !== METADATA_TAG) return undefined
  const metaEnd = r.message()
  const metaStart = r.pos
  // Where field 6 goes: replacing an empty one, or before the first higher field.
  let cutStart = metaEnd
  let cutEnd = metaEnd
  let previous = 0
  r.len = metaEnd
  while (r.pos < metaEnd) {
    const at = r.pos
    const tag = r.tag()
    const field = tag >>> 3
    if (field < previous) return undefined
    previous = field
    if (field === RESOURCE_VERSION_FIELD) {
      if ((tag & 7) !== LENGTH_DELIMITED) return undefined
      const end = r.delimited()
      if (end !== r.pos) return undefined
      cutStart = at
      cutEnd = end
      continue
    }
    if (field > RESOURCE_VERSION_FIELD && cutStart === metaEnd) cutStart = cutEnd = at
    r.skip(tag & 7, field)
  }
  if (r.pos !== metaEnd) return undefined
  // Nothing else may share field 1 with the metadata (a second metadata would merge into it).
  r.len = rawEnd
  r.pos = metaEnd
  while (r.pos < rawEnd) {
    const tag = r.tag()
    if (tag >>> 3 <= 1) return undefined
    r.skip(tag & 7, tag >>> 3)
  }

  return { rawLengthAt, rawEnd, metaStart, metaEnd, cutStart, cutEnd }
}

function varint(n: number): number[] {
  const bytes: number[] = []
  while (n > 0x7f) {
    bytes.push((n & 0x7f) | 0x80)
    n >>>= 7
  }
  bytes.push(n)
  return bytes
}
