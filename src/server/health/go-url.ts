/**
 * Go's net/url rules the health handler depends on, on raw bytes so results compare,
 * sort and quote the way Go strings do. A "byte string" here is a JS string with one
 * char per byte (latin1), which is how Go's strings behave.
 */

function unhex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10
  return -1
}

/** A JS string as the bytes Go would have received: UTF-8 for chars above 0xFF. */
function rawBytes(s: string): number[] {
  const out: number[] = []
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0
    if (code <= 0xff) out.push(code)
    else out.push(...Buffer.from(ch, 'utf8'))
  }
  return out
}

/** An escape, or a char that is more than one byte in UTF-8. */
const NEEDS_DECODING = /[%\u0100-\uffff]/

/**
 * Go's unescape: `%XX` decodes, any other `%` is an error (null); in query mode `+` is a
 * space. Returns a byte string.
 */
export function goUnescape(s: string, mode: 'path' | 'query'): string | null {
  // Nothing to decode (a probe's path): the byte string is the string itself.
  if (!NEEDS_DECODING.test(s) && (mode === 'path' || !s.includes('+'))) return s
  const bytes = rawBytes(s)
  const out: number[] = []
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]
    if (b === 0x25) {
      const hi = i + 2 < bytes.length ? unhex(bytes[i + 1]) : -1
      const lo = i + 2 < bytes.length ? unhex(bytes[i + 2]) : -1
      if (hi < 0 || lo < 0) return null
      out.push(hi * 16 + lo)
      i += 2
    } else if (b === 0x2b && mode === 'query') {
      out.push(0x20)
    } else {
      out.push(b)
    }
  }
  return Buffer.from(out).toString('latin1')
}

/**
 * Go's url.ParseQuery, errors ignored as `r.URL.Query()` does: pairs split on `&`; a pair
 * containing `;` is dropped whole; empty pairs are skipped; a pair whose key or value
 * fails to unescape is dropped. Keys and values are byte strings.
 */
export function goParseQuery(rawQuery: string): Map<string, string[]> {
  const values = new Map<string, string[]>()
  for (const pair of rawQuery.split('&')) {
    if (pair.includes(';') || pair === '') continue
    const eq = pair.indexOf('=')
    const key = goUnescape(eq < 0 ? pair : pair.slice(0, eq), 'query')
    const value = goUnescape(eq < 0 ? '' : pair.slice(eq + 1), 'query')
    if (key === null || value === null) continue
    const list = values.get(key)
    if (list) list.push(value)
    else values.set(key, [value])
  }
  return values
}

/** A JS (UTF-16) string as a byte string of its UTF-8 encoding. */
export function toByteString(s: string): string {
  return Buffer.from(s, 'utf8').toString('latin1')
}

/** Go's utf8.DecodeRune on bytes: [rune, width], or [-1, 1] for an invalid sequence. */
function decodeRune(b: string, i: number): [number, number] {
  const c0 = b.charCodeAt(i)
  if (c0 < 0x80) return [c0, 1]
  const cont = (k: number): number => {
    const c = i + k < b.length ? b.charCodeAt(i + k) : -1
    return c >= 0x80 && c <= 0xbf ? c & 0x3f : -1
  }
  if (c0 >= 0xc2 && c0 <= 0xdf) {
    const c1 = cont(1)
    return c1 < 0 ? [-1, 1] : [((c0 & 0x1f) << 6) | c1, 2]
  }
  if (c0 >= 0xe0 && c0 <= 0xef) {
    const c1 = cont(1)
    const c2 = cont(2)
    if (c1 < 0 || c2 < 0) return [-1, 1]
    const r = ((c0 & 0x0f) << 12) | (c1 << 6) | c2
    if (r < 0x800 || (r >= 0xd800 && r <= 0xdfff)) return [-1, 1]
    return [r, 3]
  }
  if (c0 >= 0xf0 && c0 <= 0xf4) {
    const c1 = cont(1)
    const c2 = cont(2)
    const c3 = cont(3)
    if (c1 < 0 || c2 < 0 || c3 < 0) return [-1, 1]
    const r = ((c0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3
    if (r < 0x10000 || r > 0x10ffff) return [-1, 1]
    return [r, 4]
  }
  return [-1, 1]
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0')

/** Go's `%q` (strconv.Quote) of a byte string, as a JS string (invalid UTF-8 bytes escaped). */
export function goQuote(b: string): string {
  let out = '"'
  for (let i = 0; i < b.length; ) {
    const [r, width] = decodeRune(b, i)
    if (r < 0) {
      out += `\\x${hex(b.charCodeAt(i), 2)}`
      i += 1
      continue
    }
    i += width
    const ch = String.fromCodePoint(r)
    if (r === 0x22 || r === 0x5c) out += `\\${ch}`
    else if (r === 0x20 || PRINTABLE.test(ch)) out += ch
    else if (r === 0x07) out += '\\a'
    else if (r === 0x08) out += '\\b'
    else if (r === 0x0c) out += '\\f'
    else if (r === 0x0a) out += '\\n'
    else if (r === 0x0d) out += '\\r'
    else if (r === 0x09) out += '\\t'
    else if (r === 0x0b) out += '\\v'
    else if (r < 0x20 || r === 0x7f) out += `\\x${hex(r, 2)}`
    else if (r < 0x10000) out += `\\u${hex(r, 4)}`
    else out += `\\U${hex(r, 8)}`
  }
  return `${out}"`
}

/** The reference's formatQuoted: sorted (byte order), each `%q`, joined by `,`. */
export function formatQuoted(names: Iterable<string>): string {
  return [...names]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map(goQuote)
    .join(',')
}
