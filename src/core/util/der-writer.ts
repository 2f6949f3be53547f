/**
 * Writing DER (X.690's distinguished encoding) from nested elements: the few universal types a
 * certificate is made of, each function returning the element's bytes. The counterpart of
 * der.ts's reader, for building a certificate without an ASN.1 library
 * (src/server/tls/certificate-der.ts).
 */

/** Tag, definite length and contents. */
export function derElement(tag: number, ...contents: Uint8Array[]): Buffer {
  const body = Buffer.concat(contents)
  const length = body.length
  let header: Buffer
  if (length < 0x80) header = Buffer.from([tag, length])
  else {
    const bytes: number[] = []
    for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff)
    header = Buffer.from([tag, 0x80 | bytes.length, ...bytes])
  }
  return Buffer.concat([header, body])
}

export const derSequence = (...items: Uint8Array[]): Buffer => derElement(0x30, ...items)
export const derSet = (...items: Uint8Array[]): Buffer => derElement(0x31, ...items)
/** A context-specific constructed (EXPLICIT) element, `[n]`. */
export const derExplicit = (n: number, ...items: Uint8Array[]): Buffer => derElement(0xa0 | n, ...items)
/** A context-specific primitive (IMPLICIT) element, `[n]`. */
export const derImplicit = (n: number, contents: Uint8Array): Buffer => derElement(0x80 | n, contents)
export const derNull = (): Buffer => Buffer.from([0x05, 0x00])
export const derBoolean = (value: boolean): Buffer => Buffer.from([0x01, 0x01, value ? 0xff : 0x00])
export const derOctetString = (bytes: Uint8Array): Buffer => derElement(0x04, bytes)
export const derUtf8String = (text: string): Buffer => derElement(0x0c, Buffer.from(text, 'utf8'))
export const derPrintableString = (text: string): Buffer => derElement(0x13, Buffer.from(text, 'latin1'))

/** A non-negative INTEGER from its big-endian magnitude (a zero byte is added when the top bit is set). */
export function derUnsignedInteger(magnitude: Uint8Array): Buffer {
  let start = 0
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++
  const bytes = magnitude.subarray(start)
  return derElement(0x02, ...(bytes.length === 0 || bytes[0]! & 0x80 ? [Buffer.from([0])] : []), bytes)
}

/** An OBJECT IDENTIFIER from its dotted form. */
export function derObjectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number)
  const out: number[] = [arcs[0]! * 40 + arcs[1]!]
  for (const arc of arcs.slice(2)) {
    const base128: number[] = [arc & 0x7f]
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) base128.unshift((n & 0x7f) | 0x80)
    out.push(...base128)
  }
  return derElement(0x06, Buffer.from(out))
}

/** A BIT STRING of whole bytes (no unused bits): keys and signatures. */
export const derBitString = (bytes: Uint8Array): Buffer => derElement(0x03, Buffer.from([0]), bytes)

/**
 * A named BIT STRING (KeyUsage) from the numbers of its set bits, bit 0 first, without trailing
 * zero bits as DER requires.
 */
export function derNamedBits(bits: readonly number[]): Buffer {
  if (bits.length === 0) return derElement(0x03, Buffer.from([0]))
  const last = Math.max(...bits)
  const bytes = Buffer.alloc(Math.floor(last / 8) + 1)
  for (const bit of bits) bytes[Math.floor(bit / 8)]! |= 0x80 >> bit % 8
  return derElement(0x03, Buffer.from([7 - (last % 8)]), bytes)
}

/** RFC 5280's Time: UTCTime through 2049, GeneralizedTime from 2050, to the second. */
export function derTime(date: Date): Buffer {
  const year = date.getUTCFullYear()
  const two = (n: number) => String(n).padStart(2, '0')
  const rest = `${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}Z`
  return year < 2050 && year >= 1950
    ? derElement(0x17, Buffer.from(`${two(year % 100)}${rest}`, 'latin1'))
    : derElement(0x18, Buffer.from(`${String(year).padStart(4, '0')}${rest}`, 'latin1'))
}
