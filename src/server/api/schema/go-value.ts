/**
 * How Go prints the decoded JSON values that field errors carry (`map[string]interface{}`,
 * `[]interface{}`, `int64`, `float64`, `string`, `bool`), so our messages read as the
 * reference's: `%q` for strings (strconv.Quote), `%v` for numbers and booleans, and
 * `json.Marshal` for maps and slices (apimachinery's field.Error.ErrorBody since 1.34).
 */

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}]|[^\P{Zs} ]/u
const SHORT_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' }

/** strconv.Quote: Go's `%q` of a string. */
export function goQuote(s: string): string {
  let out = '"'
  for (const ch of s) {
    if (ch === '"' || ch === '\\') out += `\\${ch}`
    else if (SHORT_ESCAPES[ch]) out += SHORT_ESCAPES[ch]
    else if (NON_PRINTABLE.test(ch)) {
      const cp = ch.codePointAt(0)!
      out += cp < 0x80 ? `\\x${cp.toString(16).padStart(2, '0')}` : cp < 0x10000 ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\U${cp.toString(16).padStart(8, '0')}`
    } else out += ch
  }
  return `${out}"`
}

/** Whether a decoded JSON number is an int64 in Go's unstructured decoding (else a float64). */
export function isGoInt(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63
}

/** fmt's `%v` of a float64: the shortest representation, in e-notation below 1e-4 and from 1e21. */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN'
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf'
  if (n === 0) return Object.is(n, -0) ? '-0' : '0'
  const [mantissa, expText] = n.toExponential().split('e') as [string, string]
  const exp = Number(expText)
  if (exp < -4 || exp >= 21) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`
  return String(n)
}

/** `%v` of an int64 or a float64 as decoded from JSON. */
export function goNumber(n: number): string {
  return isGoInt(n) ? String(n) : goFloat(n)
}

function jsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** encoding/json's Marshal of a decoded value: map keys sorted, HTML characters escaped. */
export function goJSON(v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'string') return jsonString(v)
  if (typeof v === 'number') return isGoInt(v) ? String(v) : jsonFloat(v)
  if (typeof v === 'boolean') return String(v)
  if (Array.isArray(v)) return `[${v.map(goJSON).join(',')}]`
  const entries = Object.keys(v as Record<string, unknown>).sort()
  return `{${entries.map((k) => `${jsonString(k)}:${goJSON((v as Record<string, unknown>)[k])}`).join(',')}}`
}

/** encoding/json's float64: like ES6 number formatting, with e-notation exponents of two digits at least. */
function jsonFloat(n: number): string {
  const abs = Math.abs(n)
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    const [m, e] = n.toExponential().split('e') as [string, string]
    const exp = Number(e)
    return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`
  }
  return String(n)
}

/**
 * The value part of a field error's body, as apimachinery's ErrorBody prints its BadValue:
 * numbers and booleans with `%v`, strings with `%q`, anything else as JSON.
 */
export function fieldValue(v: unknown): string {
  if (typeof v === 'number') return goNumber(v)
  if (typeof v === 'boolean') return String(v)
  if (typeof v === 'string') return goQuote(v)
  return goJSON(v)
}
