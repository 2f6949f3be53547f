/**
 * rbac.authorization.k8s.io/v1: Roles, ClusterRoles and their bindings, named by path segment.
 * Validation and the bindings' defaults in ../validation/rbac.ts; escalation prevention is the
 * server's write check (RegistryOptions.writeChecks).
 */
import {
  defaultBinding,
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateRole,
  validateRoleBinding,
  validateRoleBindingUpdate,
} from '../validation/rbac.js'
import { pathSegmentName } from '../validation/names.js'
import { AGE_COLUMN, NAME_COLUMN, type TableColumns, age } from '../table.js'
import type { KindTable } from './kind.js'
import { CREATED_AT, col, obj, str } from './values.js'

function bindingTable(): TableColumns {
  return {
    definitions: [NAME_COLUMN, col('Role', 'RoleRef references a Role or ClusterRole.'), AGE_COLUMN],
    cells: (o, now) => {
      const ref = obj(o.roleRef)
      return [o.metadata.name, `${str(ref.kind)}/${str(ref.name)}`, age(o, now)]
    },
  }
}

export const RBAC: KindTable = {
  'rbac.authorization.k8s.io/v1/roles': { validateName: pathSegmentName, validate: validateRole, table: CREATED_AT, createOnUpdate: true },
  'rbac.authorization.k8s.io/v1/clusterroles': { validateName: pathSegmentName, validate: validateClusterRole, table: CREATED_AT, createOnUpdate: true },
  'rbac.authorization.k8s.io/v1/rolebindings': {
    validateName: pathSegmentName,
    defaults: defaultBinding,
    validate: validateRoleBinding,
    validateUpdate: validateRoleBindingUpdate,
    table: bindingTable(),
    createOnUpdate: true,
  },
  'rbac.authorization.k8s.io/v1/clusterrolebindings': {
    createOnUpdate: true,
    validateName: pathSegmentName,
    defaults: defaultBinding,
    validate: validateClusterRoleBinding,
    validateUpdate: validateClusterRoleBindingUpdate,
    table: bindingTable(),
  },
}
