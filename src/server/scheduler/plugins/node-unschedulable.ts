/**
 * NodeUnschedulable (pkg/scheduler/framework/plugins/nodeunschedulable): a cordoned node
 * (spec.unschedulable) takes only pods that tolerate `node.kubernetes.io/unschedulable:NoSchedule`.
 */
import type { FilterPlugin } from '../framework.js'
import { nodeSpec, podSpec } from '../objects.js'
import { unresolvable } from '../status.js'
import { toleratesTaint } from './tolerations.js'

export const ERR_REASON_UNSCHEDULABLE = 'node(s) were unschedulable'

export const nodeUnschedulable: FilterPlugin = {
  name: 'NodeUnschedulable',
  filter(state, node) {
    if (!nodeSpec(node.node!).unschedulable) return undefined
    const tolerated = (podSpec(state.pod).tolerations ?? []).some((t) => toleratesTaint(t, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }))
    return tolerated ? undefined : unresolvable(ERR_REASON_UNSCHEDULABLE)
  },
}
