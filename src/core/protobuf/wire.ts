/**
 * Protobuf wire primitives over Node Buffers, with protobufjs's behaviour where it matters for the
 * bytes and values (varints of up to 10 bytes, int32 taken from the low 32 bits, negative int32
 * and int64 as 10-byte two's complement, int64 read as Long.toNumber would give it), but without
 * its per-call objects: the codec reads straight into the JSON form and writes straight from it.
 */

export const WIRE_VARINT = 0
const WIRE_FIXED64 = 1
export const WIRE_LENGTH = 2
const WIRE_START_GROUP = 3
const WIRE_END_GROUP = 4
const WIRE_FIXED32 = 5

const TWO_32 = 4294967296

interface NodeBuffer extends Buffer {
  utf8Slice(start: number, end: number): string
  base64Slice(start: number, end: number): string
  utf8Write(text: string, offset: number, length?: number): number
  base64Write(text: string, offset: number, length?: number): number
}

const outOfRange = (pos: number, need: number, len: number) => new RangeError(`index out of range: ${pos} + ${need} > ${len}`)

const KEY_CACHE_SIZE = 4096
const keyCache: (string | undefined)[] = new Array(KEY_CACHE_SIZE).fill(undefined)

export class Reader {
  pos: number
  readonly buf: NodeBuffer
  /** The end of the message being read (protobufjs's len): reads past it are out of range. */
  len: number

  /**
   * Where the message starts in buf: error messages give positions from there, as protobufjs
   * (which reads a copy of just the message) gives them.
   */
  readonly base: number

  constructor(buf: Buffer, start = 0, end = buf.length) {
    this.buf = buf as NodeBuffer
    this.pos = start
    this.len = end
    this.base = start
  }

  /** A varint's low 32 bits, unsigned. */
  uint32(): number {
    const buf = this.buf
    const pos = this.pos
    if (pos + 1 < this.len) {
      const b0 = buf[pos]
      if (b0 < 0x80) {
        this.pos = pos + 1
        return b0
      }
      const b1 = buf[pos + 1]
      if (b1 < 0x80) {
        this.pos = pos + 2
        return (b0 & 0x7f) | (b1 << 7)
      }
    }
    this.varint64()
    return this.lo
  }

  /** A field tag: at most 5 bytes and 32 bits, field number not 0 (as protobufjs checks). */
  tag(): number {
    const buf = this.buf
    const pos = this.pos
    if (pos + 1 < this.len) {
      const b0 = buf[pos]
      if (b0 < 0x80) {
        this.pos = pos + 1
        return b0
      }
      const b1 = buf[pos + 1]
      if (b1 < 0x80) {
        this.pos = pos + 2
        return (b0 & 0x7f) | (b1 << 7)
      }
    }
    return this.bounded(15, 'invalid tag encoding')
  }

  /** A length: at most 5 bytes, below 2^31 (protobufjs's size()). */
  size(): number {
    const buf = this.buf
    const pos = this.pos
    if (pos < this.len && buf[pos] < 0x80) {
      this.pos = pos + 1
      return buf[pos]
    }
    return this.bounded(7, 'invalid length encoding')
  }

  /** A varint of at most 5 bytes whose fifth byte is at most `last`. */
  private bounded(last: number, message: string): number {
    const buf = this.buf
    let pos = this.pos
    let value = 0
    for (let shift = 0; shift < 28; shift += 7) {
      if (pos >= this.len) throw outOfRange(pos - this.base, 1, this.len - this.base)
      const b = buf[pos++]
      value |= (b & 0x7f) << shift
      if (b < 0x80) {
        this.pos = pos
        return value >>> 0
      }
    }
    if (pos >= this.len) throw outOfRange(pos - this.base, 1, this.len - this.base)
    const b = buf[pos++]
    this.pos = pos
    if (b > last) throw new Error(message)
    return (value | (b << 28)) >>> 0
  }

  /** Low and high 32-bit halves of the last varint64() read. */
  lo = 0
  hi = 0

