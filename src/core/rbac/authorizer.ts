/**
 * The RBAC mode (the reference's plugin/pkg/auth/authorizer/rbac and the rule resolver of
 * pkg/registry/rbac/validation): a request is allowed when a rule of a role bound to the user
 * (by a ClusterRoleBinding, or by a RoleBinding in the request's namespace) allows it.
 * Otherwise RBAC has no opinion, and bindings to roles that do not exist are the reason. In the
 * core, as the server's RBAC mode (src/server/authorization/rbac.ts) and `auth can-i` share it.
 */
import { aggregate } from '../util/aggregate-errors.js'
import { type Binding, type PolicySource, RBAC_GROUP } from './policy.js'
import { type PolicyRule, type RbacAttributes, type RbacUser, type RoleRef, type Subject, ruleAllows, subjectAppliesTo } from './rules.js'

/** The authorizer's answer (the server's Decision): RBAC allows, or has no opinion and may say why. */
export interface RbacDecision {
  decision: 'allow' | 'noOpinion'
  reason?: string
}

/** The rules of a user in a namespace, as SelfSubjectRulesReview reports them (the server's Rules). */
export interface RbacRules {
  resourceRules: Array<{ verbs: string[]; apiGroups: string[]; resources: string[]; resourceNames: string[] }>
  nonResourceRules: Array<{ verbs: string[]; nonResourceURLs: string[] }>
  incomplete: boolean
  errors: string[]
}

/** Where a rule comes from: a binding and the first of its subjects that names the user. */
export interface RuleSource {
  binding: Binding
  subject: Subject
}

/** Visits each rule that applies; returning false stops. `error` is a resolution error. */
type Visitor = (rule: PolicyRule | undefined, error: string | undefined, source?: RuleSource) => boolean

/** Decisions kept per policy generation; beyond this many distinct requests the memo starts afresh. */
const MEMO_LIMIT = 4096

/** Everything an RBAC decision reads of the attributes: the user's name and groups, and what is asked. */
function decisionKey(a: RbacAttributes): string {
  const what = a.resourceRequest ? `r\u0000${a.namespace}\u0000${a.apiGroup}\u0000${a.resource}\u0000${a.subresource}\u0000${a.name}` : `n\u0000${a.path}`
  return `${a.user.name}\u0000${a.user.groups.join('\u0001')}\u0000${a.verb}\u0000${what}`
}

export class RbacAuthorizer {
  /**
   * The decisions made on the current policy. The reference walks every binding for every
   * request; a decision depends only on the policy and the key above, so it is kept until the
   * policy changes (any RBAC object added, changed or removed, as the informers see it): an
   * RBAC change takes effect for the next request exactly as without the memo.
   */
  private memo = new Map<string, RbacDecision>()
  private memoGeneration: number | undefined

  constructor(private readonly policy: PolicySource) {}

  authorize(a: RbacAttributes): RbacDecision {
    const generation = this.policy.generation
    if (generation === undefined) return this.decide(a)
    if (generation !== this.memoGeneration || this.memo.size >= MEMO_LIMIT) {
      this.memo = new Map()
      this.memoGeneration = generation
    }
    const key = decisionKey(a)
    let decision = this.memo.get(key)
    if (!decision) {
      decision = Object.freeze(this.decide(a))
      this.memo.set(key, decision)
    }
    return decision
  }

  private decide(a: RbacAttributes): RbacDecision {
    const errors: string[] = []
    let allowed = false
    let allowedBy: RuleSource | undefined
    this.visitRulesFor(a.user, a.namespace, (rule, error, source) => {
      if (rule && ruleAllows(a, rule)) {
        allowedBy = source
        return false
      }
      if (error !== undefined) errors.push(error)
      return true
    })
    if (allowedBy) return { decision: 'allow', reason: `RBAC: allowed by ${describeSource(allowedBy)}` }
    return { decision: 'noOpinion', ...(errors.length ? { reason: `RBAC: ${aggregate(errors)}` } : {}) }
  }

