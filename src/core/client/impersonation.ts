/**
 * Impersonation headers, as client-go's impersonating round tripper sends them:
 * `Impersonate-User`, `Impersonate-Uid`, one `Impersonate-Group` header per group and one
 * `Impersonate-Extra-<key>` header per value, the key percent-encoded (headerKeyEscape).
 */
import { goQuote } from '../options/go-syntax.js'
import { ClientConfigError } from './errors.js'

export interface Impersonation {
  user?: string
  uid?: string
  groups?: readonly string[]
  extra?: Readonly<Record<string, readonly string[]>>
}

// RFC 7230 token characters (net/http's isTokenTable), the bytes a header name may carry.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]$/

/**
 * client-go's headerKeyEscape: every byte of the UTF-8 key that is not a token character,
 * and `%` itself, becomes `%XX` (upper-case hex).
 */
export function headerKeyEscape(key: string): string {
  let out = ''
  for (const byte of Buffer.from(key, 'utf8')) {
    const c = String.fromCharCode(byte)
    out += byte < 0x80 && TOKEN.test(c) && c !== '%' ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** The headers for an impersonation (none without a user: see validation in connection.ts). */
export function impersonationHeaders(imp: Impersonation): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {}
  if (!imp.user) return headers
  headers['Impersonate-User'] = imp.user
  if (imp.uid) headers['Impersonate-Uid'] = imp.uid
  if (imp.groups?.length) headers['Impersonate-Group'] = [...imp.groups]
  // Header names are case-insensitive: keys that differ only in case share one header, as
  // Go's Header.Add (canonical names) makes them.
  const extras = new Map<string, { name: string; values: string[] }>()
  for (const [key, values] of Object.entries(imp.extra ?? {})) {
    if (values.length === 0) continue
    const name = `Impersonate-Extra-${headerKeyEscape(key)}`
    const entry = extras.get(name.toLowerCase()) ?? { name, values: [] }
    entry.values.push(...values)
    extras.set(name.toLowerCase(), entry)
  }
  for (const { name, values } of extras.values()) headers[name] = values
  return headers
}

/** `--as-user-extra key=value` items (repeatable; several values per key accumulate). */
export function parseUserExtras(items: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const item of items) {
    const eq = item.indexOf('=')
    if (eq <= 0) throw new ClientConfigError(`invalid argument ${goQuote(item)} for "--as-user-extra" flag: expected key=value`)
    const key = item.slice(0, eq)
    ;(out[key] ??= []).push(item.slice(eq + 1))
  }
  return out
}
