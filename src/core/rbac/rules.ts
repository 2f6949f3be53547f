/**
 * RBAC's rule matching (the reference's pkg/apis/rbac/v1 evaluation helpers): which policy
 * rule allows which request, and which binding subject names which user. In the core, as the
 * server's RBAC authorizer and `auth can-i` (offline) share it.
 */

/** Who asks: what RBAC reads of the server's UserInfo. */
export interface RbacUser {
  name: string
  groups: readonly string[]
}

/**
 * What is asked: the fields RBAC reads of the server's authorizer Attributes (one request, an
 * impersonation, a review's question, or `auth can-i`'s).
 */
export interface RbacAttributes {
  user: RbacUser
  /** Lower-case: get, list, watch, create, ..., impersonate, escalate, bind; for paths the lower-case method. */
  verb: string
  resourceRequest: boolean
  /** The URL path (non-resource requests). */
  path: string
  namespace: string
  apiGroup: string
  resource: string
  subresource: string
  name: string
}

export interface PolicyRule {
  verbs: string[]
  apiGroups?: string[]
  resources?: string[]
  resourceNames?: string[]
  nonResourceURLs?: string[]
}

export interface Subject {
  kind: string
  apiGroup?: string
  name: string
  namespace?: string
}

export interface RoleRef {
  apiGroup?: string
  kind: string
  name: string
}

const ALL = '*'

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === ALL || v === verb)
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === ALL || g === group)
}

/**
 * `combined` is `resource` or `resource/subresource`; a rule's `*` matches every resource and
 * subresource, `*\/sub` one subresource of every resource.
 */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true
    if (subresource !== '' && r === `*/${subresource}`) return true
  }
  return false
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? []
  return names.length === 0 || names.includes(name)
}

/** `*` matches every path; a trailing `*` matches the paths that start with what precedes it. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === ALL || url === path) return true
    // strings.TrimRight(url, "*"): every trailing star goes.
    if (url.endsWith(ALL) && path.startsWith(url.replace(/\*+$/, ''))) return true
  }
  return false
}

export function ruleAllows(a: RbacAttributes, rule: PolicyRule): boolean {
  if (!a.resourceRequest) return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path)
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource
  return verbMatches(rule, a.verb) && apiGroupMatches(rule, a.apiGroup) && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name)
}

export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:'

/**
 * Whether a binding's subject names the user. A ServiceAccount subject without a namespace
 * means one in the binding's own namespace (none for a cluster binding: it names nobody).
 */
export function subjectAppliesTo(user: RbacUser, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name
    case 'Group':
      return user.groups.includes(subject.name)
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace
      if (!namespace) return false
      return user.name === `${SERVICE_ACCOUNT_PREFIX}${namespace}:${subject.name}`
    }
    default:
      return false
  }
}
