/**
 * Parsing one occurrence of a flag's text into its typed value, per option type, with the
 * cause texts of the reference's flag library (wrapped by the caller into
 * `invalid argument "<v>" for "<flag>" flag: <cause>`).
 */
import { createRequire } from 'node:module'
import {
  GoSyntaxError,
  checkQuantity,
  goQuote,
  parseGoBool,
  parseGoDuration,
  parseGoFloat,
  parseGoInt,
  readCsvRecord,
} from './go-syntax.js'
import type {
  FeatureGateSetting,
  KeyValue,
  NamedCertKey,
  OptionType,
  OptionValue,
  PortRange,
  VersionSetting,
} from './types.js'

// node:net (and the stream machinery it brings) is loaded on first use: the commands that
// parse options start faster without it, and most command lines have no IP option.
let netModule: typeof import('node:net') | undefined
function isIP(text: string): number {
  netModule ??= createRequire(import.meta.url)('node:net') as typeof import('node:net')
  return netModule.isIP(text)
}

export { GoSyntaxError as ValueSyntaxError }

/** Parses one occurrence. For list kinds the result is that occurrence's items. */
export function parseValue(type: OptionType, text: string): OptionValue {
  switch (type) {
    case 'int':
      return parseGoInt(text, 'ParseInt')
    case 'uint':
      return parseGoInt(text, 'ParseUint')
    case 'float':
      return parseGoFloat(text)
    case 'bool':
      return parseGoBool(text)
    case 'string':
      return text
    case 'ip':
      if (text !== '' && isIP(text) === 0) throw new GoSyntaxError(`failed to parse IP: ${goQuote(text)}`)
      return text
    case 'duration':
      return parseGoDuration(text)
    case 'quantity':
      checkQuantity(text)
      return text
    case 'strings':
      return readCsvRecord(text)
    case 'stringArray':
      return [text]
    case 'stringToString':
      return parseStringToString(text)
    case 'mapStringString':
      return parseMapStringString(text)
    case 'portRange':
      return parsePortRange(text)
    case 'featureGates':
      return parseFeatureGates(text)
    case 'versions':
      return parseVersions(text)
    case 'keyValues':
      return parseKeyValues(text)
    case 'namedCertKey':
      return [parseNamedCertKey(text)]
    case 'moduleLevels':
      return parseModuleLevels(text)
  }
}

/** Merges a later occurrence into the value so far: lists and maps accumulate, scalars replace. */
export function mergeValue(type: OptionType, previous: OptionValue | undefined, next: OptionValue): OptionValue {
  if (previous === undefined) return next
  if (Array.isArray(previous) && Array.isArray(next)) return [...previous, ...next] as OptionValue
  if (type === 'stringToString' || type === 'mapStringString' || type === 'moduleLevels') {
    return { ...(previous as Record<string, string>), ...(next as Record<string, string>) }
  }
  return next
}

function parseStringToString(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  if (text === '' || text === '[]') return out
  // pflag reads a value with a single `=` as one pair, so a key may contain commas.
  const equals = text.split('=').length - 1
  if (equals === 0) throw new GoSyntaxError(`${text} must be formatted as key=value`)
  const pairs = equals === 1 ? [text.replace(/^"+|"+$/g, '')] : readCsvRecord(text)
  for (const pair of pairs) {
    const eq = pair.indexOf('=')
    if (eq === -1) throw new GoSyntaxError(`${pair} must be formatted as key=value`)
    out[pair.slice(0, eq)] = pair.slice(eq + 1)
  }
  return out
}

/** The no-split map of component-base: the whole text is one `key=value` pair. */
function parseMapStringString(text: string): Record<string, string> {
  const eq = text.indexOf('=')
  if (eq === -1) throw new GoSyntaxError('malformed pair, expect string=string')
  return { [text.slice(0, eq).trim()]: text.slice(eq + 1).trim() }
}

