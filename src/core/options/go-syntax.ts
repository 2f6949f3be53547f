/**
 * Value syntax of the reference server's flags: Go's strconv and time parsers, with their
 * exact error texts, because users compare our messages with what the reference prints.
 */

/** Go's strconv.Quote for the printable ASCII texts flags carry. */
export function goQuote(s: string): string {
  return JSON.stringify(s)
}

export class GoSyntaxError extends Error {}

const BOOL_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True'])
const BOOL_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False'])

export function parseGoBool(s: string): boolean {
  if (BOOL_TRUE.has(s)) return true
  if (BOOL_FALSE.has(s)) return false
  throw new GoSyntaxError(`strconv.ParseBool: parsing ${goQuote(s)}: invalid syntax`)
}

/**
 * Go's rule for `_` in number literals: only between digits, or between a base prefix and a
 * digit (strconv's underscoreOK).
 */
function underscoreOK(text: string): boolean {
  let s = text
  if (s.startsWith('-') || s.startsWith('+')) s = s.slice(1)
  let saw = '^'
  let i = 0
  let hex = false
  if (s.length >= 2 && s[0] === '0' && 'box'.includes(s[1].toLowerCase())) {
    i = 2
    saw = '0'
    hex = s[1].toLowerCase() === 'x'
  }
  for (; i < s.length; i++) {
    const c = s[i]
    if ((c >= '0' && c <= '9') || (hex && c.toLowerCase() >= 'a' && c.toLowerCase() <= 'f')) {
      saw = '0'
      continue
    }
    if (c === '_') {
      if (saw !== '0') return false
      saw = '_'
      continue
    }
    if (saw === '_') return false
    saw = '!'
  }
  return saw !== '_'
}

/** strconv.ParseInt(s, 0, 64) or ParseUint(s, 0, 64), as pflag's int and uint use them. */
export function parseGoInt(s: string, fn: 'ParseInt' | 'ParseUint' | 'Atoi' = 'ParseInt'): number {
  const fail = (why: string) => new GoSyntaxError(`strconv.${fn}: parsing ${goQuote(s)}: ${why}`)
  let body = s
  let negative = false
  if (fn !== 'ParseUint' && (body.startsWith('-') || body.startsWith('+'))) {
    negative = body.startsWith('-')
    body = body.slice(1)
  }
  if (body === '') throw fail('invalid syntax')
  let base = 10
  let digits = body
  if (fn !== 'Atoi') {
    const lower = body.toLowerCase()
    if (lower.startsWith('0x')) [base, digits] = [16, body.slice(2)]
    else if (lower.startsWith('0o')) [base, digits] = [8, body.slice(2)]
    else if (lower.startsWith('0b')) [base, digits] = [2, body.slice(2)]
    else if (body.length > 1 && body.startsWith('0')) [base, digits] = [8, body.slice(1)]
    // With base 0 (as pflag parses), `_` may separate digits.
    if (digits.includes('_')) {
      if (!underscoreOK(s)) throw fail('invalid syntax')
      digits = digits.replace(/_/g, '')
    }
  }
  const alphabet = '0123456789abcdef'.slice(0, base)
  if (digits === '' || ![...digits.toLowerCase()].every((c) => alphabet.includes(c))) throw fail('invalid syntax')
  const big = BigInt(base === 10 ? digits : `0${base === 16 ? 'x' : base === 8 ? 'o' : 'b'}${digits}`)
  const value = negative ? -big : big
  const [min, max] =
    fn === 'ParseUint' ? [0n, 2n ** 64n - 1n] : [-(2n ** 63n), 2n ** 63n - 1n]
  if (value < min || value > max) throw fail('value out of range')
  return Number(value)
}

