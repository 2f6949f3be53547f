/**
 * The 403 of a request the chain did not allow, worded as the reference's
 * responsewriters.Forbidden and apierrors.NewForbidden word it (the wording is the core's,
 * src/core/rbac/forbidden-message.ts, which `auth can-i` shares).
 */
import { type Status, failureStatus } from '../http/status.js'
import type { Attributes } from './authorizer.js'
import { forbiddenCause, forbiddenReason, forbiddenStatusMessage, groupResource, sanitizeHtml } from '../../core/rbac/forbidden-message.js'

export { forbiddenReason, forbiddenStatusMessage, groupResource, sanitizeHtml }

export function forbiddenStatus(resource: string, group: string, name: string, cause: string): Status {
  const details = { ...(name ? { name } : {}), ...(group ? { group } : {}), ...(resource ? { kind: resource } : {}) }
  return failureStatus(403, 'Forbidden', forbiddenStatusMessage(groupResource(resource, group), name, cause), details)
}

/** The Status of a request the authorizers did not allow; `reason` is what they said. */
export function requestForbidden(a: Attributes, reason?: string): Status {
  return forbiddenStatus(a.resource, a.apiGroup, a.name, forbiddenCause(a, reason))
}
