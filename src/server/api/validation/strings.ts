/**
 * The reference's string validators, with their messages byte for byte:
 * `k8s.io/apimachinery/pkg/util/validation/validation.go` and `ip.go`, the label-key and
 * label-value rules of `pkg/api/validate/content/kube.go`, and `pkg/api/validation/path`
 * (path segment names). The `is*` functions return the messages of what is wrong (empty when
 * valid); the IP and CIDR ones return field errors, as the reference's do.
 */
import { type ErrorList, type PathLike, invalid, required } from './field/index.js'

// ---- messages ----

/** validation.MaxLenError: names and keys count characters. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`
}

/** content.MaxLenError: label keys' name parts and label values count bytes. */
function contentMaxLenError(length: number): string {
  return `must be no more than ${length} bytes`
}

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`
  let out = `${msg} (e.g. `
  examples.forEach((e, i) => {
    if (i > 0) out += ' or '
    out += `'${e}', `
  })
  return `${out}regex used for validation is '${fmt}')`
}

export function emptyError(): string {
  return 'must be non-empty'
}

export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`
}

/** Length in bytes, as Go's len() of a string. */
export function byteLength(s: string): number {
  // Names and keys are short and ASCII nearly always: counted here without a call into C++.
  if (s.length <= 64) {
    let i = 0
    while (i < s.length && s.charCodeAt(i) < 0x80) i++
    if (i === s.length) return i
  }
  return Buffer.byteLength(s, 'utf8')
}

/**
 * What the `is*` checks below return for a valid value: one empty list, not a new one per call,
 * as they run for nearly every name, key and port of a valid object. The lists are read only
 * (`readonly string[]`: the compiler refuses a caller that would change one). Not frozen: a
 * `for (const m of ...)` over a frozen array is not optimised as one over an array, and each of
 * its steps allocated an iterator result (+1.5 KB per validation of a Pod).
 */
export const NO_MESSAGES: readonly string[] = []

// ---- DNS names ----

export const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?'
const DNS1123_LABEL_ERR = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
export const DNS1123_LABEL_MAX_LENGTH = 63
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`)

export const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`
const DNS1123_SUBDOMAIN_ERR = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`)

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?'
const DNS1035_LABEL_ERR = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"
export const DNS1035_LABEL_MAX_LENGTH = 63
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`)

export function isDNS1123Label(value: string): readonly string[] {
  if (value.length <= DNS1123_LABEL_MAX_LENGTH && DNS1123_LABEL_RE.test(value)) return NO_MESSAGES
  const errs: string[] = []
  if (value.length > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH))
  if (!DNS1123_LABEL_RE.test(value)) {
    if (DNS1123_SUBDOMAIN_RE.test(value)) errs.push('must not contain dots')
    else errs.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, 'my-name', '123-abc'))
  }
  return errs
}

export function isDNS1123Subdomain(value: string): readonly string[] {
  if (value.length <= DNS1123_SUBDOMAIN_MAX_LENGTH && DNS1123_SUBDOMAIN_RE.test(value)) return NO_MESSAGES
  const errs: string[] = []
  if (value.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH))
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com'))
  return errs
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = []
  if (value.length > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH))
  if (!DNS1035_LABEL_RE.test(value)) errs.push(regexError(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, 'my-name', 'abc-123'))
  return errs
}

const WILDCARD_DNS1123_SUBDOMAIN_FMT = `\\*\\.${DNS1123_SUBDOMAIN_FMT}`
const WILDCARD_DNS1123_SUBDOMAIN_ERR =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character"
const WILDCARD_DNS1123_SUBDOMAIN_RE = new RegExp(`^${WILDCARD_DNS1123_SUBDOMAIN_FMT}$`)

export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = []
  if (value.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH))
  if (!WILDCARD_DNS1123_SUBDOMAIN_RE.test(value)) errs.push(regexError(WILDCARD_DNS1123_SUBDOMAIN_ERR, WILDCARD_DNS1123_SUBDOMAIN_FMT, '*.example.com'))
  return errs
}

