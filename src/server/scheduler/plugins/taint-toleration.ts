/**
 * TaintToleration (pkg/scheduler/framework/plugins/tainttoleration): Filter rejects a node with a
 * NoSchedule or NoExecute taint the pod does not tolerate (since 1.35, and 1.34.2, without
 * naming the taint: kubernetes/kubernetes#134740); Score counts the PreferNoSchedule taints not
 * tolerated, fewer being better (reversed normalisation).
 */
import { MAX_NODE_SCORE, defaultNormalizeScore, type FilterPlugin, type ScorePlugin } from '../framework.js'
import { nodeSpec, podSpec } from '../objects.js'
import { unresolvable } from '../status.js'
import { toleratesTaint, untoleratedTaint } from './tolerations.js'

export const ERR_REASON_UNTOLERATED = 'node(s) had untolerated taint(s)'

export const taintTolerationFilter: FilterPlugin = {
  name: 'TaintToleration',
  filter(state, node) {
    const taint = untoleratedTaint(nodeSpec(node.node!).taints ?? [], podSpec(state.pod).tolerations ?? [], (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')
    return taint ? unresolvable(ERR_REASON_UNTOLERATED) : undefined
  },
}

export const taintTolerationScore: ScorePlugin = {
  name: 'TaintToleration',
  weight: 3,
  score(state, node) {
    const tolerations = (podSpec(state.pod).tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule')
    return (nodeSpec(node.node!).taints ?? []).filter((taint) => taint.effect === 'PreferNoSchedule' && !tolerations.some((t) => toleratesTaint(t, taint))).length
  },
  normalize: (_state, scores) => defaultNormalizeScore(MAX_NODE_SCORE, true, scores),
}
