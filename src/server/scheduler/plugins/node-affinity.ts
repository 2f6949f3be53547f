/**
 * NodeAffinity (pkg/scheduler/framework/plugins/nodeaffinity): Filter requires spec.nodeSelector
 * and the required node affinity; Score adds the weights of the preferred terms a node
 * matches, normalised so the best node scores 100.
 */
import { MAX_NODE_SCORE, defaultNormalizeScore, type FilterPlugin, type ScorePlugin } from '../framework.js'
import { type Node, type Pod, podSpec } from '../objects.js'
import { unresolvable } from '../status.js'
import { anyTermMatches, termMatches } from './node-selector.js'

export const ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"

/** GetRequiredNodeAffinity(pod).Match(node): nodeSelector and required affinity terms. */
export function requiredNodeAffinityMatches(pod: Pod, node: Node): boolean {
  const spec = podSpec(pod)
  const labels = node.metadata.labels ?? {}
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) if (labels[k] !== v) return false
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
  if (required && !anyTermMatches(required.nodeSelectorTerms ?? [], node)) return false
  return true
}

export const nodeAffinityFilter: FilterPlugin = {
  name: 'NodeAffinity',
  filter: (state, node) => (requiredNodeAffinityMatches(state.pod, node.node!) ? undefined : unresolvable(ERR_REASON_POD)),
}

export const nodeAffinityScore: ScorePlugin = {
  name: 'NodeAffinity',
  weight: 2,
  preScore: (state) => (podSpec(state.pod).affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0,
  score(state, node) {
    let sum = 0
    for (const term of podSpec(state.pod).affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
      if (term.weight !== 0 && termMatches(term.preference, node.node!)) sum += term.weight
    }
    return sum
  },
  normalize: (_state, scores) => defaultNormalizeScore(MAX_NODE_SCORE, false, scores),
}