/** IsFullyQualifiedName: a DNS subdomain of at least three segments. */
export function isFullyQualifiedName(fldPath: PathLike, name: string): ErrorList {
  if (name.length === 0) return [required(fldPath)]
  const errs = isDNS1123Subdomain(name)
  if (errs.length > 0) return [invalid(fldPath, name, errs.join(','))]
  if (name.split('.').length < 3) return [invalid(fldPath, name, 'should be a domain with at least three segments separated by dots')]
  return []
}

/** IsFullyQualifiedDomainName: a DNS subdomain of at least two segments (a trailing dot allowed). */
export function isFullyQualifiedDomainName(fldPath: PathLike, value: string): ErrorList {
  if (value.length === 0) return [required(fldPath)]
  const name = value.endsWith('.') ? value.slice(0, -1) : value
  const errs = isDNS1123Subdomain(name)
  if (errs.length > 0) return [invalid(fldPath, name, errs.join(','))]
  if (name.split('.').length < 2) return [invalid(fldPath, name, 'should be a domain with at least two segments separated by dots')]
  for (const label of name.split('.')) {
    const labelErrs = isDNS1123Label(label)
    if (labelErrs.length > 0) return [invalid(fldPath, label, labelErrs.join(','))]
  }
  return []
}

const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"
const HTTP_PATH_RE = new RegExp(`^${HTTP_PATH_FMT}$`)

/** IsDomainPrefixedPath: `acme.io/foo`. */
export function isDomainPrefixedPath(fldPath: PathLike, dpPath: string): ErrorList {
  if (dpPath.length === 0) return [required(fldPath)]
  const slash = dpPath.indexOf('/')
  const host = slash < 0 ? dpPath : dpPath.slice(0, slash)
  const path = slash < 0 ? '' : dpPath.slice(slash + 1)
  if (slash < 0 || host.length === 0 || path.length === 0) return [invalid(fldPath, dpPath, 'must be a domain-prefixed path (such as "acme.io/foo")')]
  const errs: ErrorList = isDNS1123Subdomain(host).map((m) => invalid(fldPath, host, m))
  if (!HTTP_PATH_RE.test(path)) return [...errs, invalid(fldPath, path, regexError('Invalid path', HTTP_PATH_FMT))]
  return errs
}

// ---- label keys and values (qualified names) ----

const LABEL_KEY_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'
const LABEL_KEY_ERR = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
const LABEL_KEY_MAX_LENGTH = 63
const LABEL_KEY_RE = new RegExp(`^${LABEL_KEY_FMT}$`)

/** IsQualifiedName (content.IsLabelKey): `[prefix/]name`, the prefix a DNS subdomain. */
/** The name part of a qualified name (or a whole unprefixed one) is valid. */
function isQualifiedNamePart(name: string): boolean {
  return name.length > 0 && byteLength(name) <= LABEL_KEY_MAX_LENGTH && LABEL_KEY_RE.test(name)
}

export function isQualifiedName(value: string): readonly string[] {
  if (value.indexOf('/') < 0 && isQualifiedNamePart(value)) return NO_MESSAGES
  const errs: string[] = []
  const slash = value.indexOf('/')
  let name: string
  if (slash < 0) name = value
  else if (value.indexOf('/', slash + 1) < 0) {
    const prefix = value.slice(0, slash)
    name = value.slice(slash + 1)
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`)
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`)
  } else {
    return [
      `a valid label key ${regexError(LABEL_KEY_ERR, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ]
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`)
  else if (byteLength(name) > LABEL_KEY_MAX_LENGTH) errs.push(`name part ${contentMaxLenError(LABEL_KEY_MAX_LENGTH)}`)
  if (!LABEL_KEY_RE.test(name)) errs.push(`name part ${regexError(LABEL_KEY_ERR, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')}`)
  return errs
}

const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`
const LABEL_VALUE_ERR = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
export const LABEL_VALUE_MAX_LENGTH = 63
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`)

