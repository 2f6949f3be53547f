/**
 * The server side of a SPDY/3.1 connection as the kubelet speaks it for port-forward
 * (k8s.io/apimachinery's httpstream/spdy over moby/spdystream): the client opens streams with
 * SYN_STREAM (headers in a zlib stream primed with SPDY/3's dictionary), the server accepts
 * each with an empty SYN_REPLY, and both sides send DATA frames, FIN to half-close, RST_STREAM to
 * abandon a stream, PING echoed, GOAWAY to end. spdystream keeps no flow-control windows, so
 * WINDOW_UPDATE and SETTINGS are ignored and never sent.
 *
 * Header blocks this side sends are zlib streams of stored (uncompressed) blocks, each block
 * list ended as a sync flush ends it: valid for any inflater, and written synchronously, so that a stream's SYN_REPLY always precedes its data
 * (spdystream drops data on a stream not yet replied).
 */
import { Duplex } from 'node:stream'
import { type Inflate, constants as zlibConstants, createInflate } from 'node:zlib'
import { SPDY3_DICTIONARY, SPDY3_DICTIONARY_ADLER32 } from './spdy-dictionary.js'

const VERSION = 3
const SYN_STREAM = 1
const SYN_REPLY = 2
const RST_STREAM = 3
const PING = 6
const GOAWAY = 7
const FLAG_FIN = 0x01
/** RST_STREAM status: the stream was cancelled (spdystream's Reset). */
export const RST_CANCEL = 5
const MAX_DATA = 32 * 1024

/** One stream the client opened: its headers, and its data both ways as a Duplex. */
export class SpdyStream extends Duplex {
  private remoteClosed = false
  private localClosed = false

  constructor(
    readonly id: number,
    readonly headers: ReadonlyMap<string, string>,
    private readonly session: SpdyServerSession,
  ) {
    super({ allowHalfOpen: true })
  }

  override _read(): void {}

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    for (let i = 0; i < chunk.length; i += MAX_DATA) this.session.sendData(this.id, chunk.subarray(i, i + MAX_DATA), false)
    done()
  }

  override _final(done: (err?: Error | null) => void): void {
    this.closeLocal()
    done()
  }

  /** Half-closes this side (an empty DATA frame with FIN), as spdystream's Close. */
  closeLocal(): void {
    if (this.localClosed) return
    this.localClosed = true
    this.session.sendData(this.id, Buffer.alloc(0), true)
    this.session.forgetIfDone(this)
  }

  /** Abandons the stream both ways (RST_STREAM CANCEL), as spdystream's Reset. */
  reset(): void {
    if (!this.localClosed) this.session.sendReset(this.id, RST_CANCEL)
    this.localClosed = true
    this.remoteEnded()
    this.destroy()
  }

  /** @internal data from the client. */
  received(data: Buffer, fin: boolean): void {
    if (data.length > 0 && !this.remoteClosed) this.push(data)
    if (fin) this.remoteEnded()
  }

  /** @internal the client half-closed (FIN) or reset the stream, or the connection ended. */
  remoteEnded(): void {
    if (this.remoteClosed) return
    this.remoteClosed = true
    this.push(null)
    this.session.forgetIfDone(this)
  }

  get done(): boolean {
    return this.remoteClosed && this.localClosed
  }
}

export interface SpdySessionOptions {
  /** Bytes to the client, in order. */
  write(data: Buffer): void
  /** A stream the client opened (already replied to). */
  onStream(stream: SpdyStream): void
  /** The connection ended (GOAWAY, a protocol error, or the transport closed). */
  onClose(): void
}

export class SpdyServerSession {
  private pending: Buffer = Buffer.alloc(0)
  private readonly streams = new Map<number, SpdyStream>()
  private readonly inflater: Inflate = createInflate({ dictionary: SPDY3_DICTIONARY })
  private inflateQueue: Promise<void> = Promise.resolve()
  private headerStreamStarted = false
  private closed = false

  constructor(private readonly options: SpdySessionOptions) {
    this.inflater.on('error', () => this.close())
  }

  /** Bytes from the client: every complete frame is handled in order. */
  receive(data: Buffer): void {
    if (this.closed) return
    this.pending = this.pending.length === 0 ? data : Buffer.concat([this.pending, data])
    while (this.pending.length >= 8) {
      const length = this.pending.readUInt32BE(4) & 0xffffff
      if (this.pending.length < 8 + length) break
      const frame = this.pending.subarray(0, 8 + length)
      this.pending = this.pending.subarray(8 + length)
      // Header blocks inflate asynchronously: every frame waits for those before it.
      this.inflateQueue = this.inflateQueue.then(() => this.handle(frame)).catch(() => this.close())
    }
  }

  /** Ends the connection: every stream sees its end, then onClose. */
  close(): void {
    if (this.closed) return
    this.closed = true
    for (const stream of this.streams.values()) {
      stream.remoteEnded()
      stream.destroy()
    }
    this.streams.clear()
    this.inflater.close()
    this.options.onClose()
  }

  /** Sends GOAWAY and ends the connection (spdystream's Close). */
  goAway(): void {
    if (this.closed) return
    const body = Buffer.alloc(8)
    body.writeUInt32BE(0, 0)
    body.writeUInt32BE(0, 4)
    this.options.write(controlFrame(GOAWAY, 0, body))
    this.close()
  }

  sendData(id: number, data: Buffer, fin: boolean): void {
    if (this.closed) return
    const head = Buffer.alloc(8)
    head.writeUInt32BE(id & 0x7fffffff, 0)
    head.writeUInt32BE(((fin ? FLAG_FIN : 0) << 24) | data.length, 4)
    this.options.write(data.length === 0 ? head : Buffer.concat([head, data]))
  }

