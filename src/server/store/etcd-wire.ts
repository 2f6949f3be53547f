/**
 * The few etcd v3 protobuf messages of the store's hot calls (KV.Range, KV.Txn, and the
 * Watch stream that follows every write), encoded and decoded by hand. etcd3's generic path (proto-loader's protobufjs objects with
 * `longs: String` and every default filled in, then etcd3's conversions) costs more CPU per
 * call than the call's own bytes; these read only the fields the store uses and skip the
 * rest by wire type, so a newer etcd adding fields still decodes.
 *
 * Field numbers are those of etcd's `rpc.proto` and `kv.proto` (etcdserverpb, mvccpb).
 */

// ---- encoding -------------------------------------------------------------------------

const VARINT = 0
const LENGTH = 2

/** Bytes of a non-negative integer as a varint (safe integers only). */
function varintSize(n: number): number {
  let size = 1
  while (n >= 128) {
    n = Math.floor(n / 128)
    size++
  }
  return size
}

function writeVarint(buf: Buffer, pos: number, n: number): number {
  while (n >= 128) {
    buf[pos++] = (n % 128) | 128
    n = Math.floor(n / 128)
  }
  buf[pos++] = n
  return pos
}

/** An int64 given as a decimal string (lease IDs can pass 2^53) as a varint. */
function bigVarint(value: string): Buffer {
  let n = BigInt.asUintN(64, BigInt(value))
  const bytes: number[] = []
  while (n >= 128n) {
    bytes.push(Number(n & 127n) | 128)
    n >>= 7n
  }
  bytes.push(Number(n))
  return Buffer.from(bytes)
}

/** A message being assembled: its fields as they will be written, sized up front. */
class Fields {
  readonly parts: Array<{ tag: number; kind: 'varint'; n: number } | { tag: number; kind: 'bytes'; b: Buffer | Fields } | { tag: number; kind: 'raw'; b: Buffer }> = []
  size = 0

  varint(field: number, n: number): this {
    if (n === 0) return this
    return this.varintAlways(field, n)
  }

  /** A varint written even when zero (a oneof member that is set). */
  varintAlways(field: number, n: number): this {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`etcd field ${field}: ${n} is not a non-negative integer`)
    const tag = (field << 3) | VARINT
    this.parts.push({ tag, kind: 'varint', n })
    this.size += varintSize(tag) + varintSize(n)
    return this
  }

  /** An int64 given as a decimal string ("0": left out). */
  int64String(field: number, value: string | number): this {
    if (typeof value === 'number') return this.varint(field, value)
    if (value === '0' || value === '') return this
    const tag = (field << 3) | VARINT
    const b = bigVarint(value)
    this.parts.push({ tag, kind: 'raw', b })
    this.size += varintSize(tag) + b.length
    return this
  }

  bool(field: number, value: boolean | undefined): this {
    return value ? this.varint(field, 1) : this
  }

  bytes(field: number, b: Buffer | undefined): this {
    if (!b || b.length === 0) return this
    return this.message(field, b)
  }

  /** A length-delimited field written even when empty (a repeated or oneof message). */
  message(field: number, b: Buffer | Fields): this {
    const tag = (field << 3) | LENGTH
    const length = b instanceof Fields ? b.size : b.length
    this.parts.push({ tag, kind: 'bytes', b })
    this.size += varintSize(tag) + varintSize(length) + length
    return this
  }

  writeTo(buf: Buffer, pos: number): number {
    for (const part of this.parts) {
      pos = writeVarint(buf, pos, part.tag)
      if (part.kind === 'varint') pos = writeVarint(buf, pos, part.n)
      else if (part.kind === 'raw') pos += part.b.copy(buf, pos)
      else if (part.b instanceof Fields) {
        pos = writeVarint(buf, pos, part.b.size)
        pos = part.b.writeTo(buf, pos)
      } else {
        pos = writeVarint(buf, pos, part.b.length)
        pos += part.b.copy(buf, pos)
      }
    }
    return pos
  }

  /** The message in a gRPC length-prefixed frame (uncompressed). */
  frame(): Buffer {
    const buf = Buffer.allocUnsafe(5 + this.size)
    buf[0] = 0
    buf.writeUInt32BE(this.size, 1)
    const end = this.writeTo(buf, 5)
    if (end !== buf.length) throw new Error(`etcd message encoded to ${end - 5} bytes, sized ${this.size}`)
    return buf
  }

  /** The message alone. */
  bytesOf(): Buffer {
    const buf = Buffer.allocUnsafe(this.size)
    this.writeTo(buf, 0)
    return buf
  }
}