/** IsValidLabelValue (content.IsLabelValue). */
export function isValidLabelValue(value: string): readonly string[] {
  if (byteLength(value) <= LABEL_VALUE_MAX_LENGTH && LABEL_VALUE_RE.test(value)) return NO_MESSAGES
  const errs: string[] = []
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(contentMaxLenError(LABEL_VALUE_MAX_LENGTH))
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'))
  return errs
}

/** IsDomainPrefixedKey: a qualified name that has a prefix. */
export function isDomainPrefixedKey(fldPath: PathLike, key: string): ErrorList {
  if (key.length === 0) return [required(fldPath)]
  const errs = isQualifiedName(key).map((m) => invalid(fldPath, key, m))
  if (errs.length > 0) return errs
  if (key.split('/').length !== 2) return [invalid(fldPath, key, 'must be a domain-prefixed key (such as "acme.io/foo")')]
  return []
}

const C_IDENTIFIER_FMT = '[A-Za-z_][A-Za-z0-9_]*'
const C_IDENTIFIER_RE = new RegExp(`^${C_IDENTIFIER_FMT}$`)

export function isCIdentifier(value: string): string[] {
  if (C_IDENTIFIER_RE.test(value)) return []
  return [regexError("a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'", C_IDENTIFIER_FMT, 'my_name', 'MY_NAME', 'MyName')]
}

// ---- numbers, ports, percentages ----

export function isValidPortNum(port: number): readonly string[] {
  return port >= 1 && port <= 65535 ? NO_MESSAGES : [inclusiveRangeError(1, 65535)]
}

export function isInRange(value: number, min: number, max: number): string[] {
  return value >= min && value <= max ? [] : [inclusiveRangeError(min, max)]
}

const MAX_INT32 = 2147483647

export function isValidGroupID(gid: number): string[] {
  return gid >= 0 && gid <= MAX_INT32 ? [] : [inclusiveRangeError(0, MAX_INT32)]
}

export function isValidUserID(uid: number): string[] {
  return uid >= 0 && uid <= MAX_INT32 ? [] : [inclusiveRangeError(0, MAX_INT32)]
}

/** IsValidPortName: an IANA service name (15 characters, a letter, no leading, trailing or double hyphen). */
export function isValidPortName(port: string): readonly string[] {
  let errs: string[] | undefined
  if (port.length > 15) (errs ??= []).push(maxLenError(15))
  if (!/^[-a-z0-9]+$/.test(port)) (errs ??= []).push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)')
  if (!/[a-z]/.test(port)) (errs ??= []).push('must contain at least one letter (a-z)')
  if (port.includes('--')) (errs ??= []).push('must not contain consecutive hyphens')
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) (errs ??= []).push('must not begin or end with a hyphen')
  return errs ?? NO_MESSAGES
}

const PERCENT_FMT = '[0-9]+%'
const PERCENT_RE = new RegExp(`^${PERCENT_FMT}$`)

export function isValidPercent(percent: string): string[] {
  if (PERCENT_RE.test(percent)) return []
  return [regexError("a valid percent string must be a numeric string followed by an ending '%'", PERCENT_FMT, '1%', '93%')]
}

const HTTP_HEADER_NAME_FMT = '[-A-Za-z0-9]+'
const HTTP_HEADER_NAME_RE = new RegExp(`^${HTTP_HEADER_NAME_FMT}$`)

export function isHTTPHeaderName(value: string): string[] {
  if (HTTP_HEADER_NAME_RE.test(value)) return []
  return [regexError("a valid HTTP header must consist of alphanumeric characters or '-'", HTTP_HEADER_NAME_FMT, 'X-Header-Name')]
}

/** content.IsDecimalInteger: an integer in canonical decimal form (no sign on 0, no leading 0). */
export function isDecimalInteger(value: string): string[] {
  if (value.length === 0) return [emptyError()]
  return /^(0|-?[1-9][0-9]*)$/.test(value) ? [] : ['must be a valid decimal integer in canonical form']
}