  sendReset(id: number, status: number): void {
    if (this.closed) return
    const body = Buffer.alloc(8)
    body.writeUInt32BE(id & 0x7fffffff, 0)
    body.writeUInt32BE(status, 4)
    this.options.write(controlFrame(RST_STREAM, 0, body))
  }

  forgetIfDone(stream: SpdyStream): void {
    if (stream.done) this.streams.delete(stream.id)
  }

  private async handle(frame: Buffer): Promise<void> {
    if (this.closed) return
    const flags = frame[4]!
    const body = frame.subarray(8)
    if ((frame[0]! & 0x80) === 0) {
      this.streams.get(frame.readUInt32BE(0) & 0x7fffffff)?.received(body, (flags & FLAG_FIN) !== 0)
      return
    }
    const type = frame.readUInt16BE(2)
    if (type === SYN_STREAM) {
      const id = body.readUInt32BE(0) & 0x7fffffff
      const headers = decodeHeaderBlock(await this.inflate(body.subarray(10)))
      if (this.closed) return
      const stream = new SpdyStream(id, headers, this)
      this.streams.set(id, stream)
      this.sendReply(id)
      if ((flags & FLAG_FIN) !== 0) stream.remoteEnded()
      this.options.onStream(stream)
    } else if (type === RST_STREAM) {
      const stream = this.streams.get(body.readUInt32BE(0) & 0x7fffffff)
      if (stream) {
        this.streams.delete(stream.id)
        stream.remoteEnded()
        stream.destroy()
      }
    } else if (type === PING) {
      this.options.write(frame)
    } else if (type === GOAWAY) {
      this.close()
    } else if (type === SYN_REPLY || type === 8 /* HEADERS */) {
      // Header blocks share the inflater's history: read them even when unused.
      await this.inflate(body.subarray(4))
    }
  }

  private sendReply(id: number): void {
    const streamId = Buffer.alloc(4)
    streamId.writeUInt32BE(id & 0x7fffffff, 0)
    this.options.write(controlFrame(SYN_REPLY, 0, Buffer.concat([streamId, this.storedHeaderBlock(encodeHeaderBlock(new Map()))])))
  }

  /** A header block in this connection's zlib stream, as stored blocks (see the file's comment). */
  private storedHeaderBlock(raw: Buffer): Buffer {
    const parts: Buffer[] = []
    if (!this.headerStreamStarted) {
      this.headerStreamStarted = true
      const cmf = 0x78
      let flg = 0x20 // FDICT, fastest level
      flg += (31 - ((cmf * 256 + flg) % 31)) % 31
      const dictId = Buffer.alloc(4)
      dictId.writeUInt32BE(SPDY3_DICTIONARY_ADLER32, 0)
      parts.push(Buffer.from([cmf, flg & 0xff]), dictId)
    }
    for (let i = 0; i < raw.length; i += 0xffff) {
      const block = raw.subarray(i, i + 0xffff)
      const head = Buffer.alloc(5)
      head[0] = 0 // not final, stored
      head.writeUInt16LE(block.length, 1)
      head.writeUInt16LE(~block.length & 0xffff, 3)
      parts.push(head, block)
    }
    // The empty stored block a sync flush ends with: inflaters (Go's flate) hand over the
    // block's bytes when they reach it, without reading past the frame.
    parts.push(Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]))
    return Buffer.concat(parts)
  }

  private inflate(data: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = []
      const onData = (chunk: Buffer) => chunks.push(chunk)
      const onError = (err: Error) => {
        this.inflater.off('data', onData)
        reject(err)
      }
      this.inflater.on('data', onData)
      this.inflater.once('error', onError)
      this.inflater.write(data)
      this.inflater.flush(zlibConstants.Z_SYNC_FLUSH, () => {
        this.inflater.off('data', onData)
        this.inflater.off('error', onError)
        resolve(Buffer.concat(chunks))
      })
    })
  }
}

function controlFrame(type: number, flags: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt16BE(0x8000 | VERSION, 0)
  head.writeUInt16BE(type, 2)
  head.writeUInt32BE((flags << 24) | body.length, 4)
  return Buffer.concat([head, body])
}

/** A name/value header block (SPDY/3: 32-bit counts and lengths; several values joined by NUL). */
export function decodeHeaderBlock(raw: Buffer): Map<string, string> {
  const headers = new Map<string, string>()
  let at = 4
  const count = raw.length >= 4 ? raw.readUInt32BE(0) : 0
  for (let i = 0; i < count && at + 4 <= raw.length; i++) {
    const nameLength = raw.readUInt32BE(at)
    const name = raw.toString('latin1', at + 4, at + 4 + nameLength)
    at += 4 + nameLength
    const valueLength = raw.readUInt32BE(at)
    const value = raw.toString('latin1', at + 4, at + 4 + valueLength)
    at += 4 + valueLength
    headers.set(name.toLowerCase(), value.split('\0')[0] ?? '')
  }
  return headers
}

export function encodeHeaderBlock(headers: ReadonlyMap<string, string>): Buffer {
  const parts: Buffer[] = [u32(headers.size)]
  for (const [name, value] of headers) {
    const n = Buffer.from(name.toLowerCase(), 'latin1')
    const v = Buffer.from(value, 'latin1')
    parts.push(u32(n.length), n, u32(v.length), v)
  }
  return Buffer.concat(parts)
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n, 0)
  return b
}