  varint64(): void {
    const buf = this.buf
    const len = this.len
    let pos = this.pos
    let lo = 0
    let hi = 0
    let b = 0
    for (let shift = 0; shift < 28; shift += 7) {
      if (pos >= len) throw outOfRange(pos - this.base, 1, len - this.base)
      b = buf[pos++]
      lo |= (b & 0x7f) << shift
      if (b < 0x80) {
        this.pos = pos
        this.lo = lo >>> 0
        this.hi = 0
        return
      }
    }
    if (pos >= len) throw outOfRange(pos - this.base, 1, len - this.base)
    b = buf[pos++]
    lo |= (b & 0x7f) << 28
    hi = (b & 0x7f) >> 4
    if (b >= 0x80) {
      for (let shift = 3; ; shift += 7) {
        if (shift > 31) throw new Error('invalid varint encoding')
        if (pos >= len) throw outOfRange(pos - this.base, 1, len - this.base)
        b = buf[pos++]
        hi |= (b & 0x7f) << shift
        if (b < 0x80) break
      }
    }
    this.pos = pos
    this.lo = lo >>> 0
    this.hi = hi >>> 0
  }

  int32(): number {
    return this.uint32() | 0
  }

  /** As Long.toNumber() of a signed int64. */
  int64(): number {
    this.varint64()
    return (this.hi | 0) * TWO_32 + this.lo
  }

  bool(): boolean {
    return this.uint32() !== 0
  }

  /** The end of a length-delimited string, bytes or skipped field (the caller moves pos there). */
  delimited(): number {
    const length = this.size()
    const start = this.pos
    if (start + length > this.len) throw outOfRange(start - this.base, length, this.len - this.base)
    return start + length
  }

  /** The end of an embedded message or map entry. */
  message(): number {
    const end = this.size() + this.pos
    if (end > this.len) throw new RangeError('index out of range')
    return end
  }

  string(): string {
    const end = this.delimited()
    const start = this.pos
    this.pos = end
    const length = end - start
    if (length < 10) {
      // Short ASCII strings (names, labels) are cheaper to build here than through the binding.
      const buf = this.buf
      let text = ''
      for (let i = start; i < end; i++) {
        const c = buf[i]
        if (c >= 0x80) return buf.utf8Slice(start, end)
        text += String.fromCharCode(c)
      }
      return text
    }
    return this.buf.utf8Slice(start, end)
  }

  /**
   * A map key: keys repeat across objects (label names, data keys), and a string seen before is
   * already internalized, which makes it cheaper to add as a property than a fresh copy.
   */
  key(): string {
    const end = this.delimited()
    const start = this.pos
    const length = end - start
    if (length > 40) {
      this.pos = end
      return this.buf.utf8Slice(start, end)
    }
    const buf = this.buf
    let hash = length
    let high = 0
    for (let i = start; i < end; i++) {
      const b = buf[i]
      high |= b
      hash = (Math.imul(hash, 31) + b) | 0
    }
    this.pos = end
    // Only ASCII keys are cached: their bytes are their characters.
    if (high >= 0x80) return buf.utf8Slice(start, end)
    const slot = (hash ^ (hash >>> 10)) & (KEY_CACHE_SIZE - 1)
    const cached = keyCache[slot]
    if (cached !== undefined && cached.length === length) {
      let i = 0
      while (i < length && cached.charCodeAt(i) === buf[start + i]) i++
      if (i === length) return cached
    }
    const text = buf.utf8Slice(start, end)
    keyCache[slot] = text
    return text
  }

  base64(): string {
    const end = this.delimited()
    const start = this.pos
    this.pos = end
    return this.buf.base64Slice(start, end)
  }

  /** Skips a field of an unknown number or of an unexpected wire type. */
  skip(wireType: number, field: number): void {
    if (field === 0) throw new Error('illegal tag: field number 0')
    switch (wireType) {
      case WIRE_VARINT:
        this.varint64()
        return
      case WIRE_FIXED64:
        this.advance(8)
        return
      case WIRE_LENGTH:
        this.pos = this.delimited()
        return
      case WIRE_START_GROUP:
        for (;;) {
          const tag = this.tag()
          const nested = tag >>> 3
          if (nested === 0) throw new Error('illegal tag: field number 0')
          if ((tag & 7) === WIRE_END_GROUP) {
            if (nested !== field) throw new Error('invalid end group tag')
            return
          }
          this.skip(tag & 7, nested)
        }
      case WIRE_FIXED32:
        this.advance(4)
        return
      default:
        throw new Error(`invalid wire type ${wireType} at offset ${this.pos - this.base}`)
    }
  }

  private advance(n: number): void {
    if (this.pos + n > this.len) throw outOfRange(this.pos - this.base, n, this.len - this.base)
    this.pos += n
  }
}

function varintSize(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5
}

/** The size beyond which the scratch buffer is not kept between calls. */
const SCRATCH_LIMIT = 1 << 20

let scratch: NodeBuffer | undefined

/**
 * Writes into one growing scratch buffer (encoding is synchronous and never re-entered) and hands
 * out a copy of exactly the bytes written. A length-delimited body reserves one length byte and
 * moves the body when its length needs more.
 */
