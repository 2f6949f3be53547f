/**
 * InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity). Filter: the pod's
 * required affinity terms each need a matching pod in the node's domain (the first pod of a
 * group that matches its own terms may go anywhere while no pod matches), its required
 * anti-affinity terms none, and no pod already placed may have a required anti-affinity term
 * matching this pod in the node's domain. Score: the preferred terms' weights (anti-affinity
 * subtracting), both the incoming pod's and, symmetrically, the placed pods' (their required
 * affinity terms at hardPodAffinityWeight 1), summed per domain, scaled min to max onto 0-100.
 */
import { type CycleState, MAX_NODE_SCORE, type FilterPlugin, type ScorePlugin } from '../framework.js'
import { type NodeInfo, hasPodAffinity } from '../node-info.js'
import { type Pod, podSpec } from '../objects.js'
import { unresolvable, unschedulable } from '../status.js'
import { type AffinityTerm, affinityTerm } from './pod-matching.js'

export const ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
export const ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules"
export const ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"

const HARD_POD_AFFINITY_WEIGHT = 1

const pair = (key: string, value: string): string => `${key}\u0000${value}`


interface FilterState {
  readonly affinity: AffinityTerm[]
  readonly antiAffinity: AffinityTerm[]
  readonly affinityCounts: Map<string, number>
  readonly antiAffinityCounts: Map<string, number>
  readonly existingAntiAffinityCounts: Map<string, number>
}

const bump = (m: Map<string, number>, key: string, by = 1): void => {
  m.set(key, (m.get(key) ?? 0) + by)
}

const FILTER_STATE = 'InterPodAffinity/filter'

export const interPodAffinityFilter: FilterPlugin = {
  name: 'InterPodAffinity',
  preFilter(state) {
    const pod = state.pod
    const a = podSpec(pod).affinity
    const affinity = (a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm(pod, t, state.cache))
    const antiAffinity = (a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm(pod, t, state.cache))
    const s: FilterState = { affinity, antiAffinity, affinityCounts: new Map(), antiAffinityCounts: new Map(), existingAntiAffinityCounts: new Map() }
    const ownTerms = affinity.length > 0 || antiAffinity.length > 0
    for (const node of state.nodes) {
      // Without terms of its own, only the placed pods with anti-affinity can reject it.
      if (!ownTerms && node.podsWithAffinity.size === 0) continue
      const labels = node.node!.metadata.labels ?? {}
      for (const { pod: other } of node.pods.values()) {
        if (hasPodAffinity(other)) {
          for (const t of podSpec(other).affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) {
            const term = affinityTerm(other, t, state.cache)
            const value = labels[term.topologyKey]
            if (value !== undefined && term.matches(pod)) bump(s.existingAntiAffinityCounts, pair(term.topologyKey, value))
          }
        }
        if (affinity.length > 0 && affinity.every((t) => t.matches(other))) {
          for (const t of affinity) if (labels[t.topologyKey] !== undefined) bump(s.affinityCounts, pair(t.topologyKey, labels[t.topologyKey]!))
        }
        for (const t of antiAffinity) if (labels[t.topologyKey] !== undefined && t.matches(other)) bump(s.antiAffinityCounts, pair(t.topologyKey, labels[t.topologyKey]!))
      }
    }
    state.data.set(FILTER_STATE, s)
    return undefined
  },
  filter(state, node) {
    const s = state.data.get(FILTER_STATE) as FilterState
    const labels = node.node!.metadata.labels ?? {}
    if (!satisfiesAffinity(s, labels, state.pod)) return unresolvable(ERR_REASON_AFFINITY)
    for (const t of s.antiAffinity) {
      const value = labels[t.topologyKey]
      if (value !== undefined && (s.antiAffinityCounts.get(pair(t.topologyKey, value)) ?? 0) > 0) return unschedulable(ERR_REASON_ANTI_AFFINITY)
    }
    if (s.existingAntiAffinityCounts.size > 0) {
      for (const [key, value] of Object.entries(labels)) if ((s.existingAntiAffinityCounts.get(pair(key, value)) ?? 0) > 0) return unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY)
    }
    return undefined
  },
}

function satisfiesAffinity(s: FilterState, labels: Record<string, string>, pod: Pod): boolean {
  let podsExist = true
  for (const t of s.affinity) {
    const value = labels[t.topologyKey]
    if (value === undefined) return false
    if ((s.affinityCounts.get(pair(t.topologyKey, value)) ?? 0) <= 0) podsExist = false
  }
  // The first pod of a series with affinity to itself.
  if (!podsExist) return s.affinityCounts.size === 0 && s.affinity.every((t) => t.matches(pod))
  return true
}

const SCORE_STATE = 'InterPodAffinity/score'

export const interPodAffinityScore: ScorePlugin = {
  name: 'InterPodAffinity',
  weight: 2,
  preScore(state: CycleState) {
    const pod = state.pod
    const a = podSpec(pod).affinity
    const preferred = (a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => ({ weight: w.weight, term: affinityTerm(pod, w.podAffinityTerm, state.cache) }))
    const preferredAnti = (a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => ({ weight: -w.weight, term: affinityTerm(pod, w.podAffinityTerm, state.cache) }))
    const own = [...preferred, ...preferredAnti]
    const scores = new Map<string, number>()
    for (const node of state.nodes) {
      if (own.length === 0 && node.podsWithAffinity.size === 0) continue
      const labels = node.node!.metadata.labels ?? {}
      const add = (term: AffinityTerm, weight: number): void => {
        const value = labels[term.topologyKey]
        if (value !== undefined && weight !== 0) bump(scores, pair(term.topologyKey, value), weight)
      }
      for (const { pod: other } of node.pods.values()) {
        for (const { weight, term } of own) if (term.matches(other)) add(term, weight)
        if (!hasPodAffinity(other)) continue
        const oa = podSpec(other).affinity!
        for (const t of oa.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) {
          const term = affinityTerm(other, t, state.cache)
          if (term.matches(pod)) add(term, HARD_POD_AFFINITY_WEIGHT)
        }
        for (const w of oa.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
          const term = affinityTerm(other, w.podAffinityTerm, state.cache)
          if (term.matches(pod)) add(term, w.weight)
        }
        for (const w of oa.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
          const term = affinityTerm(other, w.podAffinityTerm, state.cache)
          if (term.matches(pod)) add(term, -w.weight)
        }
      }
    }
    if (scores.size === 0) return false
    state.data.set(SCORE_STATE, scores)
    return true
  },
  score(state, node: NodeInfo) {
    const scores = state.data.get(SCORE_STATE) as Map<string, number>
    let sum = 0
    for (const [key, value] of Object.entries(node.node!.metadata.labels ?? {})) sum += scores.get(pair(key, value)) ?? 0
    return sum
  },
  normalize(_state, scores) {
    let min = Number.POSITIVE_INFINITY
    let max = Number.NEGATIVE_INFINITY
    for (const s of scores) {
      min = Math.min(min, s)
      max = Math.max(max, s)
    }
    const diff = max - min
    for (let i = 0; i < scores.length; i++) scores[i] = diff > 0 ? Math.trunc(MAX_NODE_SCORE * ((scores[i]! - min) / diff)) : 0
  },
}
