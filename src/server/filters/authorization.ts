/**
 * Whether the user may do what the request asks. Authorizers (one per --authorization-mode)
 * are asked in order; the first that allows or denies decides; if none has an opinion the
 * request is forbidden.
 */
import { jsonResponse } from '../http/respond.js'
import { failureStatus } from '../http/status.js'
import type { Filter, RequestInfo, UserInfo } from '../http/types.js'

export interface Attributes {
  user: UserInfo
  verb: string
  info: RequestInfo
  /** For impersonation checks: the impersonated kind of thing and its name. */
  impersonate?: { resource: 'users' | 'groups' | 'uids' | 'userextras'; name: string; subresource?: string }
}

export type Decision = { decision: 'allow' | 'deny' | 'noOpinion'; reason?: string }

export interface Authorizer {
  authorize(attributes: Attributes): Decision | Promise<Decision>
}

export const alwaysAllow: Authorizer = { authorize: () => ({ decision: 'allow' }) }
export const alwaysDeny: Authorizer = { authorize: () => ({ decision: 'deny' }) }

export async function decide(authorizers: readonly Authorizer[], attributes: Attributes): Promise<Decision> {
  for (const authorizer of authorizers) {
    const result = await authorizer.authorize(attributes)
    if (result.decision !== 'noOpinion') return result
  }
  return { decision: 'noOpinion' }
}

/** The reference's Forbidden message for a request. */
export function forbiddenMessage(user: UserInfo, info: RequestInfo, reason?: string): string {
  const suffix = reason ? `: ${reason}` : ''
  if (!info.isResourceRequest) return `forbidden: User ${JSON.stringify(user.name)} cannot ${info.verb} path ${JSON.stringify(info.path)}${suffix}`
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : (info.resource ?? '')
  const subject = info.name ? `${info.resource} ${JSON.stringify(info.name)}` : (info.resource ?? '')
  const scope = info.namespace ? `in the namespace ${JSON.stringify(info.namespace)}` : 'at the cluster scope'
  return `${subject} is forbidden: User ${JSON.stringify(user.name)} cannot ${info.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(info.apiGroup ?? '')} ${scope}${suffix}`
}

export function withAuthorization(authorizers: readonly Authorizer[]): Filter {
  return (next) => async (req, res, ctx) => {
    const user = ctx.user!
    const { decision, reason } = await decide(authorizers, { user, verb: ctx.info.verb, info: ctx.info })
    if (decision === 'allow') return next(req, res, ctx)
    const info = ctx.info
    const details = info.isResourceRequest ? { ...(info.name ? { name: info.name } : {}), group: info.apiGroup ?? '', kind: info.resource ?? '' } : {}
    jsonResponse(res, 403, { ...failureStatus(403, 'Forbidden', forbiddenMessage(user, info, reason)), details })
  }
}