  /** The policy rules that apply to the user in the namespace, with the resolution errors. */
  policyRulesFor(user: RbacUser, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = []
    const errors: string[] = []
    this.visitRulesFor(user, namespace, (rule, error) => {
      if (rule) rules.push(rule)
      if (error !== undefined) errors.push(error)
      return true
    })
    return { rules, errors }
  }

  rulesFor(user: RbacUser, namespace: string): RbacRules {
    const { rules, errors } = this.policyRulesFor(user, namespace)
    const resourceRules: RbacRules['resourceRules'] = []
    const nonResourceRules: RbacRules['nonResourceRules'] = []
    for (const rule of rules) {
      if ((rule.resources ?? []).length > 0) {
        resourceRules.push({ verbs: rule.verbs, apiGroups: rule.apiGroups ?? [], resources: rule.resources ?? [], resourceNames: rule.resourceNames ?? [] })
      }
      if ((rule.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs ?? [] })
    }
    return { resourceRules, nonResourceRules, incomplete: false, errors: errors.length ? [aggregate(errors)] : [] }
  }

  /**
   * The rules of a binding's role: a Role in the binding's namespace or a ClusterRole, or why
   * not. The authorizer names the missing role by its singular (its listers' wording), the
   * escalation check by its resource (the registry's).
   */
  roleReferenceRules(ref: RoleRef, namespace: string, plural = false): PolicyRule[] | string {
    if (ref.kind === 'Role') {
      const role = this.policy.role(namespace, ref.name)
      return role ? role.rules : `${plural ? 'roles' : 'role'}.${RBAC_GROUP} ${JSON.stringify(ref.name)} not found`
    }
    if (ref.kind === 'ClusterRole') {
      const role = this.policy.clusterRole(ref.name)
      return role ? role.rules : `${plural ? 'clusterroles' : 'clusterrole'}.${RBAC_GROUP} ${JSON.stringify(ref.name)} not found`
    }
    return `unsupported role reference kind: ${JSON.stringify(ref.kind)}`
  }

  private visitRulesFor(user: RbacUser, namespace: string, visit: Visitor): void {
    const visitBindings = (bindings: Iterable<Binding>, bindingNamespace: string): boolean => {
      for (const binding of bindings) {
        const subject = binding.subjects.find((s) => subjectAppliesTo(user, s, bindingNamespace))
        if (!subject) continue
        const source = { binding, subject }
        const rules = this.roleReferenceRules(binding.roleRef, bindingNamespace)
        if (typeof rules === 'string') {
          if (!visit(undefined, rules, source)) return false
          continue
        }
        for (const rule of rules) if (!visit(rule, undefined, source)) return false
      }
      return true
    }
    if (!visitBindings(this.policy.clusterRoleBindings(), '')) return
    if (namespace) visitBindings(this.policy.roleBindings(namespace), namespace)
  }
}

/**
 * The reference's clusterRoleBindingDescriber and roleBindingDescriber (registry/rbac/validation
 * rule.go), which the allow reason names: `ClusterRoleBinding "cluster-admin" of ClusterRole
 * "cluster-admin" to Group "system:masters"`, `RoleBinding "name/namespace" of Role "r" to
 * ServiceAccount "sa/namespace"`.
 */
export function describeSource({ binding, subject }: RuleSource): string {
  const roleRef = `${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)}`
  if (!binding.namespace) return `ClusterRoleBinding ${JSON.stringify(binding.name)} of ${roleRef} to ${describeSubject(subject, '')}`
  return `RoleBinding ${JSON.stringify(`${binding.name}/${binding.namespace}`)} of ${roleRef} to ${describeSubject(subject, binding.namespace)}`
}

function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `${subject.kind} ${JSON.stringify(`${subject.name}/${subject.namespace || bindingNamespace}`)}`
  return `${subject.kind} ${JSON.stringify(subject.name)}`
}
