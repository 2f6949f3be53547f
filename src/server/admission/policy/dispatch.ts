/**
 * The part of the reference's policy dispatchers that the validating and mutating ones share:
 * for each policy, whether its matchConstraints apply (and as which resource and kind), then for
 * each binding whether its matchResources apply and which params it hands the policy. What fails
 * on the way is a configuration error for the dispatcher to report, in the same order:
 * `failed to configure policy: ...` without a binding, `failed to configure binding: ...` with one.
 */
import { type KubeObject, isPlainObject } from '../../api/registry/object.js'
import type { AdmissionAttributes } from '../attributes.js'
import { cachedNamespace } from '../namespace-cache.js'
import type { PluginInitialization } from '../plugins.js'
import { type MatchResult, bindingMatches, definitionMatches } from './matching.js'
import { type Param, collectParams } from './params.js'
import { candidateHooks } from '../webhook/candidates.js'
import { ruleMatches } from '../webhook/rules.js'
import { equivalentResources } from './equivalent-resources.js'
import type { PolicyHook } from './sources.js'
import { specOf } from './sources.js'

/** A binding that applies, with its params, or the reason it cannot be used. */
export type BindingOutcome =
  | { readonly binding: KubeObject; readonly params: readonly Param[]; readonly error?: undefined }
  | { readonly binding: KubeObject; readonly params?: undefined; readonly error: string }

/** A policy that applies (with its matching bindings), or the reason it cannot be used. */
export type HookOutcome<E> =
  | { readonly hook: PolicyHook<E>; readonly match: MatchResult; readonly bindings: readonly BindingOutcome[]; readonly error?: undefined }
  | { readonly hook: PolicyHook<E>; readonly match?: undefined; readonly bindings?: undefined; readonly error: string }

/** The one (absent) param of a policy without a paramKind, as collectParams gives it. */
const NO_PARAMS: readonly Param[] = [null]

/** The reference's two prefixes of a configuration error. */
export const configurePolicyError = (message: string) => `failed to configure policy: ${message}`
export const configureBindingError = (message: string) => `failed to configure binding: ${message}`

/** The policies that apply to the request, in the source's order, with their bindings' outcomes. */
export async function matchingHooks<E>(hooks: readonly PolicyHook<E>[], attributes: AdmissionAttributes, init: PluginInitialization): Promise<HookOutcome<E>[]> {
  const outcomes: HookOutcome<E>[] = []
  const candidates = candidatePolicies(hooks, attributes, init)
  for (const hook of candidates instanceof Promise ? await candidates : candidates) {
    const spec = specOf(hook.policy)
    let match: MatchResult | undefined
    try {
      // Awaited only when it is a Promise: most requests match at once.
      const matching = definitionMatches(spec, attributes, init)
      match = matching instanceof Promise ? await matching : matching
    } catch (err) {
      outcomes.push({ hook, error: configurePolicyError((err as Error).message) })
      continue
    }
    if (!match) continue
    if (hook.configurationError !== undefined) {
      outcomes.push({ hook, error: configurePolicyError(hook.configurationError) })
      continue
    }
    const bindings: BindingOutcome[] = []
    for (const binding of hook.bindings) {
      const bindingSpec = specOf(binding)
      try {
        const matching = bindingMatches(bindingSpec, attributes, init)
        if (!(matching instanceof Promise ? await matching : matching)) continue
        const params = isPlainObject(spec.paramKind) ? await collectParams(spec.paramKind, hook.paramSource, bindingSpec.paramRef, attributes.namespace) : NO_PARAMS
        bindings.push({ binding, params })
      } catch (err) {
        bindings.push({ binding, error: configureBindingError((err as Error).message) })
      }
    }
    outcomes.push({ hook, match, bindings })
  }
  return outcomes
}

/**
 * The policies whose matchConstraints' rules may match the request (../webhook/candidates.ts):
 * a policy whose constraints cannot be read stays one, to be refused as DefinitionMatches
 * refuses it; one without resourceRules matches every resource.
 */
function candidatePolicies<E>(hooks: readonly PolicyHook<E>[], attributes: AdmissionAttributes, init: PluginInitialization): readonly PolicyHook<E>[] | Promise<readonly PolicyHook<E>[]> {
  return candidateHooks(hooks, attributes, {
    exact: (hook) => {
      const constraints = specOf(hook.policy).matchConstraints
      if (!isPlainObject(constraints) || !isPlainObject(constraints.namespaceSelector) || !isPlainObject(constraints.objectSelector)) return true
      const rules = constraints.resourceRules
      if (!Array.isArray(rules) || rules.length === 0) return true
      return rules.some((rule) => isPlainObject(rule) && ruleMatches(rule, attributes))
    },
    equivalent: (hook) => {
      const constraints = specOf(hook.policy).matchConstraints
      return isPlainObject(constraints) && constraints.matchPolicy === 'Equivalent'
    },
    hasEquivalents: async () => (await equivalentResources(init, attributes.resource, attributes.subresource)).length > 0,
  })
}

/**
 * The request's namespace object for `namespaceObject`: none for cluster-scoped requests and for
 * a namespace itself. From the namespace informer, as the reference's namespace lister; one it
 * has not seen yet is read from the store. Synchronous when the informer has it.
 */
export function requestNamespace(attributes: AdmissionAttributes, init: PluginInitialization): KubeObject | undefined | Promise<KubeObject | undefined> {
  const { kind } = attributes
  if (kind.group === '' && kind.version === 'v1' && kind.kind === 'Namespace') return undefined
  if (attributes.namespace === '') return undefined
  const cached = cachedNamespace(init, attributes.namespace)
  if (cached) return cached
  const namespaces = init.stores()?.lookup('', 'v1', 'namespaces')
  return namespaces ? namespaces.get(undefined, attributes.namespace) : undefined
}

/** The policy's failurePolicy, Fail when unset (the API defaults it). */
export function failurePolicyOf(policy: KubeObject): string {
  const value = specOf(policy).failurePolicy
  return typeof value === 'string' ? value : 'Fail'
}

/**
 * Resources no stored policy is applied to (the reference's generic plugin): the policies and
 * bindings themselves, so that a broken policy cannot lock out its own fix, and the reviews
 * that are never persisted.
 */
const EXCLUDED = new Set([
  'admissionregistration.k8s.io/validatingadmissionpolicies',
  'admissionregistration.k8s.io/validatingadmissionpolicybindings',
  'admissionregistration.k8s.io/mutatingadmissionpolicies',
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings',
  'authentication.k8s.io/tokenreviews',
  'authentication.k8s.io/selfsubjectreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  'authorization.k8s.io/subjectaccessreviews',
])

export function isExcludedFromPolicies(attributes: AdmissionAttributes): boolean {
  return EXCLUDED.has(`${attributes.resource.group}/${attributes.resource.resource}`)
}
