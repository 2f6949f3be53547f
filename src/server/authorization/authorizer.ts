/**
 * What an authorizer is asked and what it answers, as the reference's authorizer.Attributes
 * and Decision: a flat description of one request (or of one impersonation, or of a review's
 * question) so that every mode reads the same fields.
 */
import type { RequestInfo, UserInfo } from '../http/types.js'
import type { CreateAuthorizer } from '../api/registry/options.js'

export interface Attributes {
  user: UserInfo
  /** Lower-case: get, list, watch, create, ..., impersonate, escalate, bind; for paths the lower-case method. */
  verb: string
  resourceRequest: boolean
  /** The URL path (non-resource requests). */
  path: string
  namespace: string
  apiGroup: string
  apiVersion: string
  resource: string
  subresource: string
  name: string
  /** The request's raw `fieldSelector` (list, watch, deletecollection), for the Node mode's scoped reads. */
  fieldSelector?: string
}

export type DecisionKind = 'allow' | 'deny' | 'noOpinion'

export interface Decision {
  decision: DecisionKind
  /** Why: appended to the 403 message (RBAC's resolution errors, a webhook's reason). */
  reason?: string
  /** An authorizer that failed says so; the chain goes on, and the error is reported with the 403. */
  error?: string
}

export interface Authorizer {
  authorize(attributes: Attributes): Decision | Promise<Decision>
}

/** One rule of what a user may do, as SelfSubjectRulesReview reports it. */
export interface ResourceRuleInfo {
  verbs: string[]
  apiGroups: string[]
  resources: string[]
  resourceNames: string[]
}

export interface NonResourceRuleInfo {
  verbs: string[]
  nonResourceURLs: string[]
}

export interface Rules {
  resourceRules: ResourceRuleInfo[]
  nonResourceRules: NonResourceRuleInfo[]
  /** True when the list may miss rules (a mode that cannot list them, such as a webhook). */
  incomplete: boolean
  /** Errors met while resolving (a binding to a missing role). */
  errors: string[]
}

/** The reference's authorizer.RuleResolver: every rule that applies to a user in a namespace. */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): Rules | Promise<Rules>
}

export const NO_OPINION: Decision = { decision: 'noOpinion' }
export const ALLOW: Decision = { decision: 'allow' }

/** The attributes of a request, from what the request-info resolver found. */
export function requestAttributes(user: UserInfo, info: RequestInfo): Attributes {
  return {
    ...(info.fieldSelector ? { fieldSelector: info.fieldSelector } : {}),
    user,
    verb: info.verb,
    resourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace ?? '',
    apiGroup: info.apiGroup ?? '',
    apiVersion: info.apiVersion ?? '',
    resource: info.resource ?? '',
    subresource: info.subresource ?? '',
    name: info.name ?? '',
  }
}

/** Resource attributes with defaults for the fields not given. */
export function resourceAttributes(user: UserInfo, fields: Partial<Omit<Attributes, 'user' | 'resourceRequest'>> & { verb: string; resource: string }): Attributes {
  return { path: '', namespace: '', apiGroup: '', apiVersion: '', subresource: '', name: '', ...fields, user, resourceRequest: true }
}

/**
 * The API's question whether the requester may create what a PUT or an apply is about to
 * create (api/registry/options.ts), asked of `authorizer` with the verb `create` as the
 * reference's update and patch handlers build the attributes.
 */
export function createAuthorizer(authorizer: Authorizer): CreateAuthorizer {
  return (r) =>
    authorizer.authorize({
      user: r.user ?? { name: '', groups: [] },
      verb: 'create',
      resourceRequest: true,
      path: r.path,
      namespace: r.namespace,
      apiGroup: r.group,
      apiVersion: r.version,
      resource: r.resource,
      subresource: r.subresource,
      name: r.name,
    })
}
