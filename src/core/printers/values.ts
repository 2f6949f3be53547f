/**
 * The value model the printers work on, and Go-compatible formatting of it.
 *
 * Objects are plain JSON-like trees. Numbers follow kubectl's unstructured decoding:
 * - a JS `number` that is an integer within int64 range is an int64, any other `number` is a float64;
 * - a `bigint` is an int64 (use it for integers beyond 2^53, e.g. 9007199254740993);
 * - `null` is Go's nil.
 * kubectl never holds a whole-number float64 after `patch` (the result goes through JSON text and
 * is re-decoded), so this model is exact for what `client patch` prints.
 */
import { goQuote, isGoPrint } from '../util/go-quote.js'

export { goQuote, isGoPrint }

export type GoValue = null | boolean | string | number | bigint | GoValue[] | { [key: string]: GoValue }

const INT64_LIMIT = 9223372036854775808 // 2^63 as a float

export function isInt(v: unknown): v is number | bigint {
  return typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < INT64_LIMIT && !Object.is(v, -0))
}

export function isMap(v: unknown): v is Record<string, GoValue> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

export function sortedKeys(o: Record<string, unknown>): string[] {
  return Object.keys(o).sort(compareGoStrings)
}

/** Go compares strings by bytes (UTF-8); for BMP text that is code-unit order except surrogates. */
function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0
  const ba = Buffer.from(a, 'utf8')
  const bb = Buffer.from(b, 'utf8')
  return Buffer.compare(ba, bb)
}

/**
 * Parses JSON the way kubectl's unstructured decoder does: integer literals become int64
 * (a `number`, or a `bigint` when beyond 2^53), other numbers float64 (`number`).
 * Integer literals beyond int64 become floats.
 */
export function parseGoJson(text: string): GoValue {
  let i = 0
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++
  }
  const fail = (msg: string): never => {
    throw new SyntaxError(`${msg} at offset ${i}`)
  }
  const value = (): GoValue => {
    ws()
    const c = text[i]
    if (c === '{') {
      i++
      const o: Record<string, GoValue> = {}
      ws()
      if (text[i] === '}') {
        i++
        return o
      }
      for (;;) {
        ws()
        if (text[i] !== '"') fail('expected string')
        const k = str()
        ws()
        if (text[i++] !== ':') fail('expected :')
        o[k] = value()
        ws()
        const d = text[i++]
        if (d === '}') return o
        if (d !== ',') fail('expected , or }')
      }
    }
    if (c === '[') {
      i++
      const a: GoValue[] = []
      ws()
      if (text[i] === ']') {
        i++
        return a
      }
      for (;;) {
        a.push(value())
        ws()
        const d = text[i++]
        if (d === ']') return a
        if (d !== ',') fail('expected , or ]')
      }
    }
    if (c === '"') return str()
    if (text.startsWith('true', i)) {
      i += 4
      return true
    }
    if (text.startsWith('false', i)) {
      i += 5
      return false
    }
    if (text.startsWith('null', i)) {
      i += 4
      return null
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/.exec(text.slice(i))
    if (!m) return fail('unexpected character')
    i += m[0].length
    return numberFromLiteral(m[0])
  }
  const str = (): string => {
    const start = i
    i++
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++
      i++
    }
    i++
    return JSON.parse(text.slice(start, i)) as string
  }
  const v = value()
  ws()
  if (i < text.length) fail('trailing data')
  return v
}

function numberFromLiteral(lit: string): number | bigint {
  if (/^-?\d+$/.test(lit)) {
    const b = BigInt(lit)
    if (b >= -(2n ** 63n) && b < 2n ** 63n) {
      return Number.isSafeInteger(Number(b)) ? Number(b) : b
    }
    return Number(lit)
  }
  return Number(lit)
}

// ---------------------------------------------------------------------------------------------
// Number formatting

/** Shortest decimal digits and decimal-point position of a finite non-zero float (like strconv). */
function shortestDigits(f: number): { digits: string; dp: number } {
  const e = Math.abs(f).toExponential() // shortest round-trip mantissa
  const [mant, exp] = e.split('e') as [string, string]
  const digits = mant.replace('.', '')
  return { digits, dp: Number(exp) + 1 }
}

function expSuffix(exp: number): string {
  const sign = exp < 0 ? '-' : '+'
  const a = Math.abs(exp)
  return `e${sign}${a < 10 ? '0' : ''}${a}`
}

