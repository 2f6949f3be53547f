/**
 * Which pods a selector or an affinity term selects: label selectors as LabelSelectorAsSelector
 * reads them (a null selector selects nothing, an empty one everything), and the namespaces of
 * an affinity term (its list and namespaceSelector; the pod's own namespace when both are unset).
 */
import { matchesLabelSelector } from '../../http/selectors.js'
import type { SchedulerCache } from '../cache.js'
import type { LabelSelector, Pod, PodAffinityTerm } from '../objects.js'

export function selects(selector: LabelSelector | null | undefined, labels: Record<string, string> | undefined): boolean {
  if (selector === null || selector === undefined) return false
  return matchesLabelSelector(selector as Record<string, unknown>, labels)
}

/** A selector with the incoming pod's values of `matchLabelKeys` added (In) and of `mismatchLabelKeys` (NotIn). */
export function withLabelKeys(selector: LabelSelector | null | undefined, pod: Pod, matchKeys: readonly string[] = [], mismatchKeys: readonly string[] = []): LabelSelector | null | undefined {
  if (selector === null || selector === undefined || (matchKeys.length === 0 && mismatchKeys.length === 0)) return selector
  const labels = pod.metadata.labels ?? {}
  const extra = [
    ...matchKeys.filter((k) => k in labels).map((key) => ({ key, operator: 'In', values: [labels[key]!] })),
    ...mismatchKeys.filter((k) => k in labels).map((key) => ({ key, operator: 'NotIn', values: [labels[key]!] })),
  ]
  return { ...selector, matchExpressions: [...(selector.matchExpressions ?? []), ...extra] }
}

/** A compiled affinity term of `owner` (the pod that carries it). */
export interface AffinityTerm {
  readonly topologyKey: string
  matches(pod: Pod): boolean
}

export function affinityTerm(owner: Pod, term: PodAffinityTerm, cache: SchedulerCache): AffinityTerm {
  const selector = withLabelKeys(term.labelSelector, owner, term.matchLabelKeys, term.mismatchLabelKeys)
  const namespaces = term.namespaces ?? []
  const ownNamespaceOnly = namespaces.length === 0 && (term.namespaceSelector === null || term.namespaceSelector === undefined)
  return {
    topologyKey: term.topologyKey,
    matches(pod) {
      const ns = pod.metadata.namespace ?? ''
      const inNamespace = ownNamespaceOnly
        ? ns === owner.metadata.namespace
        : namespaces.includes(ns) || (term.namespaceSelector !== null && term.namespaceSelector !== undefined && selects(term.namespaceSelector, cache.namespaceLabels(ns)))
      return inNamespace && selects(selector, pod.metadata.labels)
    },
  }
}
