/**
 * Impersonation (the reference's filters/impersonation.go): `Impersonate-User`,
 * `Impersonate-Group`, `Impersonate-Uid` and `Impersonate-Extra-<key>` make the request run as
 * another identity, once the real user has been allowed the `impersonate` verb on each of
 * them: users (or a service account), groups, uids and userextras.
 */
import { httpError } from '../http/respond.js'
import { writeErrorNegotiated } from '../api/negotiation.js'
import { ApiError } from '../api/status-errors.js'
import type { Filter, Handler, Request, RequestContext, Response, UserInfo } from '../http/types.js'
import { type Attributes, type Authorizer, resourceAttributes } from '../authorization/authorizer.js'
import { requestForbidden, sanitizeHtml } from '../authorization/forbidden.js'
import { impersonatedUser, splitServiceAccount } from '../../core/rbac/impersonated-user.js'

export { splitServiceAccount }

const AUTHENTICATION_GROUP = 'authentication.k8s.io'
const EXTRA_PREFIX = 'impersonate-extra-'

/** What is asked for, as the reference's ObjectReference list. */
interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UID' | 'UserExtra'
  namespace?: string
  name: string
  /** UserExtra: the extra key. */
  key?: string
}

/** Each value of each header line, as Go's http.Header keeps them (not comma-split). */
function headerValues(req: Request): Map<string, string[]> | undefined {
  let values: Map<string, string[]> | undefined
  const raw = req.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    // Most requests have no such header: skip the others without lower-casing them.
    if ((raw[i]!.charCodeAt(0) | 0x20) !== 0x69 /* i */) continue
    const name = raw[i]!.toLowerCase()
    if (!name.startsWith('impersonate-')) continue
    values ??= new Map()
    const list = values.get(name) ?? []
    list.push(raw[i + 1]!)
    values.set(name, list)
  }
  return values
}

function unescapeKey(key: string): string {
  try {
    return decodeURIComponent(key)
  } catch {
    return key
  }
}

/** Go's %v of the ObjectReference list in the reference's error. */
function describe(requests: readonly ImpersonationRequest[]): string {
  const one = (r: ImpersonationRequest) => {
    const apiVersion = r.kind === 'UID' || r.kind === 'UserExtra' ? `${AUTHENTICATION_GROUP}/v1` : ''
    return `{${[r.kind, r.namespace ?? '', r.name, '', apiVersion, '', r.key ?? ''].join(' ')}}`
  }
  return `[${requests.map(one).join(' ')}]`
}

export class ImpersonationError extends Error {}

/** What a request without Impersonate-* headers asks for (nearly every request): shared, never changed. */
const NONE: readonly ImpersonationRequest[] = Object.freeze([])

export function impersonationRequests(req: Request): readonly ImpersonationRequest[] {
  const headers = headerValues(req)
  // Nothing to allocate for the usual request: no map, no list.
  if (headers === undefined) return NONE
  const requests: ImpersonationRequest[] = []
  const user = headers.get('impersonate-user')?.[0] ?? ''
  if (user) {
    const sa = splitServiceAccount(user)
    requests.push(sa ? { kind: 'ServiceAccount', ...sa } : { kind: 'User', name: user })
  }
  const groups = headers.get('impersonate-group') ?? []
  for (const group of groups) requests.push({ kind: 'Group', name: group })
  let hasExtra = false
  for (const [name, values] of headers) {
    if (!name.startsWith(EXTRA_PREFIX)) continue
    hasExtra = true
    const key = unescapeKey(name.slice(EXTRA_PREFIX.length))
    for (const value of values) requests.push({ kind: 'UserExtra', name: value, key })
  }
  const uid = headers.get('impersonate-uid')?.[0] ?? ''
  if (uid) requests.push({ kind: 'UID', name: uid })
  if ((groups.length > 0 || hasExtra || uid) && !user) throw new ImpersonationError(`requested ${describe(requests)} without impersonating a user`)
  return requests
}

function actingAs(requestor: UserInfo, r: ImpersonationRequest): Attributes {
  switch (r.kind) {
    case 'ServiceAccount':
      return resourceAttributes(requestor, { verb: 'impersonate', resource: 'serviceaccounts', namespace: r.namespace ?? '', name: r.name })
    case 'User':
      return resourceAttributes(requestor, { verb: 'impersonate', resource: 'users', name: r.name })
    case 'Group':
      return resourceAttributes(requestor, { verb: 'impersonate', resource: 'groups', name: r.name })
    case 'UID':
      return resourceAttributes(requestor, { verb: 'impersonate', apiGroup: AUTHENTICATION_GROUP, resource: 'uids', name: r.name })
    case 'UserExtra':
      return resourceAttributes(requestor, { verb: 'impersonate', apiGroup: AUTHENTICATION_GROUP, resource: 'userextras', subresource: r.key ?? '', name: r.name })
  }
}

export function withImpersonation(authorizer: Authorizer): Filter {
  // A request without Impersonate-* headers (nearly all) goes straight on, without waiting a turn.
  return (next) => (req, res, ctx) => {
    let requests: readonly ImpersonationRequest[]
    try {
      requests = impersonationRequests(req)
    } catch (err) {
      httpError(res, 500, sanitizeHtml(`Internal Server Error: ${JSON.stringify(req.url ?? '')}: ${(err as Error).message}`))
      return
    }
    if (requests.length === 0) return next(req, res, ctx)
    return impersonate(requests, next, req, res, ctx)
  }

  async function impersonate(requests: readonly ImpersonationRequest[], next: Handler, req: Request, res: Response, ctx: RequestContext): Promise<void> {
    const requestor = ctx.user!
    let username = ''
    let uid: string | undefined
    const groups: string[] = []
    const extra: Record<string, string[]> = {}
    for (const r of requests) {
      const attributes = actingAs(requestor, r)
      switch (r.kind) {
        case 'ServiceAccount':
          username = `system:serviceaccount:${r.namespace}:${r.name}`
          break
        case 'User':
          username = r.name
          break
        case 'Group':
          groups.push(r.name)
          break
        case 'UID':
          uid = r.name
          break
        case 'UserExtra':
          ;(extra[r.key ?? ''] ??= []).push(r.name)
          break
      }
      const { decision, reason } = await authorizer.authorize(attributes)
      if (decision !== 'allow') {
        await writeErrorNegotiated(req, res, new ApiError(requestForbidden(attributes, reason)))
        return
      }
    }
    ctx.user = { ...impersonatedUser(username, groups), ...(uid !== undefined ? { uid } : {}), ...(Object.keys(extra).length ? { extra } : {}) }
    for (const name of Object.keys(req.headers)) if (name.startsWith('impersonate-')) delete req.headers[name]
    return next(req, res, ctx)
  }
}
