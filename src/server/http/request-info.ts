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
import { SelectorError, exactFieldMatch, parseFieldSelectorTerms, parseLabelSelector } from './selectors.js'

/** Where the query comes from: a URL, or a request context (whose URL is only parsed when there is a query). */
type QuerySource = URL | Pick<RequestContext, 'url' | 'rawQuery'>

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize'])
/** Verbs a path may give (`/api/v1/watch/pods`); a proxy path has no subresource. */
const SPECIAL_VERBS = new Set(['proxy', 'watch'])
const SPECIAL_VERBS_NO_SUBRESOURCES = new Set(['proxy'])
/** The verbs whose selectors authorization is told about. */
const VERBS_WITH_SELECTORS = new Set(['list', 'watch', 'deletecollection'])
/** The reference's BasicLongRunningRequestCheck: these verbs and subresources. */
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy'])
const LONG_RUNNING_SUBRESOURCES = new Set(['proxy', 'attach', 'exec', 'log', 'portforward'])
/** The ListOptions parameters decoded as Go int64s: one that is not makes the decoding fail. */
const INT64_PARAMETERS = ['timeoutSeconds', 'limit']
const METHOD_VERBS: Readonly<Record<string, string>> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' }

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
  // The group and version of a discovery path are kept for the router (the reference leaves them empty).
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
  // `/watch/...` and `/proxy/...`: the verb is in the path (deprecated, still resolved).
  const verbViaPathPrefix = SPECIAL_VERBS.has(rest[0]!)
  if (verbViaPathPrefix) {
    if (rest.length < 2) return { ...info, error: 'unable to determine kind and namespace from url' }
    info.verb = rest[0]!
    rest = rest.slice(1)
  } else info.verb = METHOD_VERBS[method] ?? ''
  // `namespaces/<name>` (and its status and finalize subresources) is the namespace itself;
  // anything else under it is a namespaced resource.
  if (rest[0] === 'namespaces' && rest.length > 1) {
    info.namespace = rest[1]
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2)
  }
  info.parts = rest
  info.resource = rest[0]
  // An empty name (`pods//status`) is no name, as the reference's len(Name) == 0 checks say.
  if (rest.length >= 2 && rest[1] !== '') info.name = rest[1]
  // A proxy path's further parts are the proxied path, not a subresource.
  if (rest.length >= 3 && !SPECIAL_VERBS_NO_SUBRESOURCES.has(info.verb)) info.subresource = rest[2]
  if (info.name === undefined) {
    if (info.verb === 'get') collectionRead(info, url)
    else if (info.verb === 'delete') info.verb = 'deletecollection'
  }
  if (!verbViaPathPrefix && VERBS_WITH_SELECTORS.has(info.verb)) {
    const query = queryOf(url)
    const fieldSelector = query?.get('fieldSelector')
    const labelSelector = query?.get('labelSelector')
    if (fieldSelector) info.fieldSelector = fieldSelector
    if (labelSelector) info.labelSelector = labelSelector
  }
  info.longRunning = LONG_RUNNING_VERBS.has(info.verb) || (info.subresource !== undefined && LONG_RUNNING_SUBRESOURCES.has(info.subresource))
  return info
}

/**
 * A GET of a collection is a list, or a watch when asked; either asks for one object when its
 * field selector requires `metadata.name=<name>` (how node agents watch one secret, and how a
 * Role's resourceNames can allow the list or watch of one object). The reference takes that
 * name only when the whole query decodes as ListOptions.
 */
function collectionRead(info: RequestInfo, source: QuerySource): void {
  const query = queryOf(source)
  info.verb = query !== undefined && watchRequested(query) ? 'watch' : 'list'
  const name = query === undefined ? undefined : selectedName(query)
  if (name !== undefined) info.name = name
}

/** The name a query's `metadata.name=` field selector asks for; undefined when ListOptions would not decode or the name could not be a path segment. */
function selectedName(query: URLSearchParams): string | undefined {
  const fieldSelector = query.get('fieldSelector')
  if (!fieldSelector) return undefined
  let name: string | undefined
  try {
    name = exactFieldMatch(parseFieldSelectorTerms(fieldSelector), 'metadata.name')
    parseLabelSelector(query.get('labelSelector'))
  } catch (err) {
    if (err instanceof SelectorError) return undefined
    throw err
  }
  for (const param of INT64_PARAMETERS) {
    const value = query.get(param)
    if (value !== null && !isGoInt64(value)) return undefined
  }
  if (name === undefined || name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('%')) return undefined
  return name
}

/** strconv.ParseInt(s, 10, 64) succeeds. */
function isGoInt64(value: string): boolean {
  if (!/^[+-]?[0-9]+$/.test(value)) return false
  const n = BigInt(value)
  return n >= -(2n ** 63n) && n < 2n ** 63n
}

/** The query of a request; undefined when it has none (its URL is then not parsed). */
function queryOf(source: QuerySource): URLSearchParams | undefined {
  if (!(source instanceof URL) && source.rawQuery === '') return undefined
  return (source instanceof URL ? source : source.url).searchParams
}

/** The reference's rule for `watch` on a collection GET: any value but "0" or "false" (any case) watches. */
function watchRequested(query: URLSearchParams): boolean {
  const value = query.get('watch')
  if (value === null) return false
  const lower = value.toLowerCase()
  return lower !== '0' && lower !== 'false'
}

/**
 * The name the path gives, which the router serves; a list's or watch's `metadata.name=`
 * field selector also names an object (for authorization, audit and metrics) but stays a
 * collection read.
 */
export function pathName(info: RequestInfo): string | undefined {
  return info.parts !== undefined && info.parts.length >= 2 ? info.name : undefined
}
