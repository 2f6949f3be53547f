/**
 * Deriving what a request is from its method and path, as the reference's request-info
 * resolver does: resource requests under /api and /apis get a verb, group, version,
 * namespace, resource, subresource and name; everything else is a non-resource request
 * whose verb is the lower-case method.
 */
import type { RequestInfo } from './types.js'

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize'])
const LONG_RUNNING_SUBRESOURCES = new Set(['proxy', 'attach', 'exec', 'log', 'portforward'])

export function resolveRequestInfo(method: string, url: URL): RequestInfo {
  const path = url.pathname
  const lower = method.toLowerCase()
  const nonResource: RequestInfo = { isResourceRequest: false, path, verb: lower, longRunning: false }
  const parts = path.split('/').filter((p, i) => i > 0 || p !== '')
  if (parts[0] === '') parts.shift()
  const prefix = parts[0]
  if (prefix !== 'api' && prefix !== 'apis') return nonResource
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
    if (info.verb === 'get') info.verb = url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1' ? 'watch' : 'list'
    else if (info.verb === 'delete') info.verb = 'deletecollection'
  }
  info.longRunning = info.verb === 'watch' || (info.subresource !== undefined && LONG_RUNNING_SUBRESOURCES.has(info.subresource))
  return info
}
