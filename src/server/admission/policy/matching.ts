/**
 * Whether a policy or a binding applies to a request (the reference's policy/matching Matcher
 * and generic PolicyMatcher): the namespace and object selectors, `excludeResourceRules`, then
 * `resourceRules` (with `resourceNames`), and with `matchPolicy: Equivalent` the other served
 * versions of the same resource. A selector that cannot be evaluated refuses the request only
 * once the rest matches. The rules and selectors are the webhooks' (webhook/rules.ts,
 * webhook/selectors.ts): the reference shares them too.
 */
import { isPlainObject } from '../../api/registry/object.js'
import type { AdmissionAttributes } from '../attributes.js'
import type { PluginInitialization } from '../plugins.js'
import { ruleMatches } from '../webhook/rules.js'
import { namespaceSelectorMatches, objectSelectorMatches } from '../webhook/selectors.js'
import type { GroupVersionKind } from './kinds.js'
import { PolicyConfigError } from './policy-error.js'
import { equivalentResources } from './equivalent-resources.js'

type Obj = Record<string, unknown>

export interface GroupVersionResource {
  readonly group: string
  readonly version: string
  readonly resource: string
}

/** A match: the resource and kind the policy sees the request as (the request's own, or an equivalent). */
export interface MatchResult {
  readonly resource: GroupVersionResource
  readonly kind: GroupVersionKind
}

const NIL_SELECTOR = (which: string) => `a nil ${which} selector was passed, please ensure selectors are initialized properly`

/** A rule's `resourceNames`: empty matches every name. */
function namesMatch(rule: Obj, name: string): boolean {
  const names = Array.isArray(rule.resourceNames) ? rule.resourceNames : []
  return names.length === 0 || names.includes(name)
}

function withResource(attributes: AdmissionAttributes, resource: GroupVersionResource): AdmissionAttributes {
  return { ...attributes, resource }
}

async function matchesResourceRules(rules: unknown, matchPolicy: unknown, attributes: AdmissionAttributes, init: PluginInitialization): Promise<MatchResult | undefined> {
  const named = Array.isArray(rules) ? rules.filter(isPlainObject) : []
  for (const rule of named) {
    if (ruleMatches(rule, attributes) && namesMatch(rule, attributes.name)) return { resource: attributes.resource, kind: attributes.kind }
  }
  if (matchPolicy !== 'Equivalent' || named.length === 0) return undefined
  const equivalents = await equivalentResources(init, attributes.resource, attributes.subresource)
  for (const rule of named) {
    for (const equivalent of equivalents) {
      if (!ruleMatches(rule, withResource(attributes, equivalent.resource))) continue
      if (namesMatch(rule, attributes.name)) return equivalent
    }
  }
  return undefined
}

/**
 * The reference's Matcher.Matches over one MatchResources: undefined when it does not apply;
 * throws a selector's error when everything else matches.
 */
export async function matchResources(criteria: Obj, attributes: AdmissionAttributes, init: PluginInitialization): Promise<MatchResult | undefined> {
  let namespaceError: unknown
  let namespaceMatches = true
  try {
    namespaceMatches = await namespaceSelectorMatches(criteria, attributes, init)
  } catch (err) {
    namespaceError = err
  }
  if (!namespaceMatches && namespaceError === undefined) return undefined
  if (!objectSelectorMatches(criteria, attributes)) return undefined
  if (await matchesResourceRules(criteria.excludeResourceRules, criteria.matchPolicy, attributes, init)) return undefined
  const rules = Array.isArray(criteria.resourceRules) ? criteria.resourceRules : []
  const matched = rules.length === 0 ? { resource: attributes.resource, kind: attributes.kind } : await matchesResourceRules(rules, criteria.matchPolicy, attributes, init)
  if (!matched) return undefined
  if (namespaceError !== undefined) throw namespaceError
  return matched
}

/** Whether a policy's `matchConstraints` apply (DefinitionMatches); a missing part is a configuration error. */
export async function definitionMatches(spec: Obj, attributes: AdmissionAttributes, init: PluginInitialization): Promise<MatchResult | undefined> {
  const constraints = spec.matchConstraints
  if (!isPlainObject(constraints)) throw new PolicyConfigError('policy contained no match constraints, a required field')
  if (!isPlainObject(constraints.namespaceSelector)) throw new PolicyConfigError(NIL_SELECTOR('namespace'))
  if (!isPlainObject(constraints.objectSelector)) throw new PolicyConfigError(NIL_SELECTOR('object'))
  return matchResources(constraints, attributes, init)
}

/** Whether a binding's `matchResources` apply (BindingMatches): absent ones always do. */
export async function bindingMatches(spec: Obj, attributes: AdmissionAttributes, init: PluginInitialization): Promise<boolean> {
  const resources = spec.matchResources
  if (resources === undefined || resources === null) return true
  if (!isPlainObject(resources)) return true
  if (!isPlainObject(resources.namespaceSelector)) throw new PolicyConfigError(NIL_SELECTOR('namespace'))
  if (!isPlainObject(resources.objectSelector)) throw new PolicyConfigError(NIL_SELECTOR('object'))
  return (await matchResources(resources, attributes, init)) !== undefined
}
