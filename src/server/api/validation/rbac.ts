/**
 * Validation of the rbac.authorization.k8s.io API group, after the reference's
 * `pkg/apis/rbac/validation`: names are path segments (`system:basic-user`), a binding's
 * roleRef names a Role or ClusterRole.
 */
import type { KubeObject } from '../registry/object.js'
import { requiredValue } from '../registry/strategy.js'
import type { Cause } from '../status-errors.js'
import { obj, str } from './helpers.js'

export function validateRoleBinding(o: KubeObject): Cause[] {
  const ref = obj(o.roleRef)
  const causes: Cause[] = []
  if (!str(ref.name)) causes.push(requiredValue('roleRef.name', ''))
  if (!['Role', 'ClusterRole'].includes(str(ref.kind))) causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(str(ref.kind))}: supported values: "Role", "ClusterRole"`, field: 'roleRef.kind' })
  return causes
}