export interface RangeRequest {
  key: Buffer
  rangeEnd?: Buffer
  limit?: number
  revision?: number
  countOnly?: boolean
}

export interface PutRequest {
  key: Buffer
  value: Buffer
  /** Lease ID, decimal (0 or '0': none). */
  lease?: string | number
  prevKv?: boolean
}

export interface DeleteRangeRequest {
  key: Buffer
  prevKv?: boolean
}

export type RequestOp = { range: RangeRequest } | { put: PutRequest } | { deleteRange: DeleteRangeRequest }

/** The one comparison the store makes: the key's mod revision equals `modRevision`. */
export interface ModRevisionEquals {
  key: Buffer
  modRevision: number
}

export interface TxnRequest {
  compare: ModRevisionEquals[]
  success: RequestOp[]
  failure: RequestOp[]
}

function rangeFields(req: RangeRequest): Fields {
  return new Fields()
    .bytes(1, req.key)
    .bytes(2, req.rangeEnd)
    .varint(3, req.limit ?? 0)
    .varint(4, req.revision ?? 0)
    .bool(9, req.countOnly)
}

function putFields(req: PutRequest): Fields {
  return new Fields()
    .bytes(1, req.key)
    .bytes(2, req.value)
    .int64String(3, req.lease ?? 0)
    .bool(4, req.prevKv)
}

function deleteRangeFields(req: DeleteRangeRequest): Fields {
  return new Fields().bytes(1, req.key).bool(3, req.prevKv)
}

function requestOpFields(op: RequestOp): Fields {
  if ('range' in op) return new Fields().message(1, rangeFields(op.range))
  if ('put' in op) return new Fields().message(2, putFields(op.put))
  return new Fields().message(3, deleteRangeFields(op.deleteRange))
}

const COMPARE_TARGET_MOD = 2

function compareFields(c: ModRevisionEquals): Fields {
  // result Equal is 0, the default, so it is not written; the oneof member always is.
  return new Fields().varint(2, COMPARE_TARGET_MOD).bytes(3, c.key).varintAlways(6, c.modRevision)
}

/** A RangeRequest in its gRPC frame. */
export function encodeRange(req: RangeRequest): Buffer {
  return rangeFields(req).frame()
}

/** A TxnRequest in its gRPC frame. */
export function encodeTxn(req: TxnRequest): Buffer {
  const fields = new Fields()
  for (const c of req.compare) fields.message(1, compareFields(c))
  for (const op of req.success) fields.message(2, requestOpFields(op))
  for (const op of req.failure) fields.message(3, requestOpFields(op))
  return fields.frame()
}

export interface WatchCreateRequest {
  key: Buffer
  rangeEnd?: Buffer
  /** 0: from the member's current revision. */
  startRevision: number
  progressNotify: boolean
  prevKv: boolean
}

/** A WatchRequest with its create_request, in its gRPC frame. */
export function encodeWatchCreate(req: WatchCreateRequest): Buffer {
  const create = new Fields()
    .bytes(1, req.key)
    .bytes(2, req.rangeEnd)
    .varint(3, req.startRevision)
    .bool(4, req.progressNotify)
    .bool(6, req.prevKv)
  return new Fields().message(1, create).frame()
}

/** A WatchRequest with an (empty) progress_request, in its gRPC frame. */
export function encodeWatchProgress(): Buffer {
  return new Fields().message(3, new Fields()).frame()
}

/** For tests: the message without its frame. */
export function encodeRangeMessage(req: RangeRequest): Buffer {
  return rangeFields(req).bytesOf()
}

export function encodeTxnMessage(req: TxnRequest): Buffer {
  return encodeTxn(req).subarray(5)
}

