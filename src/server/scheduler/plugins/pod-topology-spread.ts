/**
 * PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread). Filter, for the
 * DoNotSchedule constraints: placing the pod must not make its domain's count of matching pods
 * exceed the smallest domain's by more than maxSkew (domains: the values of the topology key on
 * nodes that pass the pod's node affinity, honouring nodeAffinityPolicy and nodeTaintsPolicy;
 * fewer than minDomains count the smallest as 0). Score, for the ScheduleAnyway constraints or,
 * when the pod has none, the system defaults (hostname maxSkew 3, zone maxSkew 5, on the
 * selector of the Services, ReplicaSet, StatefulSet or ReplicationController of the pod):
 * fewer matching pods in a node's domains is better, each constraint weighted by log(domains + 2).
 */
import type { SchedulerCache } from '../cache.js'
import { type CycleState, MAX_NODE_SCORE, type FilterPlugin, type ScorePlugin } from '../framework.js'
import type { NodeInfo } from '../node-info.js'
import { type LabelSelector, type Pod, type TopologySpreadConstraint, nodeSpec, podSpec } from '../objects.js'
import { type Status, unresolvable, unschedulable } from '../status.js'
import { requiredNodeAffinityMatches } from './node-affinity.js'
import { selects, withLabelKeys } from './pod-matching.js'
import { untoleratedTaint } from './tolerations.js'

export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
export const ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + ' (missing required label)'

const HOSTNAME = 'kubernetes.io/hostname'
const ZONE = 'topology.kubernetes.io/zone'

interface Constraint {
  readonly maxSkew: number
  readonly topologyKey: string
  readonly selector: LabelSelector | null | undefined
  readonly minDomains: number
  readonly honorAffinity: boolean
  readonly honorTaints: boolean
}

function compile(pod: Pod, c: TopologySpreadConstraint): Constraint {
  return {
    maxSkew: c.maxSkew,
    topologyKey: c.topologyKey,
    selector: withLabelKeys(c.labelSelector, pod, c.matchLabelKeys),
    minDomains: c.minDomains ?? 1,
    honorAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor',
    honorTaints: c.nodeTaintsPolicy === 'Honor',
  }
}

/** helper.DefaultSelector: the selectors of the Services selecting the pod and of its controller, merged. */
export function defaultSelector(pod: Pod, cache: SchedulerCache): LabelSelector | undefined {
  const ns = pod.metadata.namespace ?? ''
  const labels = pod.metadata.labels ?? {}
  const matchLabels: Record<string, string> = {}
  const matchExpressions: NonNullable<LabelSelector['matchExpressions']> = []
  for (const svc of cache.auxObjects('services')) {
    const selector = (svc.spec as { selector?: Record<string, string> } | undefined)?.selector
    if (svc.metadata.namespace !== ns || !selector) continue
    if (Object.entries(selector).every(([k, v]) => labels[k] === v)) Object.assign(matchLabels, selector)
  }
  const owner = (pod.metadata.ownerReferences as { controller?: boolean; kind?: string; apiVersion?: string; name?: string }[] | undefined)?.find((o) => o.controller)
  const resource =
    owner?.kind === 'ReplicationController' && owner.apiVersion === 'v1'
      ? 'replicationcontrollers'
      : owner?.kind === 'ReplicaSet' && owner.apiVersion === 'apps/v1'
        ? 'replicasets'
        : owner?.kind === 'StatefulSet' && owner.apiVersion === 'apps/v1'
          ? 'statefulsets'
          : undefined
  if (owner && resource) {
    const controller = cache.auxObject(resource, ns, owner.name ?? '')
    const selector = (controller?.spec as { selector?: unknown } | undefined)?.selector
    if (resource === 'replicationcontrollers') Object.assign(matchLabels, (selector as Record<string, string> | undefined) ?? {})
    else if (selector) {
      Object.assign(matchLabels, (selector as LabelSelector).matchLabels ?? {})
      matchExpressions.push(...((selector as LabelSelector).matchExpressions ?? []))
    }
  }
  if (Object.keys(matchLabels).length === 0 && matchExpressions.length === 0) return undefined
  return { matchLabels, matchExpressions }
}

