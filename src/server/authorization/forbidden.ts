/**
 * The 403 of a request the chain did not allow, worded as the reference's
 * responsewriters.Forbidden and apierrors.NewForbidden word it; names and paths are quoted
 * with Go's %q (a path may carry any byte a client escaped into it).
 */
import { type Status, failureStatus } from '../http/status.js'
import type { Attributes } from './authorizer.js'
import { goQuote } from '../api/validation/field/go-format.js'

/** `User "x" cannot list resource "pods" in API group "" in the namespace "default"`, or the path form. */
export function forbiddenReason(a: Attributes): string {
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

export function forbiddenStatus(resource: string, group: string, name: string, cause: string): Status {
  const details = { ...(name ? { name } : {}), ...(group ? { group } : {}), ...(resource ? { kind: resource } : {}) }
  return failureStatus(403, 'Forbidden', forbiddenStatusMessage(groupResource(resource, group), name, cause), details)
}

/** The Status of a request the authorizers did not allow; `reason` is what they said. */
export function requestForbidden(a: Attributes, reason?: string): Status {
  const message = sanitizeHtml(forbiddenReason(a))
  return forbiddenStatus(a.resource, a.apiGroup, a.name, reason ? `${message}: ${reason}` : message)
}