// ---- environment variables and keys ----

const ENV_VAR_NAME_FMT = '[-._a-zA-Z][-._a-zA-Z0-9]*'
const ENV_VAR_NAME_RE = new RegExp(`^${ENV_VAR_NAME_FMT}$`)

/** Adds to errs what hasChDirPrefix reports (a name that is '.', '..' or starts with '..'). */
function addChDirPrefixErrors(value: string, errs: string[]): string[] {
  if (value === '.') errs.push("must not be '.'")
  else if (value === '..') errs.push("must not be '..'")
  else if (value.startsWith('..')) errs.push("must not start with '..'")
  return errs
}

export function isEnvVarName(value: string): string[] {
  const errs: string[] = []
  if (!ENV_VAR_NAME_RE.test(value)) {
    errs.push(
      regexError(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
        ENV_VAR_NAME_FMT,
        'my.env-name',
        'MY_ENV.NAME',
        'MyEnvName1',
      ),
    )
  }
  return addChDirPrefixErrors(value, errs)
}

/** IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation, on by default since 1.34): printable ASCII but '='. */
export function isRelaxedEnvVarName(value: string): readonly string[] {
  let errs: string[] | undefined
  if (value.length === 0) errs = [`environment variable name ${emptyError()}`]
  for (let i = 0; i < value.length; i++) {
    // A code unit outside printable ASCII (a surrogate included) is a character outside it.
    const cp = value.charCodeAt(i)
    if (cp > 0x7e || cp < 0x20 || cp === 0x3d) {
      ;(errs ??= []).push("a valid environment variable name must consist only of printable ASCII characters other than '='")
      break
    }
  }
  return errs ?? NO_MESSAGES
}

const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+'
const CONFIG_MAP_KEY_RE = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`)

/** IsConfigMapKey (config map, secret and projection keys). */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = []
  if (value.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH))
  if (!CONFIG_MAP_KEY_RE.test(value)) errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_MAP_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'))
  return addChDirPrefixErrors(value, errs)
}

// ---- path segment names (pkg/api/validation/path) ----

/** IsValidPathSegmentName: not `.` or `..`, no `/` or `%` (names used as URL path segments). */
export function isValidPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`]
  const errs: string[] = []
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`)
  return errs
}

/** IsValidPathSegmentPrefix: a generateName of such a name. */
export function isValidPathSegmentPrefix(name: string): string[] {
  const errs: string[] = []
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`)
  return errs
}

// ---- IP addresses and CIDRs (ip.go) ----

/** A parsed address: its 4 or 16 bytes, and whether it was written as IPv4. */
interface ParsedIP {
  bytes: number[]
  v4: boolean
}

/** netutils.ParseIPSloppy (Go 1.16's net.ParseIP): IPv4 parts may have leading zeros (read as decimal). */
function parseIPSloppy(s: string): ParsedIP | undefined {
  if (s.includes(':')) {
    const bytes = parseIPv6(s)
    return bytes ? { bytes, v4: false } : undefined
  }
  const bytes = parseIPv4(s, true)
  return bytes ? { bytes, v4: true } : undefined
}

function parseIPv4(s: string, sloppy: boolean): number[] | undefined {
  const parts = s.split('.')
  if (parts.length !== 4) return undefined
  const out: number[] = []
  for (const p of parts) {
    if (!/^[0-9]{1,3}$/.test(p)) return undefined
    if (!sloppy && p.length > 1 && p.startsWith('0')) return undefined
    const n = Number(p)
    if (n > 255) return undefined
    out.push(n)
  }
  return out
}

