/** NodeName (pkg/scheduler/framework/plugins/nodename): a pod that names a node fits that node only. */
import type { FilterPlugin } from '../framework.js'
import { podSpec } from '../objects.js'
import { unresolvable } from '../status.js'

export const ERR_REASON_NODE_NAME = "node(s) didn't match the requested node name"

export const nodeName: FilterPlugin = {
  name: 'NodeName',
  filter(state, node) {
    const wanted = podSpec(state.pod).nodeName
    return !wanted || wanted === node.name ? undefined : unresolvable(ERR_REASON_NODE_NAME)
  },
}
