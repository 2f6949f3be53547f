/**
 * Deriving what a request is from its method and path, as the reference's request-info
 * resolver does: resource requests under /api and /apis get a verb, group, version,
 * namespace, resource, subresource and name; everything else is a non-resource request
 * whose verb is the lower-case method.
 *
 * The path is the one Go's URL parser gives the reference: percent escapes decoded (so `%2f`
 * splits segments and `%2e%2e` is a `..` segment) and nothing else done to it. Dot segments are
 * not resolved (WHATWG URL parsing resolves them, which turned
 * `/api/v1/namespaces/%2e%2e/secrets` into the cluster-wide `/api/v1/secrets`): `..` stays a
 * namespace or name of its own, which names nothing, so a path can never reach more than what
 * authorization is asked about. The router works on the same path.
 */
import type { RequestContext, RequestInfo } from './types.js'

/** Where the query comes from: a URL, or a request context (whose URL is only parsed when there is a query). */
type QuerySource = URL | Pick<RequestContext, 'url' | 'rawQuery'>

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize'])
const LONG_RUNNING_SUBRESOURCES = new Set(['proxy', 'attach', 'exec', 'log', 'portforward'])

export class MalformedPathError extends Error {}

/** Where the path of a request target ends: at its first `?` or `#` (indexOf: two splits made two arrays per request). */
function pathEnd(target: string): number {
  const q = target.indexOf('?')
  const h = target.indexOf('#')
  return q < 0 ? (h < 0 ? target.length : h) : h < 0 || q < h ? q : h
}

/**
 * The request target's path as Go's url.Parse leaves it in URL.Path: percent escapes decoded
 * to bytes (read as UTF-8), dot segments kept; a `%` not followed by two hex digits is malformed.
 */
export function decodeRequestPath(target: string): string {
  const raw = target.slice(0, pathEnd(target))
  if (!raw.includes('%')) return raw
  const bytes: number[] = []
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!
    if (c === '%') {
      const hex = raw.slice(i + 1, i + 3)
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new MalformedPathError(`invalid URL escape ${JSON.stringify(raw.slice(i, i + 3))}`)
      bytes.push(Number.parseInt(hex, 16))
      i += 2
    } else for (const b of Buffer.from(c, 'utf8')) bytes.push(b)
  }
  return Buffer.from(bytes).toString('utf8')
}

/** The decoded path of `url` when the caller has no request target (tests, the debug socket). */
function pathOf(url: URL): string {
  try {
    return decodeRequestPath(url.pathname)
  } catch {
    return url.pathname
  }
}

/** Go's splitPath: the path without its leading and trailing slashes, split on `/` (a scan: a regexp replace cost more per request). */
function splitPath(path: string): string[] {
  let start = 0
  let end = path.length
  while (start < end && path.charCodeAt(start) === 47) start++
  while (end > start && path.charCodeAt(end - 1) === 47) end--
  return start === end ? [] : path.slice(start, end).split('/')
}

export function resolveRequestInfo(method: string, url: QuerySource, decodedPath: string = pathOf(url instanceof URL ? url : url.url)): RequestInfo {
  const path = decodedPath
  const lower = method.toLowerCase()
  // Not under /api or /apis (probes, /version, /metrics): no need to split the path.
  if (!path.startsWith('/api')) return { isResourceRequest: false, path, verb: lower, longRunning: false }
  const parts = splitPath(path)
  const prefix = parts[0]
  if (prefix !== 'api' && prefix !== 'apis') return { isResourceRequest: false, path, verb: lower, longRunning: false }
  const info: RequestInfo = { isResourceRequest: false, path, verb: lower, apiPrefix: prefix, longRunning: false }
  let rest = parts.slice(1)
  if (prefix === 'apis') {
    if (rest.length < 2) return { ...info, apiGroup: rest[0] }
    info.apiGroup = rest[0]
    info.apiVersion = rest[1]
    rest = rest.slice(2)
  } else {
    if (rest.length < 1) return info
    info.apiGroup = ''
    info.apiVersion = rest[0]
    rest = rest.slice(1)
  }
  if (rest.length === 0) return info
  info.isResourceRequest = true
  switch (method) {
    case 'POST':
      info.verb = 'create'
      break
    case 'GET':
    case 'HEAD':
      info.verb = 'get'
      break
    case 'PUT':
      info.verb = 'update'
      break
    case 'PATCH':
      info.verb = 'patch'
      break
    case 'DELETE':
      info.verb = 'delete'
      break
    default:
      info.verb = ''
  }
  if (rest[0] === 'watch') {
    info.verb = 'watch'
    rest = rest.slice(1)
  }
  // `namespaces/<name>` (and its status and finalize subresources) is the namespace itself;
  // anything else under it is a namespaced resource.
  if (rest[0] === 'namespaces' && rest.length > 1) {
    info.namespace = rest[1]
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) rest = rest.slice(2)
  }
  info.resource = rest[0]
  if (rest.length >= 2) info.name = rest[1]
  if (rest.length >= 3) info.subresource = rest[2]
  if (info.name === undefined) {
    if (info.verb === 'get') info.verb = watchRequested(url) ? 'watch' : 'list'
    else if (info.verb === 'delete') info.verb = 'deletecollection'
  }
  info.longRunning = info.verb === 'watch' || (info.subresource !== undefined && LONG_RUNNING_SUBRESOURCES.has(info.subresource))
  return info
}

/** The reference's rule for `watch` on a collection GET: any value but "0" or "false" (any case) watches. */
function watchRequested(source: QuerySource): boolean {
  if (!(source instanceof URL) && source.rawQuery === '') return false
  const value = (source instanceof URL ? source : source.url).searchParams.get('watch')
  if (value === null) return false
  const lower = value.toLowerCase()
  return lower !== '0' && lower !== 'false'
}
