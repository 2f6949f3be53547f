/**
 * The audit policy (the reference's `audit.k8s.io/v1` Policy) and what evaluates it: for a
 * request's attributes, the level its events are recorded at and the stages left out (the
 * reference's PolicyRuleEvaluator and RequestAuditConfig). Without a policy file nothing is
 * audited, as the reference: the filter then has no link at all.
 */
import type { RequestInfo, UserInfo } from '../http/types.js'
import type { Level, Stage } from './event.js'

/** What a policy rule is matched on: who asks and what the path says the request is. */
export interface AuditPolicyAttributes {
  user?: UserInfo
  request: RequestInfo
}

/** The outcome of the policy for one request (shared by the requests a rule matches: read-only). */
export interface RequestAuditConfig {
  readonly level: Level
  /** Stages no event is made for. */
  readonly omitStages: readonly Stage[]
  /** Leave metadata.managedFields out of the request and response bodies recorded. */
  readonly omitManagedFields: boolean
}

export interface PolicyRuleEvaluator {
  evaluatePolicyRule(attributes: AuditPolicyAttributes): RequestAuditConfig
}

/** A group's resources a rule names (`pods`, `pods/log`, `*`/`scale`), with optional names. */
export interface GroupResources {
  group?: string
  resources?: string[]
  resourceNames?: string[]
}

/** One rule: the first whose every given field matches sets the level. */
export interface PolicyRule {
  level: Level
  users?: string[]
  userGroups?: string[]
  verbs?: string[]
  resources?: GroupResources[]
  namespaces?: string[]
  nonResourceURLs?: string[]
  omitStages?: Stage[]
  omitManagedFields?: boolean
}

/** The policy file's document. */
export interface Policy {
  apiVersion: 'audit.k8s.io/v1'
  kind: 'Policy'
  metadata?: Record<string, unknown>
  rules: PolicyRule[]
  omitStages?: Stage[]
  omitManagedFields?: boolean
}
