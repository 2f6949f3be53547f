/**
 * `auth who-can`: the bindings through which some subject may do what is asked, printed as
 * kubectl-who-can prints them (RoleBindings of the namespace, or of every namespace with -A,
 * then ClusterRoleBindings, each row a subject of the binding). Whether a binding grants it is
 * the RBAC authorizer's own answer: the rules of the binding's role (a Role of the binding's
 * namespace or a ClusterRole) as the authorizer resolves them, matched as it matches them.
 */
import type { RbacAuthorizer } from '../rbac/authorizer.js'
import type { Binding, PolicyObjects } from '../rbac/policy.js'
import { type RbacAttributes, ruleAllows } from '../rbac/rules.js'
import { type TabwriterSettings, tabwrite } from '../printers/tabwriter.js'

/** kubectl-who-can's tab writer: minwidth 0, padding 2. */
const WHO_CAN_TABWRITER: TabwriterSettings = { minWidth: 0, padding: 2 }

export interface WhoCanQuestion {
  /** The attributes asked about (the user is not read). */
  attributes: RbacAttributes
  /** Every namespace (-A). */
  allNamespaces: boolean
  /** `get pods/name`, `get /logs`: what the messages call the action. */
  action: string
}

const byName = (a: Binding, b: Binding) => (a.namespace === b.namespace ? cmp(a.name, b.name) : cmp(a.namespace, b.namespace))
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The bindings granting it: role bindings (none for a non-resource URL), cluster role bindings. */
export function bindingsGranting(policy: PolicyObjects, authorizer: RbacAuthorizer, q: WhoCanQuestion): { roleBindings: Binding[]; clusterRoleBindings: Binding[] } {
  const grants = (binding: Binding, namespace: string) => {
    const rules = authorizer.roleReferenceRules(binding.roleRef, binding.namespace)
    return typeof rules !== 'string' && rules.some((rule) => ruleAllows({ ...q.attributes, namespace }, rule))
  }
  const roleBindings: Binding[] = []
  if (q.attributes.resourceRequest) {
    const namespaces = q.allNamespaces ? [...policy.roleBindingNamespaces()] : [q.attributes.namespace]
    for (const namespace of namespaces) for (const b of policy.roleBindings(namespace)) if (grants(b, namespace)) roleBindings.push(b)
  }
  const clusterRoleBindings = [...policy.clusterRoleBindings()].filter((b) => grants(b, q.attributes.namespace))
  return { roleBindings: roleBindings.sort(byName), clusterRoleBindings: clusterRoleBindings.sort(byName) }
}

/**
 * kubectl-who-can's output (its printer's default, not wide, format). The tab writer flushes
 * at the empty line after the RoleBindings, so each part is in columns of its own, in order.
 */
export function printWhoCan(q: WhoCanQuestion, found: { roleBindings: Binding[]; clusterRoleBindings: Binding[] }): string {
  let out = ''
  if (q.attributes.resourceRequest) {
    if (found.roleBindings.length === 0) out += `No subjects found with permissions to ${q.action} assigned through RoleBindings\n`
    else {
      let table = 'ROLEBINDING\tNAMESPACE\tSUBJECT\tTYPE\tSA-NAMESPACE\n'
      for (const b of found.roleBindings) for (const s of b.subjects) table += `${b.name}\t${b.namespace}\t${s.name}\t${s.kind}\t${s.namespace ?? ''}\n`
      out += tabwrite(table, WHO_CAN_TABWRITER)
    }
    out += '\n'
  }
  if (found.clusterRoleBindings.length === 0) return `${out}No subjects found with permissions to ${q.action} assigned through ClusterRoleBindings\n`
  let table = 'CLUSTERROLEBINDING\tSUBJECT\tTYPE\tSA-NAMESPACE\n'
  for (const b of found.clusterRoleBindings) for (const s of b.subjects) table += `${b.name}\t${s.name}\t${s.kind}\t${s.namespace ?? ''}\n`
  return out + tabwrite(table, WHO_CAN_TABWRITER)
}