function parseIPv6(s: string): number[] | undefined {
  let text = s
  let tail: number[] = []
  const lastColon = text.lastIndexOf(':')
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(text.slice(lastColon + 1), true)
    if (!v4) return undefined
    tail = v4
    text = `${text.slice(0, lastColon + 1)}0:0`
  }
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  const groups = (h: string) => (h === '' ? [] : h.split(':'))
  const head = groups(halves[0]!)
  const rest = halves.length === 2 ? groups(halves[1]!) : []
  for (const g of [...head, ...rest]) if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined
  const missing = 8 - head.length - rest.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest].map((g) => parseInt(g, 16))
  const bytes: number[] = []
  for (const g of all) bytes.push(g >> 8, g & 0xff)
  if (tail.length === 4) bytes.splice(12, 4, ...tail)
  return bytes
}

function isV4InV6(bytes: number[]): boolean {
  return bytes.length === 16 && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff
}

/** net.IP.String(): dotted IPv4 (also for IPv4-mapped IPv6), else RFC 5952 IPv6. */
function ipString(ip: ParsedIP): string {
  if (ip.v4) return ip.bytes.join('.')
  if (isV4InV6(ip.bytes)) return ip.bytes.slice(12).join('.')
  return ipv6String(ip.bytes)
}

