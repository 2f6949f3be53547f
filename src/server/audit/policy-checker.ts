/**
 * The policy's evaluation (the reference's audit/policy checker.go): the first rule whose
 * every given field matches the request sets its level, omitted stages (the rule's and the
 * policy's) and whether managedFields are left out (the rule's choice, else the policy's). No
 * rule matching: level None.
 */
import type { RequestInfo, UserInfo } from '../http/types.js'
import type { Stage } from './event.js'
import type { AuditPolicyAttributes, Policy, PolicyRule, PolicyRuleEvaluator, RequestAuditConfig } from './policy.js'

export class PolicyChecker implements PolicyRuleEvaluator {
  private readonly rules: readonly PolicyRule[]
  /** Each rule's outcome, made once: every request a rule matches gets the same (read-only) one. */
  private readonly outcomes: readonly RequestAuditConfig[]
  private readonly noMatch: RequestAuditConfig

  constructor(policy: Policy) {
    this.rules = policy.rules
    this.outcomes = policy.rules.map((rule) => ({
      level: rule.level,
      omitStages: unionStages(policy.omitStages ?? [], rule.omitStages ?? []),
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false,
    }))
    this.noMatch = { level: 'None', omitStages: policy.omitStages ?? [], omitManagedFields: policy.omitManagedFields ?? false }
  }

  evaluatePolicyRule({ user, request }: AuditPolicyAttributes): RequestAuditConfig {
    for (let i = 0; i < this.rules.length; i++) if (ruleMatches(this.rules[i]!, user, request)) return this.outcomes[i]!
    return this.noMatch
  }
}

function unionStages(...lists: readonly (readonly Stage[])[]): Stage[] {
  return [...new Set(lists.flat())]
}

function ruleMatches(rule: PolicyRule, user: UserInfo | undefined, request: RequestInfo): boolean {
  if (nonEmpty(rule.users) && (!user || !rule.users.includes(user.name))) return false
  if (nonEmpty(rule.userGroups) && (!user || !user.groups.some((group) => rule.userGroups!.includes(group)))) return false
  if (nonEmpty(rule.verbs) && !rule.verbs.includes(request.verb)) return false
  if (nonEmpty(rule.namespaces) || nonEmpty(rule.resources)) return ruleMatchesResource(rule, request)
  if (nonEmpty(rule.nonResourceURLs)) return !request.isResourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(request.path, spec))
  return true
}

/** `*`, the path itself, or a prefix ending in `*`. */
function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''))
}

function ruleMatchesResource(rule: PolicyRule, request: RequestInfo): boolean {
  if (!request.isResourceRequest) return false
  // Cluster-scoped resources have the empty namespace.
  if (nonEmpty(rule.namespaces) && !rule.namespaces.includes(request.namespace ?? '')) return false
  if (!nonEmpty(rule.resources)) return true
  const resource = request.resource ?? ''
  const subresource = request.subresource ?? ''
  const combined = subresource !== '' ? `${resource}/${subresource}` : resource
  const name = request.name ?? ''
  for (const gr of rule.resources) {
    if ((gr.group ?? '') !== (request.apiGroup ?? '') && gr.group !== '*') continue
    if (!nonEmpty(gr.resources)) return true
    if (nonEmpty(gr.resourceNames) && !gr.resourceNames.includes(name)) continue
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true
      if (subresource !== '' && res.startsWith('*/') && res.slice(2) === subresource) return true
      if (res.endsWith('/*') && res.slice(0, -2) === resource) return true
    }
  }
  return false
}

function nonEmpty<T>(list: readonly T[] | undefined): list is readonly T[] {
  return list !== undefined && list.length > 0
}
