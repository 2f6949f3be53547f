/** Go's strconv quoting, which kubectl's messages and printers use for strings. */

const printableRe = /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u

/** strconv.IsPrint */
export function isGoPrint(ch: string): boolean {
  return ch === ' ' || printableRe.test(ch)
}

/** strconv.Quote */
export function goQuote(s: string): string {
  let out = '"'
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    if (ch === '"' || ch === '\\') out += '\\' + ch
    else if (isGoPrint(ch)) out += ch
    else if (ch === '\x07') out += '\\a'
    else if (ch === '\b') out += '\\b'
    else if (ch === '\f') out += '\\f'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (ch === '\t') out += '\\t'
    else if (ch === '\v') out += '\\v'
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0')
    else if (c < 0x10000) out += '\\u' + c.toString(16).padStart(4, '0')
    else out += '\\U' + c.toString(16).padStart(8, '0')
  }
  return out + '"'
}