function ipv6String(bytes: number[]): string {
  const groups: number[] = []
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i]! << 8) | bytes[i + 1]!)
  let bestStart = -1
  let bestLen = 0
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i
      bestLen = j - i
    }
    i = j
  }
  const hex = groups.map((g) => g.toString(16))
  if (bestStart < 0) return hex.join(':')
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`
}

/** netip.ParseAddr's refusals the strict checks report: leading zeros in IPv4 parts. */
function strictParseOK(s: string): boolean {
  if (!s.includes(':')) return parseIPv4(s, false) !== undefined
  const last = s.slice(s.lastIndexOf(':') + 1)
  return !last.includes('.') || parseIPv4(last, false) !== undefined
}

function parseIP(fldPath: PathLike, value: string, strict: boolean): { ip?: ParsedIP; errs: ErrorList } {
  const ip = parseIPSloppy(value)
  if (!ip) return { errs: [invalid(fldPath, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')] }
  const errs: ErrorList = []
  if (strict) {
    if (!strictParseOK(value)) errs.push(invalid(fldPath, value, 'must not have leading 0s'))
    else if (!ip.v4 && isV4InV6(ip.bytes)) errs.push(invalid(fldPath, value, 'must not be an IPv4-mapped IPv6 address'))
  }
  return { ip, errs }
}

/** IsValidIP: a valid, strict and canonical IP address. */
export function isValidIP(fldPath: PathLike, value: string): ErrorList {
  const { ip, errs } = parseIP(fldPath, value, true)
  if (errs.length > 0 || !ip) return errs
  const canonical = ipString(ip)
  return value === canonical ? [] : [invalid(fldPath, value, `must be in canonical form ("${canonical}")`)]
}

/** IsValidIPForLegacyField: fields that accepted sloppy IPs (strict only when asked; old values stay valid). */
export function isValidIPForLegacyField(fldPath: PathLike, value: string, strict: boolean, validOldIPs: readonly string[] = []): ErrorList {
  if (validOldIPs.includes(value)) return []
  return parseIP(fldPath, value, strict).errs
}

/** Whether a valid IP address is IPv4 (also an IPv4-mapped IPv6 one, as Go's To4()). */
export function isIPv4String(value: string): boolean {
  const ip = parseIPSloppy(value)
  return ip !== undefined && (ip.v4 || isV4InV6(ip.bytes))
}

export function isIPv6String(value: string): boolean {
  const ip = parseIPSloppy(value)
  return ip !== undefined && !ip.v4 && !isV4InV6(ip.bytes)
}

interface ParsedCIDR {
  ip: ParsedIP
  bits: number
}

function parseCIDRSloppy(value: string): ParsedCIDR | undefined {
  const slash = value.indexOf('/')
  if (slash < 0) return undefined
  const ip = parseIPSloppy(value.slice(0, slash))
  const lenText = value.slice(slash + 1)
  if (!ip || !/^[0-9]+$/.test(lenText)) return undefined
  const bits = Number(lenText)
  const max = ip.v4 ? 32 : 128
  if (bits > max) return undefined
  return { ip, bits }
}

function masked(c: ParsedCIDR): ParsedIP {
  const bytes = c.ip.bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, c.bits - i * 8))
    return b & ((0xff << (8 - keep)) & 0xff)
  })
  return { bytes, v4: c.ip.v4 }
}

function parseCIDR(fldPath: PathLike, value: string, strict: boolean): { cidr?: ParsedCIDR; errs: ErrorList } {
  const cidr = parseCIDRSloppy(value)
  if (!cidr) return { errs: [invalid(fldPath, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')] }
  const errs: ErrorList = []
  if (strict) {
    const lenText = value.slice(value.indexOf('/') + 1)
    if (!strictParseOK(value.slice(0, value.indexOf('/'))) || (lenText.length > 1 && lenText.startsWith('0'))) {
      errs.push(invalid(fldPath, value, 'must not have leading 0s in IP or prefix length'))
    } else if (!cidr.ip.v4 && isV4InV6(cidr.ip.bytes)) errs.push(invalid(fldPath, value, 'must not have an IPv4-mapped IPv6 address'))
    else if (masked(cidr).bytes.some((b, i) => b !== cidr.ip.bytes[i])) errs.push(invalid(fldPath, value, 'must not have bits set beyond the prefix length'))
  }
  return { cidr, errs }
}

/** IsValidCIDR: a valid, strict and canonical CIDR. */
export function isValidCIDR(fldPath: PathLike, value: string): ErrorList {
  const { cidr, errs } = parseCIDR(fldPath, value, true)
  if (errs.length > 0 || !cidr) return errs
  const canonical = `${ipString(masked(cidr))}/${cidr.bits}`
  return value === canonical ? [] : [invalid(fldPath, value, `must be in canonical form ("${canonical}")`)]
}

export function isValidCIDRForLegacyField(fldPath: PathLike, value: string, strict: boolean, validOldCIDRs: readonly string[] = []): ErrorList {
  if (validOldCIDRs.includes(value)) return []
  return parseCIDR(fldPath, value, strict).errs
}

/** IsValidInterfaceAddress: an address with its prefix length (10.9.8.7/24), canonical. */
export function isValidInterfaceAddress(fldPath: PathLike, value: string): ErrorList {
  const cidr = parseCIDRSloppy(value)
  if (!cidr) return [invalid(fldPath, value, 'must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)')]
  const canonical = `${ipString(cidr.ip)}/${cidr.bits}`
  return value === canonical ? [] : [invalid(fldPath, value, `must be in canonical form ("${canonical}")`)]
}

/**
 * Whether `inner` is a strict subset of `outer` as NetworkPolicy's ipBlock checks it
 * (net.ParseCIDR of both, then `outer.Contains(inner.IP)` and a longer prefix); undefined
 * when either does not parse (netutils.ParseCIDRSloppy).
 */
export function isStrictSubsetCIDR(outer: string, inner: string): boolean | undefined {
  const o = parseCIDRSloppy(outer)
  const i = parseCIDRSloppy(inner)
  if (!o || !i) return undefined
  const outerNet = masked(o)
  const innerIP = masked(i)
  // net.IPNet.Contains: an IPv4 network holds IPv4 addresses only (and IPv6 ones IPv6).
  if (outerNet.v4 !== innerIP.v4) return false
  const contained = masked({ ip: innerIP, bits: o.bits }).bytes.every((b, k) => b === outerNet.bytes[k])
  return contained && o.bits < i.bits
}

/** netutils.IPFamilyOfCIDRString: '4', '6', or '' when the CIDR does not parse. */
export function ipFamilyOfCIDR(value: string): '4' | '6' | '' {
  const c = parseCIDRSloppy(value)
  if (!c) return ''
  return c.ip.v4 || isV4InV6(c.ip.bytes) ? '4' : '6'
}

/** Whether netutils.ParseIPSloppy accepts the text as an IP address. */
export function parsesAsIP(value: string): boolean {
  return parseIPSloppy(value) !== undefined
}
