/**
 * The JSON forms of the apimachinery types whose Go JSON marshalling differs from their protobuf
 * message: metav1.Time and MicroTime (RFC 3339 strings), metav1.Duration (Go duration strings).
 */
import { ProtobufError } from './errors.js'

interface Timestamp {
  seconds: number
  nanos: number
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/

const digit = (text: string, at: number) => {
  const d = text.charCodeAt(at) - 0x30
  return d >= 0 && d <= 9 ? d : NaN
}
const two = (text: string, at: number) => digit(text, at) * 10 + digit(text, at + 1)

/** The form every Go client and the server write ("2024-01-02T03:04:05Z"), without the regular expression; NaN when it is not that form. */
function parseCanonical(text: string): number {
  if (text.length !== 20 || text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d || (text.charCodeAt(10) | 0x20) !== 0x74) return NaN
  if (text.charCodeAt(13) !== 0x3a || text.charCodeAt(16) !== 0x3a || (text.charCodeAt(19) | 0x20) !== 0x7a) return NaN
  const year = two(text, 0) * 100 + two(text, 2)
  // Years below 100 take the general path (Date.UTC maps them to 1900..1999).
  if (!(year >= 100)) return NaN
  return Date.UTC(year, two(text, 5) - 1, two(text, 8), two(text, 11), two(text, 14), two(text, 17)) / 1000
}

/** Parses what Go's time.Parse(time.RFC3339) accepts (fractional seconds allowed). */
export function parseTimestamp(text: string, where: string): Timestamp {
  const canonical = parseCanonical(text)
  if (!Number.isNaN(canonical)) return { seconds: canonical, nanos: 0 }
  const match = RFC3339.exec(text)
  if (!match) throw new ProtobufError(`${where}: cannot parse "${text}" as an RFC 3339 time`)
  const [, y, mo, d, h, mi, s, fraction, , sign, oh, om] = match
  let seconds = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000
  // Date.UTC maps years 0..99 to 1900..1999.
  if (Number(y) < 100) seconds = new Date(Date.UTC(2000, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s))).setUTCFullYear(Number(y)) / 1000
  if (sign) seconds -= (sign === '+' ? 1 : -1) * (Number(oh) * 3600 + Number(om) * 60)
  const nanos = fraction ? Number(fraction.padEnd(9, '0')) : 0
  return { seconds, nanos }
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

// Seconds of 0000-01-01 and 10000-01-01: the years civilParts prints with four digits.
const FIRST_ISO_SECOND = -62167219200
const END_ISO_SECOND = 253402300800

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'))

/** "YYYY-MM-DDTHH:MM:SS" of a UTC second in years 0..9999, from the civil calendar (no Date object). */
function civilParts(seconds: number): string {
  const days = Math.floor(seconds / 86400)
  let rest = seconds - days * 86400
  const hours = Math.floor(rest / 3600)
  rest -= hours * 3600
  const minutes = Math.floor(rest / 60)
  rest -= minutes * 60
  // Days since 0000-03-01, in 400-year eras (H. Hinnant's civil_from_days).
  const z = days + 719468
  const era = Math.floor(z / 146097)
  const dayOfEra = z - era * 146097
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365)
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153)
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  return `${TWO_DIGITS[Math.floor(year / 100)]}${TWO_DIGITS[year % 100]}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[rest]}`
}

function utcParts(seconds: number): string {
  if (seconds >= FIRST_ISO_SECOND && seconds < END_ISO_SECOND && Number.isInteger(seconds)) return civilParts(seconds)
  const date = new Date(seconds * 1000)
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
}

/** metav1.Time's JSON: UTC, second precision (the fraction is dropped, as Go's Format(RFC3339) does). */
export function formatTime(t: Timestamp): string {
  return `${utcParts(t.seconds)}Z`
}

/** metav1.MicroTime's JSON: UTC, always six fractional digits (RFC3339Micro). */
export function formatMicroTime(t: Timestamp): string {
  return `${utcParts(t.seconds)}.${pad(Math.floor(t.nanos / 1000), 6)}Z`
}

const UNITS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 }

/** Parses a Go duration string ("1h2m3.5s", "-300ms", "0") into nanoseconds. */
export function parseDuration(text: string, where: string): number {
  const fail = () => new ProtobufError(`${where}: time: invalid duration "${text}"`)
  let rest = text
  let sign = 1
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1
    rest = rest.slice(1)
  }
  if (rest === '0') return 0
  if (rest === '') throw fail()
  let total = 0
  const part = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/
  while (rest.length > 0) {
    const match = part.exec(rest)
    if (!match || (match[1] === '' && (match[2] ?? '') === '')) throw fail()
    const unit = UNITS[match[3]]
    total += Number(match[1] || '0') * unit
    if (match[2]) total += Math.round(Number(`0.${match[2]}`) * unit)
    rest = rest.slice(match[0].length)
  }
  return sign * total
}

/** Go's time.Duration.String(): "1h2m3s", "1.5s", "100ms", "1µs", "0s". */
export function formatDuration(nanoseconds: number): string {
  if (nanoseconds === 0) return '0s'
  const negative = nanoseconds < 0
  let n = Math.abs(nanoseconds)
  let out: string
  if (n < 1e9) {
    // Sub-second values use the largest unit that keeps an integer part.
    const [unit, size] = n < 1e3 ? ['ns', 1] : n < 1e6 ? ['µs', 1e3] : ['ms', 1e6]
    out = fixed(n, size) + unit
  } else {
    const hours = Math.floor(n / 3600e9)
    n -= hours * 3600e9
    const minutes = Math.floor(n / 60e9)
    n -= minutes * 60e9
    out = fixed(n, 1e9) + 's'
    if (hours > 0) out = `${hours}h${minutes}m${out}`
    else if (minutes > 0) out = `${minutes}m${out}`
  }
  return negative ? `-${out}` : out
}

/** An integer count of `size` units with the fraction's trailing zeros dropped (Go's fmtFrac). */
function fixed(n: number, size: number): string {
  const whole = Math.floor(n / size)
  const fraction = n - whole * size
  if (fraction === 0) return String(whole)
  const digits = String(size).length - 1
  return `${whole}.${String(fraction).padStart(digits, '0').replace(/0+$/, '')}`
}