export function parsePortRange(raw: string): PortRange {
  const value = raw.trim()
  if (value === '') return { base: 0, size: 0 }
  const hyphen = value.indexOf('-')
  const plus = value.indexOf('+')
  let low: number
  let high: number
  if (hyphen === -1 && plus === -1) {
    low = high = parseGoInt(value, 'Atoi')
  } else if (hyphen !== -1 && plus === -1) {
    low = parseGoInt(value.slice(0, hyphen), 'Atoi')
    high = parseGoInt(value.slice(hyphen + 1), 'Atoi')
  } else if (plus !== -1 && hyphen === -1) {
    low = parseGoInt(value.slice(0, plus), 'Atoi')
    high = low + parseGoInt(value.slice(plus + 1), 'Atoi')
  } else {
    throw new GoSyntaxError(`unable to parse port range: ${value}`)
  }
  if (low > 65535 || high > 65535) throw new GoSyntaxError(`the port range cannot be greater than 65535: ${value}`)
  if (high < low) throw new GoSyntaxError(`end port cannot be less than start port: ${value}`)
  return { base: low, size: 1 + high - low }
}

export function formatPortRange(r: PortRange): string {
  return r.size <= 1 ? String(r.base) : `${r.base}-${r.base + r.size - 1}`
}

/** Gate items are only split here; their names and values are checked with the versions. */
function parseFeatureGates(text: string): FeatureGateSetting[] {
  const out: FeatureGateSetting[] = []
  for (const item of text.split(',')) {
    const trimmed = item.trim()
    if (trimmed === '') continue
    const colon = trimmed.indexOf(':')
    const eqBeforeColon = trimmed.indexOf('=')
    const hasComponent = colon !== -1 && (eqBeforeColon === -1 || colon < eqBeforeColon)
    const component = hasComponent ? trimmed.slice(0, colon).trim() : undefined
    const setting = hasComponent ? trimmed.slice(colon + 1) : trimmed
    const eq = setting.indexOf('=')
    out.push({
      component,
      gate: (eq === -1 ? setting : setting.slice(0, eq)).trim(),
      value: eq === -1 ? undefined : setting.slice(eq + 1).trim(),
    })
  }
  return out
}

function parseVersions(text: string): VersionSetting[] {
  return readCsvRecord(text)
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((raw) => {
      const eq = raw.indexOf('=')
      return eq === -1
        ? { version: raw, raw }
        : { component: raw.slice(0, eq).trim(), version: raw.slice(eq + 1).trim(), raw }
    })
}

function parseKeyValues(text: string): KeyValue[] {
  const out: KeyValue[] = []
  for (const item of text.split(',')) {
    const trimmed = item.trim()
    if (trimmed === '') continue
    const eq = trimmed.indexOf('=')
    out.push(eq === -1 ? { key: trimmed } : { key: trimmed.slice(0, eq), value: trimmed.slice(eq + 1) })
  }
  return out
}

function parseNamedCertKey(text: string): NamedCertKey {
  const colon = text.indexOf(':')
  let keyCert = text
  let names: string[] = []
  if (colon !== -1) {
    keyCert = text.slice(0, colon).trim()
    const list = text.slice(colon + 1).trim()
    if (list === '') throw new GoSyntaxError('empty names list is not allowed')
    names = list.split(',').map((n) => n.trim())
  }
  const parts = keyCert.trim().split(',')
  if (parts.length !== 2) throw new GoSyntaxError('expected comma separated certificate and key file paths')
  return { certFile: parts[0].trim(), keyFile: parts[1].trim(), names }
}

function parseModuleLevels(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const pattern of text.split(',')) {
    if (pattern === '') continue
    const parts = pattern.split('=')
    if (parts.length !== 2 || parts[0] === '') {
      throw new GoSyntaxError('syntax error: expect comma-separated list of filename=N')
    }
    const level = parseGoInt(parts[1], 'Atoi')
    if (level < 0) throw new GoSyntaxError('negative value for vmodule level')
    out[parts[0]] = String(level)
  }
  return out
}
