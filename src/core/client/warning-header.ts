/**
 * `Warning` response headers, parsed as client-go does (apimachinery's ParseWarningHeaders):
 * `299 - "text"` with an optional quoted date, several warnings per header separated by
 * commas, backslash escapes in the text. kubectl shows code-299 warnings with a non-empty
 * text; a malformed header ends the parse of that header.
 */

interface WarningHeader {
  code: number
  agent: string
  text: string
}

/** Warnings of every given header value, in order; malformed remainders are dropped. */
export function parseWarningHeaders(values: readonly string[]): WarningHeader[] {
  const out: WarningHeader[] = []
  for (let header of values) {
    while (header.length > 0) {
      const parsed = parseWarningHeader(header)
      if (!parsed) break
      out.push(parsed.warning)
      header = parsed.remainder
    }
  }
  return out
}

/** The texts kubectl would print: code 299, non-empty. */
export function warningTexts(values: readonly string[]): string[] {
  return parseWarningHeaders(values)
    .filter((w) => w.code === 299 && w.text !== '')
    .map((w) => w.text)
}

// Control characters are refused in agent and text (unicode.IsControl: C0, DEL, C1).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

function parseWarningHeader(input: string): { warning: WarningHeader; remainder: string } | undefined {
  const header = input.trim()
  const first = header.indexOf(' ')
  const second = first === -1 ? -1 : header.indexOf(' ', first + 1)
  if (second === -1) return undefined
  const code = header.slice(0, first)
  const agent = header.slice(first + 1, second)
  const textDateRemainder = header.slice(second + 1)
  if (!/^[0-9]{3}$/.test(code) || agent === '' || CONTROL.test(agent) || textDateRemainder === '') return undefined
  const quoted = parseQuotedString(textDateRemainder)
  if (!quoted || CONTROL.test(quoted.text)) return undefined
  let rest = quoted.remainder
  let remainder = ''
  if (rest.length > 0) {
    if (rest[0] === '"') {
      const end = rest.indexOf('"', 1)
      if (end === -1) return undefined
      remainder = rest.slice(end + 1).trim()
    } else {
      remainder = rest
    }
  }
  if (remainder.length > 0) {
    if (remainder[0] !== ',') return undefined
    remainder = remainder.slice(1).trim()
  }
  rest = remainder
  return { warning: { code: Number(code), agent, text: quoted.text }, remainder: rest }
}

function parseQuotedString(s: string): { text: string; remainder: string } | undefined {
  if (s[0] !== '"') return undefined
  let text = ''
  let escaping = false
  for (let i = 1; i < s.length; i++) {
    const c = s[i]
    if (c === '"' && !escaping) return { text, remainder: s.slice(i + 1).trim() }
    if (c === '\\' && !escaping) {
      escaping = true
      continue
    }
    text += c
    escaping = false
  }
  return undefined
}
