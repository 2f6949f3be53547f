/**
 * What `auth can-i` and `auth who-can` take from the server to answer without one: its
 * discovery, to resolve TYPE as kubectl would (the kinds a default `server start` serves, with
 * `--runtime-config` and the feature gates at their defaults: the generated table of built-in
 * resources first, the whole list of kinds, which costs more to load (served-kinds.ts), only
 * for a type not in it), and its default RBAC policy (the bootstrap roles and bindings every
 * new cluster starts with).
 */
import type { OfflineAuthDeps } from '../core/auth-can-i/question.js'
import { versionStability } from '../core/options/api-groups.js'
import type { RbacObject } from '../core/rbac/policy.js'
import { RESOURCES } from '../server/api/generated/resources.js'
import { bootstrapRbac } from '../server/bootstrap/rbac.js'

export function offlineAuthDeps(): OfflineAuthDeps {
  return {
    discovery: {
      // What enabledKinds leaves on by default, read from the generated table alone.
      resources: RESOURCES.filter((r) => r.featureGate === undefined && versionStability(r.version) === 'ga'),
      all: async () => (await import('./served-kinds.js')).servedKinds(),
    },
    defaultPolicy: () => bootstrapRbac().map((b) => b.object as RbacObject),
  }
}