interface SpreadState {
  readonly constraints: Constraint[]
  /** Per constraint: domain value to matching pods. */
  readonly counts: Map<string, number>[]
  readonly minCounts: number[]
  readonly selfMatch: number[]
}

function nodeEligible(pod: Pod, c: Constraint, node: NodeInfo): boolean {
  if (c.honorAffinity && !requiredNodeAffinityMatches(pod, node.node!)) return false
  if (c.honorTaints && untoleratedTaint(nodeSpec(node.node!).taints ?? [], podSpec(pod).tolerations ?? [], (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')) return false
  return true
}

function countMatching(pod: Pod, c: Constraint, node: NodeInfo): number {
  let n = 0
  for (const info of node.pods.values()) {
    const other = info.pod
    if (other.metadata.namespace === pod.metadata.namespace && !other.metadata.deletionTimestamp && selects(c.selector, other.metadata.labels)) n++
  }
  return n
}

const hasKeys = (node: NodeInfo, constraints: readonly Constraint[]): boolean => constraints.every((c) => (node.node!.metadata.labels ?? {})[c.topologyKey] !== undefined)

const FILTER_STATE = 'PodTopologySpread/filter'

export const podTopologySpreadFilter: FilterPlugin = {
  name: 'PodTopologySpread',
  preFilter(state) {
    const pod = state.pod
    const constraints = (podSpec(pod).topologySpreadConstraints ?? []).filter((c) => c.whenUnsatisfiable === 'DoNotSchedule').map((c) => compile(pod, c))
    if (constraints.length === 0) return undefined
    const counts = constraints.map(() => new Map<string, number>())
    for (const node of state.nodes) {
      if (!hasKeys(node, constraints)) continue
      constraints.forEach((c, i) => {
        if (!nodeEligible(pod, c, node)) return
        const value = node.node!.metadata.labels![c.topologyKey]!
        counts[i]!.set(value, (counts[i]!.get(value) ?? 0) + countMatching(pod, c, node))
      })
    }
    const minCounts = constraints.map((c, i) => {
      const values = [...counts[i]!.values()]
      if (values.length < c.minDomains) return 0
      return values.length === 0 ? Number.MAX_SAFE_INTEGER : Math.min(...values)
    })
    const selfMatch = constraints.map((c) => (selects(c.selector, pod.metadata.labels) ? 1 : 0))
    state.data.set(FILTER_STATE, { constraints, counts, minCounts, selfMatch } satisfies SpreadState)
    return undefined
  },
  filter(state, node): Status | undefined {
    const s = state.data.get(FILTER_STATE) as SpreadState | undefined
    if (!s) return undefined
    const labels = node.node!.metadata.labels ?? {}
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i]!
      const value = labels[c.topologyKey]
      if (value === undefined) return unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)
      const skew = (s.counts[i]!.get(value) ?? 0) + s.selfMatch[i]! - s.minCounts[i]!
      if (skew > c.maxSkew) return unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)
    }
    return undefined
  },
}

interface ScoreState {
  readonly constraints: Constraint[]
  readonly counts: Map<string, number>[]
  readonly weights: number[]
  readonly ignored: Set<string>
}

const SCORE_STATE = 'PodTopologySpread/score'

function scoreConstraints(state: CycleState): { constraints: Constraint[]; systemDefaulted: boolean } {
  const pod = state.pod
  const declared = podSpec(pod).topologySpreadConstraints ?? []
  if (declared.length > 0) return { constraints: declared.filter((c) => c.whenUnsatisfiable === 'ScheduleAnyway').map((c) => compile(pod, c)), systemDefaulted: false }
  const selector = defaultSelector(pod, state.cache)
  if (!selector) return { constraints: [], systemDefaulted: true }
  const base = { selector, minDomains: 1, honorAffinity: true, honorTaints: false }
  return {
    constraints: [
      { ...base, topologyKey: HOSTNAME, maxSkew: 3 },
      { ...base, topologyKey: ZONE, maxSkew: 5 },
    ],
    systemDefaulted: true,
  }
}

