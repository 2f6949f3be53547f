/**
 * RBAC's escalation prevention (the reference's pkg/registry/rbac/*\/policybased and
 * pkg/registry/rbac/validation): a user may create or update a Role or ClusterRole only with
 * rules they already hold (or with the `escalate` verb on it), and a binding only to a role
 * whose rules they hold (or with the `bind` verb on it). `system:masters` is exempt.
 */
import { currentRequester } from '../api/requester.js'
import type { KubeObject } from '../api/registry/object.js'
import type { WriteCheck } from '../api/registry/options.js'
import { ApiError, errors } from '../api/status-errors.js'
import type { UserInfo } from '../http/types.js'
import { PRIVILEGED_GROUP } from './always.js'
import { type Authorizer, resourceAttributes } from './authorizer.js'
import { forbiddenStatus } from './forbidden.js'
import { RBAC_GROUP, toBinding } from './rbac-policy.js'
import type { PolicyRule } from './rbac-rules.js'
import type { RbacAuthorizer } from './rbac.js'

const has = (set: readonly string[] | undefined, item: string) => (set ?? []).includes(item)
const hasAll = (set: readonly string[] | undefined, items: readonly string[] | undefined) => (items ?? []).every((i) => has(set, i))

/** One rule per group, resource, verb (and name), and per URL and verb. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = []
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if ((rule.resourceNames ?? []).length > 0) {
          for (const name of rule.resourceNames!) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] })
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] })
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] })
  return out
}

function resourceCoversAll(owned: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owned, '*') || hasAll(owned, wanted)) return true
  for (const path of wanted ?? []) {
    if (has(owned, path)) continue
    const slash = path.indexOf('/')
    if (slash < 0 || !has(owned, `*/${path.slice(slash + 1)}`)) return false
  }
  return true
}

function nonResourceURLsCoverAll(owned: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  return (wanted ?? []).every((w) => (owned ?? []).some((o) => o === w || (o.endsWith('*') && w.startsWith(o.replace(/\*+$/, '')))))
}

export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs)
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups)
  const ownerNames = owner.resourceNames ?? []
  const names = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames)
  return verbs && groups && resourceCoversAll(owner.resources, sub.resources) && names && nonResourceURLsCoverAll(owner.nonResourceURLs, sub.nonResourceURLs)
}

/** Whether `owned` covers every rule of `wanted`, and the broken-down rules it does not. */
export function covers(owned: readonly PolicyRule[], wanted: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing = wanted.flatMap(breakdownRule).filter((sub) => !owned.some((o) => ruleCovers(o, sub)))
  return { covered: missing.length === 0, missing }
}

/** Merges rules on one group and resource (and at most one name) into one rule with all their verbs. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = []
  const simple = new Map<string, PolicyRule>()
  for (const rule of rules) {
    const names = rule.resourceNames ?? []
    const isSimple = names.length <= 1 && (rule.nonResourceURLs ?? []).length === 0 && (rule.apiGroups ?? []).length === 1 && (rule.resources ?? []).length === 1
    if (!isSimple) {
      compacted.push(rule)
      continue
    }
    const key = JSON.stringify([rule.apiGroups![0], rule.resources![0], names.length > 0, names[0] ?? ''])
    const existing = simple.get(key)
    if (existing) {
      for (const verb of rule.verbs) if (!existing.verbs.includes(verb)) existing.verbs.push(verb)
    } else {
      simple.set(key, { ...rule, verbs: [...rule.verbs] })
    }
  }
  return [...compacted, ...simple.values()]
}

/** Go's %q of a string slice: `["a" "b"]`. */
const quoted = (list: readonly string[]) => `[${list.map((s) => JSON.stringify(s)).join(' ')}]`

/** rbacv1helpers.CompactString. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = []
  if ((rule.apiGroups ?? []).length) parts.push(`APIGroups:${quoted(rule.apiGroups!)}`)
  if ((rule.resources ?? []).length) parts.push(`Resources:${quoted(rule.resources!)}`)
  if ((rule.nonResourceURLs ?? []).length) parts.push(`NonResourceURLs:${quoted(rule.nonResourceURLs!)}`)
  if ((rule.resourceNames ?? []).length) parts.push(`ResourceNames:${quoted(rule.resourceNames!)}`)
  if (rule.verbs.length) parts.push(`Verbs:${quoted(rule.verbs)}`)
  return `{${parts.join(', ')}}`
}

/** The reason a grant is refused, or undefined when the user holds every rule granted. */
export function escalationMessage(rbac: RbacAuthorizer, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owned = rbac.policyRulesFor(user, namespace)
  const { covered, missing } = covers(owned.rules, rules)
  if (covered) return undefined
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort()
  let message = `user ${JSON.stringify(user.name)} (groups=${quoted(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`
  if (owned.errors.length) message += `; resolution errors: [${owned.errors.length === 1 ? owned.errors[0] : `[${owned.errors.join(', ')}]`}]`
  return message
}

const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
]

const rulesOf = (obj: KubeObject) => (Array.isArray(obj.rules) ? (obj.rules as PolicyRule[]) : [])

/** Only metadata.ownerReferences and finalizers changed: the garbage collector's writes are never escalations. */
function onlyGcFields(obj: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _r, managedFields: _m, ...meta } = o.metadata
    void _o, void _f, void _r, void _m
    return JSON.stringify({ ...o, metadata: meta })
  }
  return strip(obj) === strip(old)
}

/** The escalation checks of the four RBAC kinds, as write checks for the registry. */
export function escalationChecks(authorizer: Authorizer, rbac: () => RbacAuthorizer | undefined): Record<string, WriteCheck> {
  const privileged = (user: UserInfo) => user.groups.includes(PRIVILEGED_GROUP)
  const current = () => currentRequester()

  const checkRole = (resource: 'roles' | 'clusterroles') => async (obj: KubeObject, old?: KubeObject) => {
    const who = current()
    const resolver = rbac()
    if (!who || !resolver || privileged(who.user)) return
    if (old && onlyGcFields(obj, old)) return
    const name = obj.metadata.name ?? ''
    const namespace = obj.metadata.namespace ?? ''
    const escalate = await authorizer.authorize(
      resourceAttributes(who.user, { verb: 'escalate', apiGroup: who.info.apiGroup ?? RBAC_GROUP, apiVersion: '*', resource: who.info.resource ?? resource, name: who.info.name ?? '', namespace: who.info.namespace ?? '' }),
    )
    if (escalate.decision === 'allow') return
    const message = escalationMessage(resolver, who.user, namespace, rulesOf(obj))
    if (message) throw new ApiError(forbiddenStatus(resource, RBAC_GROUP, name, message))
    if (resource === 'clusterroles' && obj.aggregationRule && escalationMessage(resolver, who.user, namespace, FULL_AUTHORITY)) {
      throw new ApiError(forbiddenStatus(resource, RBAC_GROUP, name, 'must have cluster-admin privileges to use the aggregationRule'))
    }
  }

  const checkBinding = (resource: 'rolebindings' | 'clusterrolebindings') => async (obj: KubeObject, old?: KubeObject) => {
    const who = current()
    const resolver = rbac()
    if (!who || !resolver || privileged(who.user)) return
    if (old && onlyGcFields(obj, old)) return
    const binding = toBinding(obj)
    const ref = binding.roleRef
    if (ref.kind === 'Role' || ref.kind === 'ClusterRole') {
      const bind = await authorizer.authorize(
        resourceAttributes(who.user, { verb: 'bind', apiGroup: ref.apiGroup ?? RBAC_GROUP, resource: ref.kind === 'Role' ? 'roles' : 'clusterroles', name: ref.name, namespace: binding.namespace }),
      )
      if (bind.decision === 'allow') return
    }
    const rules = resolver.roleReferenceRules(ref, binding.namespace, true)
    if (typeof rules === 'string') throw errors.badRequest(rules)
    const message = escalationMessage(resolver, who.user, binding.namespace, rules)
    if (message) throw new ApiError(forbiddenStatus(resource, RBAC_GROUP, binding.name, message))
  }

  const role = (resource: 'roles' | 'clusterroles'): WriteCheck => {
    const check = checkRole(resource)
    return { beforeCreate: (o) => check(o), beforeUpdate: (o, old) => check(o, old) }
  }
  const binding = (resource: 'rolebindings' | 'clusterrolebindings'): WriteCheck => {
    const check = checkBinding(resource)
    return { beforeCreate: (o) => check(o), beforeUpdate: (o, old) => check(o, old) }
  }
  return {
    [`${RBAC_GROUP}/roles`]: role('roles'),
    [`${RBAC_GROUP}/clusterroles`]: role('clusterroles'),
    [`${RBAC_GROUP}/rolebindings`]: binding('rolebindings'),
    [`${RBAC_GROUP}/clusterrolebindings`]: binding('clusterrolebindings'),
  }
}
