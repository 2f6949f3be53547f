/**
 * A quota's scopes (the reference's getScopeSelectorsFromQuota and podMatchesScopeFunc): each
 * `spec.scopes` entry is an Exists requirement on that scope, and `spec.scopeSelector`'s
 * expressions are added; an object is in the quota when it matches every one. Pods match
 * Terminating (activeDeadlineSeconds set), NotTerminating, BestEffort (QoS), NotBestEffort,
 * PriorityClass (its class name, by In/NotIn/Exists/DoesNotExist) and
 * CrossNamespacePodAffinity.
 */
import { podQOSClass } from '../../api/kinds/pod-qos.js'
import type { KubeObject } from '../../api/registry/object.js'

export interface ScopeSelectorRequirement {
  scopeName: string
  operator: string
  values?: string[]
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const objOf = (v: unknown): Obj => (isObj(v) ? v : {})

/** getScopeSelectorsFromQuota. */
export function scopeSelectorsOf(quota: KubeObject): ScopeSelectorRequirement[] {
  const spec = objOf(quota.spec)
  const scopes = Array.isArray(spec.scopes) ? spec.scopes.filter((s): s is string => typeof s === 'string') : []
  const expressions = objOf(spec.scopeSelector).matchExpressions
  return [
    ...scopes.map((scopeName) => ({ scopeName, operator: 'Exists' })),
    ...(Array.isArray(expressions) ? expressions.filter(isObj).map((e) => ({ scopeName: String(e.scopeName), operator: String(e.operator), ...(Array.isArray(e.values) ? { values: e.values.map(String) } : {}) })) : []),
  ]
}

/** A selector requirement against one optional value (ScopedResourceSelectorRequirementsAsSelector). */
function matchesValue(selector: ScopeSelectorRequirement, value: string | undefined): boolean {
  const values = selector.values ?? []
  switch (selector.operator) {
    case 'In':
      return value !== undefined && values.includes(value)
    case 'NotIn':
      return value === undefined || !values.includes(value)
    case 'Exists':
      return value !== undefined
    case 'DoesNotExist':
      return value === undefined
    default:
      return false
  }
}

function crossNamespaceTerms(terms: unknown): boolean {
  return Array.isArray(terms) && terms.some((t) => isObj(t) && ((Array.isArray(t.namespaces) && t.namespaces.length > 0) || t.namespaceSelector != null))
}

function usesCrossNamespacePodAffinity(spec: Obj): boolean {
  const affinity = objOf(spec.affinity)
  return [affinity.podAffinity, affinity.podAntiAffinity].some((a) => {
    const o = objOf(a)
    const weighted = Array.isArray(o.preferredDuringSchedulingIgnoredDuringExecution) ? o.preferredDuringSchedulingIgnoredDuringExecution.map((w) => objOf(w).podAffinityTerm) : []
    return crossNamespaceTerms(o.requiredDuringSchedulingIgnoredDuringExecution) || crossNamespaceTerms(weighted)
  })
}

/** podMatchesScopeFunc. */
export function podMatchesScope(selector: ScopeSelectorRequirement, pod: KubeObject): boolean {
  const spec = objOf(pod.spec)
  const terminating = typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0
  const bestEffort = podQOSClass(spec) === 'BestEffort'
  switch (selector.scopeName) {
    case 'Terminating':
      return terminating
    case 'NotTerminating':
      return !terminating
    case 'BestEffort':
      return bestEffort
    case 'NotBestEffort':
      return !bestEffort
    case 'PriorityClass': {
      const name = typeof spec.priorityClassName === 'string' && spec.priorityClassName !== '' ? spec.priorityClassName : undefined
      return matchesValue(selector, name)
    }
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespacePodAffinity(spec)
    default:
      return false
  }
}