// ---- decoding -------------------------------------------------------------------------

export interface WireKeyValue {
  key: Buffer
  value: Buffer
  createRevision: number
  modRevision: number
}

export interface RangeResponse {
  revision: number
  kvs: WireKeyValue[]
  more: boolean
  count: number
}

export interface PutResponse {
  revision: number
  prevKv?: WireKeyValue
}

export interface DeleteRangeResponse {
  revision: number
  deleted: number
  prevKvs: WireKeyValue[]
}

export type ResponseOp =
  | { range: RangeResponse }
  | { put: PutResponse }
  | { deleteRange: DeleteRangeResponse }
  | { other: true }

export interface TxnResponse {
  revision: number
  succeeded: boolean
  responses: ResponseOp[]
}

const EMPTY = Buffer.alloc(0)

/** Reads one message's fields from `buf[pos, end)`. */
class Reader {
  pos: number
  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
  ) {
    this.pos = start
  }

  more(): boolean {
    return this.pos < this.end
  }

  varint(): number {
    let result = 0
    let scale = 1
    for (;;) {
      if (this.pos >= this.end) throw new Error('etcd response truncated inside a varint')
      const byte = this.buf[this.pos++]!
      result += (byte & 127) * scale
      if (byte < 128) return result
      scale *= 128
      if (scale > 2 ** 63) throw new Error('etcd response has a varint longer than 64 bits')
    }
  }

  /** The next length-delimited field's [start, end). */
  span(): [number, number] {
    const length = this.varint()
    const start = this.pos
    const end = start + length
    if (end > this.end) throw new Error('etcd response truncated inside a field')
    this.pos = end
    return [start, end]
  }

  bytes(): Buffer {
    const [start, end] = this.span()
    return this.buf.subarray(start, end)
  }

  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.varint()
        return
      case 1:
        this.pos += 8
        break
      case 2:
        this.span()
        return
      case 5:
        this.pos += 4
        break
      default:
        throw new Error(`etcd response has an unknown protobuf wire type ${wireType}`)
    }
    if (this.pos > this.end) throw new Error('etcd response truncated')
  }

  sub(): Reader {
    const [start, end] = this.span()
    return new Reader(this.buf, start, end)
  }
}

function headerRevision(r: Reader): number {
  let revision = 0
  while (r.more()) {
    const tag = r.varint()
    if (tag === ((3 << 3) | VARINT)) revision = r.varint()
    else r.skip(tag & 7)
  }
  return revision
}

function keyValue(r: Reader): WireKeyValue {
  const kv: WireKeyValue = { key: EMPTY, value: EMPTY, createRevision: 0, modRevision: 0 }
  while (r.more()) {
    const tag = r.varint()
    switch (tag) {
      case (1 << 3) | LENGTH:
        kv.key = r.bytes()
        break
      case (2 << 3) | VARINT:
        kv.createRevision = r.varint()
        break
      case (3 << 3) | VARINT:
        kv.modRevision = r.varint()
        break
      case (5 << 3) | LENGTH:
        kv.value = r.bytes()
        break
      default:
        r.skip(tag & 7)
    }
  }
  return kv
}

function rangeResponse(r: Reader): RangeResponse {
  const res: RangeResponse = { revision: 0, kvs: [], more: false, count: 0 }
  while (r.more()) {
    const tag = r.varint()
    switch (tag) {
      case (1 << 3) | LENGTH:
        res.revision = headerRevision(r.sub())
        break
      case (2 << 3) | LENGTH:
        res.kvs.push(keyValue(r.sub()))
        break
      case (3 << 3) | VARINT:
        res.more = r.varint() !== 0
        break
      case (4 << 3) | VARINT:
        res.count = r.varint()
        break
      default:
        r.skip(tag & 7)
    }
  }
  return res
}

function putResponse(r: Reader): PutResponse {
  const res: PutResponse = { revision: 0 }
  while (r.more()) {
    const tag = r.varint()
    if (tag === ((1 << 3) | LENGTH)) res.revision = headerRevision(r.sub())
    else if (tag === ((2 << 3) | LENGTH)) res.prevKv = keyValue(r.sub())
    else r.skip(tag & 7)
  }
  return res
}