export const podTopologySpreadScore: ScorePlugin = {
  name: 'PodTopologySpread',
  weight: 2,
  preScore(state, feasible) {
    const { constraints, systemDefaulted } = scoreConstraints(state)
    if (constraints.length === 0) return false
    const pod = state.pod
    const ignored = new Set<string>()
    const counts = constraints.map(() => new Map<string, number>())
    const domains = constraints.map(() => new Set<string>())
    // The defaulted constraints share one selector: each node's matching pods are counted once.
    const memo = new Map<LabelSelector | null | undefined, Map<NodeInfo, number>>()
    const matching = (c: Constraint, node: NodeInfo): number => {
      let bySelector = memo.get(c.selector)
      if (!bySelector) memo.set(c.selector, (bySelector = new Map()))
      let n = bySelector.get(node)
      if (n === undefined) bySelector.set(node, (n = countMatching(pod, c, node)))
      return n
    }
    for (const node of feasible) {
      const labels = node.node!.metadata.labels ?? {}
      // Defaulted constraints do not require every key (requireAllTopologies).
      if (!systemDefaulted && !hasKeys(node, constraints)) {
        ignored.add(node.name)
        continue
      }
      for (let i = 0; i < constraints.length; i++) {
        const c = constraints[i]!
        const value = labels[c.topologyKey]
        if (value === undefined) continue
        domains[i]!.add(value)
        if (c.topologyKey === HOSTNAME) counts[i]!.set(value, matching(c, node))
      }
    }
    // Other keys count the pods of every eligible node in the feasible nodes' domains.
    const others = constraints.map((c, i) => i).filter((i) => constraints[i]!.topologyKey !== HOSTNAME)
    if (others.length > 0) {
      for (const node of state.nodes) {
        if (node.pods.size === 0) continue
        const labels = node.node!.metadata.labels ?? {}
        for (const i of others) {
          const c = constraints[i]!
          const value = labels[c.topologyKey]
          if (value === undefined || !domains[i]!.has(value) || !nodeEligible(pod, c, node)) continue
          counts[i]!.set(value, (counts[i]!.get(value) ?? 0) + matching(c, node))
        }
      }
    }
    const weights = constraints.map((c, i) => Math.log((c.topologyKey === HOSTNAME ? feasible.length - ignored.size : domains[i]!.size) + 2))
    state.data.set(SCORE_STATE, { constraints, counts, weights, ignored } satisfies ScoreState)
    return true
  },
  score(state, node) {
    const s = state.data.get(SCORE_STATE) as ScoreState
    if (s.ignored.has(node.name)) return 0
    const labels = node.node!.metadata.labels ?? {}
    let score = 0
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i]!
      const value = labels[c.topologyKey]
      if (value === undefined) continue
      // scoreForCount: count × weight + (maxSkew − 1).
      score += (s.counts[i]!.get(value) ?? 0) * s.weights[i]! + (c.maxSkew - 1)
    }
    return Math.round(score)
  },
  normalize(state, scores) {
    const s = state.data.get(SCORE_STATE) as ScoreState
    const feasible = state.data.get('feasible') as NodeInfo[]
    let min = Number.MAX_SAFE_INTEGER
    let max = 0
    scores.forEach((v, i) => {
      if (s.ignored.has(feasible[i]!.name)) return
      min = Math.min(min, v)
      max = Math.max(max, v)
    })
    scores.forEach((v, i) => {
      if (s.ignored.has(feasible[i]!.name)) scores[i] = 0
      else if (max === 0) scores[i] = MAX_NODE_SCORE
      else scores[i] = Math.trunc((MAX_NODE_SCORE * (max + min - v)) / max)
    })
  },
}
