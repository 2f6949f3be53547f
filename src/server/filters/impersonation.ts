/**
 * Impersonate-User, Impersonate-Group, Impersonate-Uid and Impersonate-Extra-* headers: the
 * request runs as the named user if the real user may impersonate each of them.
 */
import { jsonResponse } from '../http/respond.js'
import { failureStatus } from '../http/status.js'
import type { Filter, UserInfo } from '../http/types.js'
import { type Attributes, type Authorizer, decide } from './authorization.js'

const headerList = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)

export function withImpersonation(authorizers: readonly Authorizer[]): Filter {
  return (next) => async (req, res, ctx) => {
    const userName = req.headers['impersonate-user']
    const groups = headerList(req.headers['impersonate-group'])
    const uid = req.headers['impersonate-uid']
    const extra: Record<string, string[]> = {}
    for (const [name, value] of Object.entries(req.headers)) {
      if (!name.startsWith('impersonate-extra-')) continue
      extra[decodeURIComponent(name.slice('impersonate-extra-'.length))] = headerList(value as string | string[])
    }
    if (userName === undefined && groups.length === 0 && uid === undefined && Object.keys(extra).length === 0) return next(req, res, ctx)
    const name = Array.isArray(userName) ? userName[0] : userName
    if (!name) {
      jsonResponse(res, 500, failureStatus(500, 'InternalError', 'Internal error occurred: requested impersonation of groups or extras without impersonating a user'))
      return
    }
    const real = ctx.user!
    const checks: Attributes['impersonate'][] = [
      { resource: 'users', name },
      ...groups.map((g) => ({ resource: 'groups' as const, name: g })),
      ...(typeof uid === 'string' ? [{ resource: 'uids' as const, name: uid }] : []),
      ...Object.entries(extra).flatMap(([key, values]) => values.map((v) => ({ resource: 'userextras' as const, name: v, subresource: key }))),
    ]
    for (const impersonate of checks) {
      const { decision, reason } = await decide(authorizers, { user: real, verb: 'impersonate', info: ctx.info, impersonate })
      if (decision !== 'allow') {
        const message = `${impersonate!.resource} ${JSON.stringify(impersonate!.name)} is forbidden: User ${JSON.stringify(real.name)} cannot impersonate resource ${JSON.stringify(impersonate!.resource)} in API group "" at the cluster scope${reason ? `: ${reason}` : ''}`
        jsonResponse(res, 403, { ...failureStatus(403, 'Forbidden', message), details: { name: impersonate!.name, kind: impersonate!.resource } })
        return
      }
    }
    const impersonated: UserInfo = {
      name,
      groups: name === 'system:anonymous' || groups.includes('system:authenticated') ? groups : [...groups, 'system:authenticated'],
      ...(typeof uid === 'string' ? { uid } : {}),
      ...(Object.keys(extra).length ? { extra } : {}),
    }
    ctx.user = impersonated
    return next(req, res, ctx)
  }
}
