/**
 * Go's renderings of values that validation messages print, so messages match the
 * reference byte for byte: `%q` (strconv.Quote), `%v` of numbers, floats and containers, and
 * `json.Marshal` (sorted map keys, HTML-safe escapes), which field errors use for a bad value
 * that is neither a string, a number nor a bool.
 */

/** A value already rendered as the reference prints it (a fmt.Stringer, a `%#v` struct). */
export class Rendered {
  constructor(readonly text: string) {}
}

/** A number the reference holds as a float64 (printed with `%v`: 1e+06, 0.5), not an integer. */
export class Float64 {
  constructor(readonly value: number) {}
}

/** Go's strconv.Quote: printable characters as they are, the rest escaped the Go way. */
export function goQuote(s: string): string {
  let out = '"'
  for (const ch of s) {
    const cp = ch.codePointAt(0)!
    switch (ch) {
      case '"':
        out += '\\"'
        continue
      case '\\':
        out += '\\\\'
        continue
      case '\x07':
        out += '\\a'
        continue
      case '\b':
        out += '\\b'
        continue
      case '\f':
        out += '\\f'
        continue
      case '\n':
        out += '\\n'
        continue
      case '\r':
        out += '\\r'
        continue
      case '\t':
        out += '\\t'
        continue
      case '\v':
        out += '\\v'
        continue
    }
    if (isGoPrintable(cp)) out += ch
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\ufffd'
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`
    else out += `\\U${cp.toString(16).padStart(8, '0')}`
  }
  return `${out}"`
}

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Zl}\p{Zp}]|[\p{Zs}]/u

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isGoPrintable(cp: number): boolean {
  if (cp === 0x20) return true
  if (cp < 0x20 || cp === 0x7f) return false
  return !NON_PRINTABLE.test(String.fromCodePoint(cp))
}

/** `%v` of a float64 (strconv 'g' with the shortest precision, exponent at 1e+06 and 1e-05). */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN'
  if (n === Infinity) return '+Inf'
  if (n === -Infinity) return '-Inf'
  if (n === 0) return Object.is(n, -0) ? '-0' : '0'
  const [mantissa, expText] = n.toExponential().split('e') as [string, string]
  const exp = Number(expText)
  if (exp < -4 || exp >= 21) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`
  if (exp >= 6) return `${mantissa}e+${String(exp).padStart(2, '0')}`
  return String(n)
}

/** `%v` (and `%d`) of an integer, without JavaScript's exponent for large ones. */
export function goInt(n: number): string {
  return Number.isSafeInteger(n) ? String(n) : BigInt(Math.trunc(n)).toString()
}

/** Go's json.Marshal of a decoded JSON value: map keys sorted, `<`, `>`, `&`, U+2028/9 escaped. */
export function goJSON(v: unknown): string {
  if (v === undefined || v === null) return 'null'
  if (v instanceof Rendered) return v.text
  if (v instanceof Float64) return jsonNumber(v.value)
  switch (typeof v) {
    case 'string':
      return jsonString(v)
    case 'number':
      return jsonNumber(v)
    case 'boolean':
      return String(v)
    case 'bigint':
      return v.toString()
    default:
      break
  }
  if (Array.isArray(v)) return `[${v.map(goJSON).join(',')}]`
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined)
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, x]) => `${jsonString(k)}:${goJSON(x)}`).join(',')}}`
  }
  return jsonString(String(v))
}

function jsonNumber(n: number): string {
  if (!Number.isFinite(n)) return 'null'
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return goInt(n)
  // encoding/json: 'f' between 1e-6 and 1e21, else 'e' with a two-digit exponent trimmed.
  return String(n)
}

function jsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/**
 * `%v` of a value: strings bare, numbers as integers (Float64 as floats), slices as
 * `[a b]`, maps as `map[k:v]` with sorted keys, nil as `<nil>`.
 */
export function goV(v: unknown): string {
  if (v === undefined || v === null) return '<nil>'
  if (v instanceof Rendered) return v.text
  if (v instanceof Float64) return goFloat(v.value)
  if (typeof v === 'string') return v
  if (typeof v === 'number') return Number.isInteger(v) ? goInt(v) : goFloat(v)
  if (typeof v === 'boolean' || typeof v === 'bigint') return String(v)
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`
  if (typeof v === 'object') {
    const keys = Object.keys(v as object).sort()
    return `map[${keys.map((k) => `${k}:${goV((v as Record<string, unknown>)[k])}`).join(' ')}]`
  }
  return String(v)
}

/** A field of a Go struct as encoding/json writes it: its JSON name, and whether empty values are omitted. */
export type StructField = readonly [name: string, omitEmpty?: boolean]

/**
 * json.Marshal of a Go struct (fields in declaration order, not sorted) from its decoded
 * JSON form, for the bad values the reference passes as structs (owner references...).
 */
export function structJSON(value: unknown, fields: readonly StructField[]): Rendered {
  const o = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>
  const parts: string[] = []
  for (const [name, omitEmpty] of fields) {
    const v = o[name]
    const empty = v === undefined || v === null || v === '' || v === 0 || v === false || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && Object.keys(v).length === 0)
    if (omitEmpty && empty) continue
    parts.push(`${JSON.stringify(name)}:${v === undefined ? 'null' : goJSON(v)}`)
  }
  return new Rendered(`{${parts.join(',')}}`)
}
