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
import { hasKeys, namespaceSelectorMatches, objectSelectorMatches } from '../webhook/selectors.js'
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

/** The rules the request matches as it is (no equivalent resource): synchronous, the common case. */
function matchesExactly(named: readonly Obj[], attributes: AdmissionAttributes): MatchResult | undefined {
  for (const rule of named) {
    if (ruleMatches(rule, attributes) && namesMatch(rule, attributes.name)) return { resource: attributes.resource, kind: attributes.kind }
  }
  return undefined
}

/** With `matchPolicy: Equivalent`, the rules one of the other served versions of the resource matches. */
async function matchesEquivalent(named: readonly Obj[], attributes: AdmissionAttributes, init: PluginInitialization): Promise<MatchResult | undefined> {
  const equivalents = await equivalentResources(init, attributes.resource, attributes.subresource)
  for (const rule of named) {
    for (const equivalent of equivalents) {
      if (!ruleMatches(rule, withResource(attributes, equivalent.resource))) continue
      if (namesMatch(rule, attributes.name)) return equivalent
    }
  }
  return undefined
}

const NO_RULES: Obj[] = []

/** The rules that are objects; the list itself when all are (most often: no copy per request). */
const namedRules = (rules: unknown): readonly Obj[] => (!Array.isArray(rules) || rules.length === 0 ? NO_RULES : rules.every(isPlainObject) ? (rules as Obj[]) : rules.filter(isPlainObject))

function isEmptySelector(selector: unknown): boolean {
  if (!isPlainObject(selector)) return true
  if (Array.isArray(selector.matchExpressions) && selector.matchExpressions.length > 0) return false
  return !isPlainObject(selector.matchLabels) || !hasKeys(selector.matchLabels)
}

type Matched = MatchResult | undefined

/**
 * The reference's Matcher.Matches over one MatchResources: undefined when it does not apply;
 * throws a selector's error when everything else matches. Only a namespace not read yet and an
 * equivalent resource wait for anything: otherwise the answer comes at once, not as a Promise.
 */
export function matchResources(criteria: Obj, attributes: AdmissionAttributes, init: PluginInitialization): Matched | Promise<Matched> {
  if (isEmptySelector(criteria.namespaceSelector)) return matchRules(criteria, attributes, init, true, undefined)
  let namespaceMatches: boolean | Promise<boolean>
  try {
    namespaceMatches = namespaceSelectorMatches(criteria, attributes, init)
  } catch (err) {
    return matchRules(criteria, attributes, init, true, err)
  }
  if (namespaceMatches instanceof Promise) {
    return namespaceMatches.then(
      (matches) => matchRules(criteria, attributes, init, matches, undefined),
      (err: unknown) => matchRules(criteria, attributes, init, true, err),
    )
  }
  return matchRules(criteria, attributes, init, namespaceMatches, undefined)
}

/** The object selector and the rules, once the namespace selector has answered (or failed: `namespaceError`). */
function matchRules(criteria: Obj, attributes: AdmissionAttributes, init: PluginInitialization, namespaceMatches: boolean, namespaceError: unknown): Matched | Promise<Matched> {
  if (!namespaceMatches && namespaceError === undefined) return undefined
  if (!objectSelectorMatches(criteria, attributes)) return undefined
  const equivalent = criteria.matchPolicy === 'Equivalent'
  const excluded = namedRules(criteria.excludeResourceRules)
  if (excluded.length > 0) {
    if (matchesExactly(excluded, attributes)) return undefined
    if (equivalent) return matchesEquivalent(excluded, attributes, init).then((out) => (out ? undefined : matchIncluded(criteria, attributes, init, equivalent, namespaceError)))
  }
  return matchIncluded(criteria, attributes, init, equivalent, namespaceError)
}

function matchIncluded(criteria: Obj, attributes: AdmissionAttributes, init: PluginInitialization, equivalent: boolean, namespaceError: unknown): Matched | Promise<Matched> {
  const hasRules = Array.isArray(criteria.resourceRules) && criteria.resourceRules.length > 0
  if (!hasRules) return matched({ resource: attributes.resource, kind: attributes.kind }, namespaceError)
  const rules = namedRules(criteria.resourceRules)
  const exact = matchesExactly(rules, attributes)
  if (exact) return matched(exact, namespaceError)
  if (equivalent && rules.length > 0) return matchesEquivalent(rules, attributes, init).then((found) => matched(found, namespaceError))
  return undefined
}

/** A match stands only when the namespace selector did not fail. */
function matched(match: Matched, namespaceError: unknown): Matched {
  if (!match) return undefined
  if (namespaceError !== undefined) throw namespaceError
  return match
}

/** Whether a policy's `matchConstraints` apply (DefinitionMatches); a missing part is a configuration error (thrown). */
export function definitionMatches(spec: Obj, attributes: AdmissionAttributes, init: PluginInitialization): Matched | Promise<Matched> {
  const constraints = spec.matchConstraints
  if (!isPlainObject(constraints)) throw new PolicyConfigError('policy contained no match constraints, a required field')
  if (!isPlainObject(constraints.namespaceSelector)) throw new PolicyConfigError(NIL_SELECTOR('namespace'))
  if (!isPlainObject(constraints.objectSelector)) throw new PolicyConfigError(NIL_SELECTOR('object'))
  return matchResources(constraints, attributes, init)
}

/** Whether a binding's `matchResources` apply (BindingMatches): absent ones always do; a missing part is a configuration error (thrown). */
export function bindingMatches(spec: Obj, attributes: AdmissionAttributes, init: PluginInitialization): boolean | Promise<boolean> {
  const resources = spec.matchResources
  if (resources === undefined || resources === null) return true
  if (!isPlainObject(resources)) return true
  if (!isPlainObject(resources.namespaceSelector)) throw new PolicyConfigError(NIL_SELECTOR('namespace'))
  if (!isPlainObject(resources.objectSelector)) throw new PolicyConfigError(NIL_SELECTOR('object'))
  const match = matchResources(resources, attributes, init)
  return match instanceof Promise ? match.then((m) => m !== undefined) : match !== undefined
}