/** strconv.FormatFloat(f, 'g', -1, 64) — what fmt's %v prints for a float64. */
export function formatFloatG(f: number): string {
  if (Number.isNaN(f)) return 'NaN'
  if (f === Infinity) return '+Inf'
  if (f === -Infinity) return '-Inf'
  if (f === 0) return Object.is(f, -0) ? '-0' : '0'
  const neg = f < 0 ? '-' : ''
  const { digits, dp } = shortestDigits(f)
  const exp = dp - 1
  // %e when exp < -4 || exp >= eprec; eprec is 6 for the shortest representation
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
    return `${neg}${m}${expSuffix(exp)}`
  }
  return neg + fixedFromDigits(digits, dp)
}

function fixedFromDigits(digits: string, dp: number): string {
  if (dp <= 0) return `0.${'0'.repeat(-dp)}${digits}`
  if (dp >= digits.length) return digits + '0'.repeat(dp - digits.length)
  return `${digits.slice(0, dp)}.${digits.slice(dp)}`
}

/** encoding/json's float64 format. */
function formatFloatJSON(f: number): string {
  if (!Number.isFinite(f)) throw new Error(`json: unsupported value: ${formatFloatG(f)}`)
  return String(f) // JS and Go agree: shortest digits, exponent form below 1e-6 and from 1e21
}

export function formatInt(v: number | bigint): string {
  return typeof v === 'bigint' ? v.toString() : String(v)
}

// ---------------------------------------------------------------------------------------------
// JSON (encoding/json: sorted keys, HTML escaping)

function goJsonString(s: string): string {
  let out = '"'
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    if (ch === '"') out += '\\"'
    else if (ch === '\\') out += '\\\\'
    else if (c < 0x20) {
      if (ch === '\n') out += '\\n'
      else if (ch === '\r') out += '\\r'
      else if (ch === '\t') out += '\\t'
      else out += '\\u00' + c.toString(16).padStart(2, '0')
    } else if (ch === '<' || ch === '>' || ch === '&') out += '\\u00' + c.toString(16)
    else if (c === 0x2028 || c === 0x2029) out += '\\u' + c.toString(16)
    else out += ch
  }
  return out + '"'
}

export function goJson(v: unknown, indent = '', prefix = ''): string {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'string') return goJsonString(v)
  if (isInt(v)) return formatInt(v)
  if (typeof v === 'number') return formatFloatJSON(v)
  const nl = indent ? '\n' : ''
  const inner = prefix + indent
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]'
    return `[${nl}${v.map((e) => inner + goJson(e, indent, inner)).join(',' + nl)}${nl}${indent ? prefix : ''}]`
  }
  if (isMap(v)) {
    const keys = sortedKeys(v)
    if (keys.length === 0) return '{}'
    const sep = indent ? ': ' : ':'
    return `{${nl}${keys.map((k) => inner + goJsonString(k) + sep + goJson(v[k], indent, inner)).join(',' + nl)}${nl}${indent ? prefix : ''}}`
  }
  throw new Error(`cannot encode ${typeof v}`)
}

// ---------------------------------------------------------------------------------------------
// fmt: %v, %+v, %#v, %q of the value model

/** strconv.QuoteRune */
export function goQuoteRune(r: number): string {
  if (r < 0 || r > 0x10ffff || (r >= 0xd800 && r < 0xe000)) r = 0xfffd
  const ch = String.fromCodePoint(r)
  if (ch === "'") return "'\\''"
  if (ch === '"') return `'"'`
  const q = goQuote(ch)
  return `'${q.slice(1, -1)}'`
}

/** Go type name of a value held in an interface{}. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'string') return 'string'
  if (isInt(v)) return 'int64'
  if (typeof v === 'number') return 'float64'
  if (Array.isArray(v)) return '[]interface {}'
  return 'map[string]interface {}'
}

/** fmt's %v (and %+v, identical for these types). */
export function goSprintV(v: unknown, top = true): string {
  if (v === null || v === undefined) return '<nil>'
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'string') return v
  if (isInt(v)) return formatInt(v)
  if (typeof v === 'number') return formatFloatG(v)
  if (Array.isArray(v)) return `[${v.map((e) => goSprintV(e, false)).join(' ')}]`
  if (isMap(v)) return `map[${sortedKeys(v).map((k) => `${k}:${goSprintV(v[k], false)}`).join(' ')}]`
  void top
  return String(v)
}

/** fmt's %#v */
export function goSprintSharpV(v: unknown, inInterface = false): string {
  if (v === null || v === undefined) return 'interface {}(nil)'
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'string') return goQuote(v)
  if (isInt(v)) return formatInt(v)
  if (typeof v === 'number') return formatFloatG(v)
  if (Array.isArray(v)) return `[]interface {}{${v.map((e) => goSprintSharpV(e, true)).join(', ')}}`
  if (isMap(v)) return `map[string]interface {}{${sortedKeys(v).map((k) => `${goQuote(k)}:${goSprintSharpV(v[k], true)}`).join(', ')}}`
  void inInterface
  return String(v)
}
