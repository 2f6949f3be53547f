/** Small renderings of Go values that kubectl's messages embed. */

/** Go's `%q` for a string: double quotes, C-style escapes, printable Unicode kept as is. */
export function goQuote(s: string): string {
  let out = '"'
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    if (ch === '"') out += '\\"'
    else if (ch === '\\') out += '\\\\'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\t') out += '\\t'
    else if (ch === '\r') out += '\\r'
    else if (c === 7) out += '\\a'
    else if (c === 8) out += '\\b'
    else if (c === 12) out += '\\f'
    else if (c === 11) out += '\\v'
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0')
    else if (c >= 0x80 && c < 0xa0) out += '\\u' + c.toString(16).padStart(4, '0')
    else out += ch
  }
  return out + '"'
}

/** klog's header for a warning line: `W1122 00:34:13.014838   19568 helpers.go:702] `. */
export function klogWarning(message: string, where = 'helpers.go:702', now = new Date()): string {
  const p2 = (n: number) => String(n).padStart(2, '0')
  const micro = String(now.getMilliseconds() * 1000).padStart(6, '0')
  const header = `W${p2(now.getMonth() + 1)}${p2(now.getDate())} ${p2(now.getHours())}:${p2(now.getMinutes())}:${p2(now.getSeconds())}.${micro} ${String(process.pid).padStart(7, ' ')} ${where}] `
  return header + message + '\n'
}
