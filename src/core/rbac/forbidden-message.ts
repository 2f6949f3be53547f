/**
 * The wording of a request the authorizers did not allow (the reference's
 * responsewriters.Forbidden and apierrors.NewForbidden), with names and paths quoted as Go's
 * %q does: the server's 403 (src/server/authorization/forbidden.ts) and what `auth can-i`
 * prints when the review itself would be refused.
 */
import { goQuote } from '../util/go-quote.js'
import type { RbacAttributes } from './rules.js'

/** `User "x" cannot list resource "pods" in API group "" in the namespace "default"`, or the path form. */
export function forbiddenReason(a: RbacAttributes): string {
  const user = goQuote(a.user.name)
  if (!a.resourceRequest) return `User ${user} cannot ${a.verb} path ${goQuote(a.path)}`
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource
  const scope = a.namespace ? `in the namespace ${goQuote(a.namespace)}` : 'at the cluster scope'
  return `User ${user} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)} ${scope}`
}

/** The reference's HTML sanitising of the message (it may carry user-supplied names). */
export function sanitizeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** schema.GroupResource.String(): `pods`, `deployments.apps`. */
export function groupResource(resource: string, group: string): string {
  return group ? `${resource}.${group}` : resource
}

/** apierrors.NewForbidden's message for a resource (empty resource: the `forbidden: ...` form). */
export function forbiddenStatusMessage(resource: string, name: string, cause: string): string {
  if (!resource) return `forbidden: ${cause}`
  return name ? `${resource} ${goQuote(name)} is forbidden: ${cause}` : `${resource} is forbidden: ${cause}`
}

/** Why a request the authorizers did not allow is refused; `reason` is what they said. */
export function forbiddenCause(a: RbacAttributes, reason?: string): string {
  const message = sanitizeHtml(forbiddenReason(a))
  return reason ? `${message}: ${reason}` : message
}

/** The message of the 403 of such a request. */
export function requestForbiddenMessage(a: RbacAttributes, reason?: string): string {
  return forbiddenStatusMessage(groupResource(a.resource, a.apiGroup), a.name, forbiddenCause(a, reason))
}
