/**
 * What `auth can-i` and `auth who-can` take from the server to answer without one: its
 * discovery (the built-in resources a default `server start` serves: GA versions, no feature
 * gate) to resolve TYPE as kubectl would, and its default RBAC policy (the bootstrap roles and
 * bindings every new cluster starts with).
 */
import type { OfflineAuthDeps } from '../core/auth-can-i/run.js'
import type { RbacObject } from '../core/rbac/policy.js'
import { versionStability } from '../core/options/api-groups.js'
import { RESOURCES } from '../server/api/generated/resources.js'
import { bootstrapRbac } from '../server/bootstrap/rbac.js'

export function offlineAuthDeps(): OfflineAuthDeps {
  return {
    discovery: { resources: RESOURCES.filter((r) => r.featureGate === undefined && versionStability(r.version) === 'ga') },
    defaultPolicy: () => bootstrapRbac().map((b) => b.object as RbacObject),
  }
}