function deleteRangeResponse(r: Reader): DeleteRangeResponse {
  const res: DeleteRangeResponse = { revision: 0, deleted: 0, prevKvs: [] }
  while (r.more()) {
    const tag = r.varint()
    if (tag === ((1 << 3) | LENGTH)) res.revision = headerRevision(r.sub())
    else if (tag === ((2 << 3) | VARINT)) res.deleted = r.varint()
    else if (tag === ((3 << 3) | LENGTH)) res.prevKvs.push(keyValue(r.sub()))
    else r.skip(tag & 7)
  }
  return res
}

function responseOp(r: Reader): ResponseOp {
  let op: ResponseOp = { other: true }
  while (r.more()) {
    const tag = r.varint()
    if (tag === ((1 << 3) | LENGTH)) op = { range: rangeResponse(r.sub()) }
    else if (tag === ((2 << 3) | LENGTH)) op = { put: putResponse(r.sub()) }
    else if (tag === ((3 << 3) | LENGTH)) op = { deleteRange: deleteRangeResponse(r.sub()) }
    else r.skip(tag & 7)
  }
  return op
}

/** A RangeResponse message (without its gRPC frame). */
export function decodeRange(buf: Buffer): RangeResponse {
  return rangeResponse(new Reader(buf, 0, buf.length))
}

/** A TxnResponse message (without its gRPC frame). */
export function decodeTxn(buf: Buffer): TxnResponse {
  const r = new Reader(buf, 0, buf.length)
  const res: TxnResponse = { revision: 0, succeeded: false, responses: [] }
  while (r.more()) {
    const tag = r.varint()
    if (tag === ((1 << 3) | LENGTH)) res.revision = headerRevision(r.sub())
    else if (tag === ((2 << 3) | VARINT)) res.succeeded = r.varint() !== 0
    else if (tag === ((3 << 3) | LENGTH)) res.responses.push(responseOp(r.sub()))
    else r.skip(tag & 7)
  }
  return res
}

export interface WireWatchEvent {
  type: 'put' | 'delete'
  kv: WireKeyValue
  prevKv?: WireKeyValue
}

export interface WatchResponse {
  /** The header's revision. */
  revision: number
  created: boolean
  canceled: boolean
  compactRevision: number
  cancelReason: string
  events: WireWatchEvent[]
}

function watchEvent(r: Reader): WireWatchEvent {
  const ev: WireWatchEvent = { type: 'put', kv: { key: EMPTY, value: EMPTY, createRevision: 0, modRevision: 0 } }
  while (r.more()) {
    const tag = r.varint()
    // mvccpb.Event.EventType: PUT = 0, DELETE = 1.
    if (tag === ((1 << 3) | VARINT)) ev.type = r.varint() === 1 ? 'delete' : 'put'
    else if (tag === ((2 << 3) | LENGTH)) ev.kv = keyValue(r.sub())
    else if (tag === ((3 << 3) | LENGTH)) ev.prevKv = keyValue(r.sub())
    else r.skip(tag & 7)
  }
  return ev
}

/** A WatchResponse message (without its gRPC frame). */
export function decodeWatch(buf: Buffer): WatchResponse {
  const r = new Reader(buf, 0, buf.length)
  const res: WatchResponse = { revision: 0, created: false, canceled: false, compactRevision: 0, cancelReason: '', events: [] }
  while (r.more()) {
    const tag = r.varint()
    switch (tag) {
      case (1 << 3) | LENGTH:
        res.revision = headerRevision(r.sub())
        break
      case (3 << 3) | VARINT:
        res.created = r.varint() !== 0
        break
      case (4 << 3) | VARINT:
        res.canceled = r.varint() !== 0
        break
      case (5 << 3) | VARINT:
        res.compactRevision = r.varint()
        break
      case (6 << 3) | LENGTH:
        res.cancelReason = r.bytes().toString('utf8')
        break
      case (11 << 3) | LENGTH:
        res.events.push(watchEvent(r.sub()))
        break
      default:
        r.skip(tag & 7)
    }
  }
  return res
}
