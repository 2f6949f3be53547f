/**
 * A create that a PUT (of a kind that allows create on update) or an apply makes must be
 * allowed as a create too, as the reference's withAuthorization (endpoints/handlers/rest.go)
 * checks it: asked once the new object is valid; an authorizer's error is a 500, anything but
 * an allow the 403 NewForbidden words with the authorizers' reason.
 */
import { errors } from '../status-errors.js'
import type { CreateRequest } from '../registry/options.js'
import type { Scope } from './scope.js'

/** The store's checkCreate for this request's create; undefined when the server authorizes nothing. */
export function createAuthorization(scope: Scope): (() => Promise<void>) | undefined {
  const authorize = scope.authorizeCreate
  if (!authorize) return undefined
  const { strategy } = scope.store
  const request: CreateRequest = {
    user: scope.ctx.user,
    group: strategy.group,
    version: strategy.version,
    resource: strategy.resource,
    subresource: scope.subresource ?? '',
    namespace: scope.namespace ?? '',
    name: scope.name ?? '',
    path: scope.ctx.info.path,
  }
  return async () => {
    const { decision, reason, error } = await authorize(request)
    if (decision === 'allow') return
    if (error) throw errors.internal(error)
    throw errors.forbidden({ group: request.group, resource: request.resource }, request.name, reason ?? '')
  }
}
