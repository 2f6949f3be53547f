/**
 * The default RBAC objects in the order the rbac/bootstrap-roles hook writes them: the policy
 * (src/server/authorization/rbac-bootstrap-policy.ts, rbac-controller-policy.ts) is the RBAC
 * authorizer's; writing and reconciling it is bootstrap's (rbac-reconcile.ts).
 */
import type { BootstrapObject } from './objects.js'
import { controllerClusterRoleBindings, controllerClusterRoles } from '../authorization/rbac-controller-policy.js'
import {
  bootstrapClusterRoleBindings,
  bootstrapClusterRoles,
  bootstrapNamespaceRoleBindings,
  bootstrapNamespaceRoles,
} from '../authorization/rbac-bootstrap-policy.js'

/** Everything, cluster-scoped first (namespaced roles need kube-system and kube-public to exist). */
export function bootstrapRbac(): BootstrapObject[] {
  return [
    ...bootstrapClusterRoles(),
    ...controllerClusterRoles(),
    ...bootstrapClusterRoleBindings(),
    ...controllerClusterRoleBindings(),
    ...bootstrapNamespaceRoles(),
    ...bootstrapNamespaceRoleBindings(),
  ]
}
