/**
 * The Kubernetes URL library: url(), isURL() and the accessors of a parsed URL. As the
 * reference (Go's url.ParseRequestURI) an acceptable URL is absolute or an absolute path.
 */
import type { Environment } from '@marcbachmann/cel-js'
import { EvaluationError } from '@marcbachmann/cel-js'

export class CelUrl {
  constructor(readonly url: URL, readonly text: string) {}
}

/** Absolute URLs, or absolute paths (resolved against a placeholder and remembered as such). */
function parseRequestUri(text: string): CelUrl | undefined {
  if (text.includes('#') && !/^[a-z][a-z0-9+.-]*:/i.test(text)) return undefined
  try {
    if (text.startsWith('/')) return new CelUrl(new URL(text, 'relative:///'), text)
    if (!/^[a-z][a-z0-9+.-]*:/i.test(text)) return undefined
    return new CelUrl(new URL(text), text)
  } catch {
    return undefined
  }
}

export function registerUrlsLibrary(env: Environment): void {
  env.registerType('kubernetes.URL', CelUrl as never)
  env.registerFunction('url(string): kubernetes.URL', (text: string) => {
    const parsed = parseRequestUri(text)
    if (!parsed) throw new EvaluationError(`URL parse error during conversion from string: parse ${JSON.stringify(text)}: invalid URI for request`)
    return parsed
  })
  env.registerFunction('isURL(string): bool', (text: string) => parseRequestUri(text) !== undefined)
  const relative = (u: CelUrl) => u.url.protocol === 'relative:'
  env.registerFunction('kubernetes.URL.getScheme(): string', (u: CelUrl) => (relative(u) ? '' : u.url.protocol.slice(0, -1)))
  env.registerFunction('kubernetes.URL.getHost(): string', (u: CelUrl) => (relative(u) ? '' : u.url.host))
  env.registerFunction('kubernetes.URL.getHostname(): string', (u: CelUrl) => (relative(u) ? '' : u.url.hostname.replace(/^\[(.*)\]$/, '$1')))
  env.registerFunction('kubernetes.URL.getPort(): string', (u: CelUrl) => (relative(u) ? '' : u.url.port))
  env.registerFunction('kubernetes.URL.getEscapedPath(): string', (u: CelUrl) => u.url.pathname)
  env.registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', (u: CelUrl) => {
    const query: Record<string, string[]> = {}
    for (const [key, value] of u.url.searchParams) (query[key] ??= []).push(value)
    return query
  })
}