const FLOAT_DECIMAL = /^[+-]?(\d(_?\d)*(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)([eE][+-]?\d(_?\d)*)?$/
const FLOAT_HEX = /^[+-]?0[xX]([0-9a-fA-F]+(\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)[pP][+-]?\d+$/
const FLOAT_SPECIAL = /^[+-]?(inf|infinity|nan)$/i

export function parseGoFloat(s: string): number {
  if (FLOAT_SPECIAL.test(s)) {
    const lower = s.toLowerCase()
    if (lower.endsWith('nan')) return Number.NaN
    return lower.startsWith('-') ? -Infinity : Infinity
  }
  if (s.includes('_')) {
    if (!underscoreOK(s)) throw new GoSyntaxError(`strconv.ParseFloat: parsing ${goQuote(s)}: invalid syntax`)
    return parseGoFloatDigits(s, s.replace(/_/g, ''))
  }
  return parseGoFloatDigits(s, s)
}

function parseGoFloatDigits(original: string, s: string): number {
  if (FLOAT_HEX.test(s)) {
    const m = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/.exec(s)!
    const mantissa = parseInt(m[2] || '0', 16) + (m[3] ? parseInt(m[3], 16) / 16 ** m[3].length : 0)
    return (m[1] === '-' ? -1 : 1) * mantissa * 2 ** Number(m[4])
  }
  if (!FLOAT_DECIMAL.test(s)) throw new GoSyntaxError(`strconv.ParseFloat: parsing ${goQuote(original)}: invalid syntax`)
  const value = Number(s)
  if (!Number.isFinite(value)) throw new GoSyntaxError(`strconv.ParseFloat: parsing ${goQuote(original)}: value out of range`)
  return value
}

const DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
}

/** time.ParseDuration; the result is in milliseconds (fractions kept). */
export function parseGoDuration(s: string): number {
  const invalid = () => new GoSyntaxError(`time: invalid duration ${goQuote(s)}`)
  let rest = s
  let sign = 1
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1
    rest = rest.slice(1)
  }
  if (rest === '0') return 0
  if (rest === '') throw invalid()
  let total = 0
  while (rest !== '') {
    const num = /^(\d*)(\.(\d*))?/.exec(rest)!
    if (num[0] === '' || num[0] === '.') throw invalid()
    rest = rest.slice(num[0].length)
    const unit = /^[^\d.]*/.exec(rest)![0]
    if (unit === '') throw new GoSyntaxError(`time: missing unit in duration ${goQuote(s)}`)
    const factor = DURATION_UNITS[unit]
    if (factor === undefined) throw new GoSyntaxError(`time: unknown unit ${goQuote(unit)} in duration ${goQuote(s)}`)
    rest = rest.slice(unit.length)
    total += Number(`${num[1] || '0'}.${num[3] || '0'}`) * factor
  }
  if (total * 1e6 > 2 ** 63) throw invalid()
  return sign * total
}

/** time.Duration.String(), from milliseconds: `1m0s`, `1h30m0s`, `500ms`, `0s`. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s'
  const sign = ms < 0 ? '-' : ''
  let ns = Math.round(Math.abs(ms) * 1e6)
  if (ns < 1e9) {
    if (ns < 1e3) return `${sign}${ns}ns`
    if (ns < 1e6) return `${sign}${trimFraction(ns / 1e3)}µs`
    return `${sign}${trimFraction(ns / 1e6)}ms`
  }
  const hours = Math.floor(ns / 3.6e12)
  ns -= hours * 3.6e12
  const minutes = Math.floor(ns / 6e10)
  ns -= minutes * 6e10
  const seconds = trimFraction(ns / 1e9)
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`
  return `${sign}${seconds}s`
}

function trimFraction(n: number): string {
  return String(Number(n.toFixed(9)))
}

/**
 * encoding/csv reading one record, as pflag's string slices do: fields separated by commas,
 * double quotes around a field allow commas inside and `""` for a quote.
 */
export function readCsvRecord(s: string): string[] {
  if (s === '') return []
  const fields: string[] = []
  let i = 0
  for (;;) {
    let field = ''
    if (s[i] === '"') {
      i++
      for (;;) {
        if (i >= s.length) throw new GoSyntaxError(`parse error on line 1, column ${s.length + 1}: extraneous or missing " in quoted-field`)
        if (s[i] === '"') {
          if (s[i + 1] === '"') {
            field += '"'
            i += 2
            continue
          }
          i++
          break
        }
        field += s[i++]
      }
      if (i < s.length && s[i] !== ',') {
        throw new GoSyntaxError(`parse error on line 1, column ${i + 1}: extraneous or missing " in quoted-field`)
      }
    } else {
      const end = s.indexOf(',', i)
      field = end === -1 ? s.slice(i) : s.slice(i, end)
      const quote = field.indexOf('"')
      if (quote !== -1) throw new GoSyntaxError(`parse error on line 1, column ${i + quote + 1}: bare " in non-quoted-field`)
      i = end === -1 ? s.length : end
    }
    fields.push(field)
    if (i >= s.length) break
    i++ // the comma
    if (i === s.length) {
      fields.push('')
      break
    }
  }
  return fields
}

const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/
const QUANTITY_SUFFIX = /^(|[numkMGTPE]|Ki|Mi|Gi|Ti|Pi|Ei|[eE][-+]?\d+)$/

/** resource.ParseQuantity's syntax check (`64Mi`, `1.5G`, `100m`, `1e3`). */
export function checkQuantity(s: string): void {
  const m = QUANTITY.exec(s)
  if (!m || !QUANTITY_SUFFIX.test(m[2]) || !/^[+-]?(\d+\.?\d*|\.\d+)$/.test(m[1])) {
    throw new GoSyntaxError(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    )
  }
}
