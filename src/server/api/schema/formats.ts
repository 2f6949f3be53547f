/**
 * The string formats a custom resource schema may name, as the reference keeps them
 * (apiextensions-apiserver `pkg/apiserver/validation/formats.go`: other formats are stripped
 * and not checked) with the checks of kube-openapi's `pkg/validation/strfmt` registry.
 */
import { isIP } from 'node:net'

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u
const SHORT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
const LONG_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/
const ISO8601_LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/
const DURATION_UNITS = new Set(['ns', 'us', 'µs', 'ms', 's', 'm', 'h', 'd', 'w', 'nanoseconds', 'nanos', 'nanosecond', 'nano', 'microseconds', 'micros', 'microsecond', 'micro', 'milliseconds', 'millis', 'millisecond', 'milli', 'seconds', 'sec', 'second', 'minutes', 'min', 'minute', 'hours', 'hr', 'hour', 'days', 'day', 'weeks', 'wk', 'week'])

/** The date is a real calendar day (time.Parse refuses 2021-02-30). */
function isCalendarDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!
  return d <= days
}

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  return m !== null && isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))
}

function isDateTime(s: string): boolean {
  const m = DATE_TIME.exec(s) ?? ISO8601_LOCAL.exec(s)
  if (!m) return false
  return isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3])) && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 60
}

/** Go's time.ParseDuration, or the Scala-like `<n> <unit>` form strfmt also accepts. */
function isDuration(s: string): boolean {
  if (/^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/.test(s) || s === '0') return true
  const cand = s.trim()
  const matches = [...cand.matchAll(/((\d+)\s*([A-Za-zµ]+))/g)]
  return matches.length > 0 && matches.every((x) => DURATION_UNITS.has(x[3]!))
}

function isIPv4Sloppy(s: string): boolean {
  // netutils.ParseIPSloppy accepts leading zeros; the format wants a dotted IPv4 (or IPv4-mapped) address.
  if (!s.includes('.')) return false
  const plain = s.replace(/(^|\.)0+(\d)/g, '$1$2')
  return isIP(plain) !== 0 || isIP(s) !== 0
}

function isCIDR(s: string): boolean {
  const [ip, bits, extra] = s.split('/')
  if (ip === undefined || bits === undefined || extra !== undefined || !/^\d+$/.test(bits)) return false
  const plain = ip.includes(':') ? ip : ip.replace(/(^|\.)0+(\d)/g, '$1$2')
  const family = isIP(plain)
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128)
}

function isBase64(s: string): boolean {
  return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/.test(s)
}

function isRequestURI(s: string): boolean {
  // net/url.ParseRequestURI: an absolute URI or an absolute path, no fragment parsing.
  if (s.startsWith('/')) return true
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(s) && !/\s/.test(s)
}

function isEmail(s: string): boolean {
  return /^[^@\s<>()]+@[^@\s<>()]+$/.test(s) || /^[^<>]*<[^@\s<>()]+@[^@\s<>()]+>$/.test(s)
}

function isMAC(s: string): boolean {
  return /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{2}[:-]){7}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{2}[:-]){19}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$/.test(s)
}

function isbn10(s: string): boolean {
  const d = s.replace(/[\s-]/g, '')
  if (!/^\d{9}[\dX]$/.test(d)) return false
  let sum = 0
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(d[i])
  sum += d[9] === 'X' ? 100 : 10 * Number(d[9])
  return sum % 11 === 0
}

function isbn13(s: string): boolean {
  const d = s.replace(/[\s-]/g, '')
  if (!/^\d{13}$/.test(d)) return false
  let sum = 0
  for (let i = 0; i < 12; i++) sum += Number(d[i]) * (i % 2 === 0 ? 1 : 3)
  return (10 - (sum % 10)) % 10 === Number(d[12])
}

function isCreditCard(s: string): boolean {
  const d = s.replace(/[^0-9]/g, '')
  if (!/^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/.test(d)) return false
  let sum = 0
  let double = false
  for (let i = d.length - 1; i >= 0; i--) {
    let n = Number(d[i])
    if (double) n = n * 2 > 9 ? n * 2 - 9 : n * 2
    sum += n
    double = !double
  }
  return sum % 10 === 0
}

const CHECKS: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestURI,
  email: isEmail,
  hostname: (s) => s.length <= 255 && HOSTNAME.test(s) && s.split('.').every((p) => p.length <= 63),
  ipv4: isIPv4Sloppy,
  ipv6: (s) => isIP(s) === 6,
  cidr: isCIDR,
  mac: isMAC,
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isbn10(s) || isbn13(s),
  isbn10,
  isbn13,
  creditcard: isCreditCard,
  ssn: (s) => /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) => /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/.test(s),
  byte: isBase64,
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
  k8sshortname: (s) => s.length <= 63 && SHORT_NAME.test(s),
  k8slongname: (s) => s.length <= 253 && LONG_NAME.test(s),
}

/** go-openapi's name normalisation: `date-time` is `datetime`. */
function normalized(format: string): string {
  return format.replaceAll('-', '')
}

/** Whether the reference checks this format (unsupported ones are stripped from the schema). */
export function isSupportedFormat(format: string): boolean {
  return Object.hasOwn(CHECKS, normalized(format))
}

/** Whether `value` is valid for a supported `format`. */
export function checkFormat(format: string, value: string): boolean {
  const check = CHECKS[normalized(format)]
  return check ? check(value) : true
}
