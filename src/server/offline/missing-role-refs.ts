/**
 * The cross-object check of a binding's roleRef: a RoleBinding or ClusterRoleBinding of the
 * input that refers to a Role or ClusterRole that neither the input nor the reference's default
 * policy holds.
 *
 * What the server answers depends on who creates the binding
 * (pkg/registry/rbac/rolebinding/policybased/storage.go): the administrator (system:masters, as
 * whom the offline server creates) may escalate, and the binding is created without the role
 * being looked up; anyone else who may not `bind` the role has its rules resolved first, and a
 * missing role is that lookup's NotFound (`roles.rbac.authorization.k8s.io "x" not found`). So
 * the create itself succeeds offline, and the check is a warning with that text: the binding
 * grants nothing until the role exists, and a CI robot applying it would be refused.
 */
import { bootstrapClusterRoles, bootstrapNamespaceRoles } from '../authorization/rbac-bootstrap-policy.js'
import type { DryRunServer } from './dry-run-server.js'

const RBAC = 'rbac.authorization.k8s.io'
const BINDINGS = new Set([`${RBAC}/v1/RoleBinding`, `${RBAC}/v1/ClusterRoleBinding`])

type Obj = Record<string, unknown>

/** Whether an object is a binding this check reads. */
export function isBinding(object: Obj): boolean {
  return BINDINGS.has(`${String(object.apiVersion ?? '')}/${String(object.kind ?? '')}`)
}

/**
 * The warning for a binding created in `namespace` (RoleBindings only) whose role is missing
 * from the server (the input's roles were created in it) and from the default policy; undefined
 * when the role exists or the reference is not one of RBAC's kinds (validation refused it).
 */
export async function missingRoleWarning(server: DryRunServer, binding: Obj, namespace: string): Promise<string | undefined> {
  const ref = binding.roleRef as Obj | undefined
  if (!ref || ref.apiGroup !== RBAC || typeof ref.name !== 'string') return undefined
  const name = ref.name
  let path: string
  let resource: string
  if (ref.kind === 'ClusterRole') {
    if (defaultRoles().has(`/clusterroles/${name}`)) return undefined
    path = `/apis/${RBAC}/v1/clusterroles/${encodeURIComponent(name)}`
    resource = 'clusterroles'
  } else if (ref.kind === 'Role' && binding.kind === 'RoleBinding') {
    if (defaultRoles().has(`/roles/${namespace}/${name}`)) return undefined
    path = `/apis/${RBAC}/v1/namespaces/${encodeURIComponent(namespace)}/roles/${encodeURIComponent(name)}`
    resource = 'roles'
  } else {
    return undefined
  }
  const answer = await server.send('GET', path)
  if (answer.status !== 404) return undefined
  return `roleRef: ${resource}.${RBAC} ${JSON.stringify(name)} not found: the binding grants nothing, and creating it fails with this NotFound for anyone but a user who may escalate or bind the role`
}

let defaults: Set<string> | undefined

/** The store keys of the default policy's roles and cluster roles (`/clusterroles/x`, `/roles/ns/x`). */
function defaultRoles(): Set<string> {
  defaults ??= new Set([...bootstrapClusterRoles(), ...bootstrapNamespaceRoles()].map((o) => o.key))
  return defaults
}