export class Writer {
  buf: NodeBuffer = (scratch ??= Buffer.allocUnsafe(64 * 1024) as NodeBuffer)
  pos = 0

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.pos + n) size *= 2
    const next = Buffer.allocUnsafe(size) as NodeBuffer
    this.buf.copy(next, 0, 0, this.pos)
    this.buf = next
    scratch = next
  }

  finish(): Buffer {
    if (this.buf.length > SCRATCH_LIMIT) {
      // A large list's buffer is handed out rather than copied, and not kept for the next call.
      if (scratch === this.buf) scratch = undefined
      return this.buf.subarray(0, this.pos)
    }
    const out = Buffer.allocUnsafe(this.pos)
    this.buf.copy(out, 0, 0, this.pos)
    return out
  }

  byte(b: number): void {
    this.ensure(1)
    this.buf[this.pos++] = b
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length)
    this.buf.set(bytes, this.pos)
    this.pos += bytes.length
  }

  uint32(value: number): void {
    this.ensure(5)
    const buf = this.buf
    let pos = this.pos
    value >>>= 0
    while (value > 127) {
      buf[pos++] = (value & 127) | 128
      value >>>= 7
    }
    buf[pos++] = value
    this.pos = pos
  }

  /** protobufjs's int32: negative values as a 10-byte int64. */
  int32(value: number): void {
    if (value < 0) this.int64(value)
    else this.uint32(value)
  }

  /** protobufjs's int64 of a number (LongBits.fromNumber). */
  int64(value: number): void {
    if (value >= 0 && value < TWO_32) {
      this.uint32(value)
      return
    }
    const negative = value < 0
    if (negative) value = -value
    let lo = value >>> 0
    let hi = ((value - lo) / TWO_32) >>> 0
    if (negative) {
      hi = ~hi >>> 0
      lo = ~lo >>> 0
      if (++lo > 4294967295) {
        lo = 0
        if (++hi > 4294967295) hi = 0
      }
    }
    this.ensure(10)
    const buf = this.buf
    let pos = this.pos
    while (hi) {
      buf[pos++] = (lo & 127) | 128
      lo = ((lo >>> 7) | (hi << 25)) >>> 0
      hi >>>= 7
    }
    while (lo > 127) {
      buf[pos++] = (lo & 127) | 128
      lo >>>= 7
    }
    buf[pos++] = lo
    this.pos = pos
  }

  string(text: string): void {
    const length = text.length
    this.ensure(length * 3 + 5)
    const buf = this.buf
    const at = this.pos
    if (length < 32) {
      // Short strings (names, keys, labels) are cheaper to copy here than through the binding.
      let pos = at + 1
      let i = 0
      for (; i < length; i++) {
        const c = text.charCodeAt(i)
        if (c >= 0x80) break
        buf[pos++] = c
      }
      if (i === length) {
        buf[at] = length
        this.pos = pos
        return
      }
    }
    // Room for the length as if the text were ASCII; moved when its UTF-8 needs more (or less).
    const guess = varintSize(length)
    const bytes = buf.utf8Write(text, at + guess)
    const size = varintSize(bytes)
    if (size !== guess) buf.copyWithin(at + size, at + guess, at + guess + bytes)
    this.pos = at
    this.uint32(bytes)
    this.pos += bytes
  }

  /** A base64 text (already validated) as length-delimited bytes. */
  base64(text: string): void {
    const length = text.length
    const padding = length > 0 && text.charCodeAt(length - 1) === 0x3d ? (text.charCodeAt(length - 2) === 0x3d ? 2 : 1) : 0
    const bytes = ((length * 3) >>> 2) - padding
    this.uint32(bytes)
    this.ensure(bytes)
    this.buf.base64Write(text, this.pos, bytes)
    this.pos += bytes
  }

  /** Reserves a one-byte length; returns where it is, for ldelim(). */
  fork(): number {
    this.ensure(1)
    return this.pos++
  }

  ldelim(at: number): void {
    const length = this.pos - at - 1
    if (length < 128) {
      this.buf[at] = length
      return
    }
    let size = 1
    for (let v = length >>> 7; v > 0; v >>>= 7) size++
    this.ensure(size - 1)
    const buf = this.buf
    buf.copyWithin(at + size, at + 1, this.pos)
    this.pos += size - 1
    let v = length
    let pos = at
    while (v > 127) {
      buf[pos++] = (v & 127) | 128
      v >>>= 7
    }
    buf[pos] = v
  }
}
