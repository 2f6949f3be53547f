/**
 * The PostFilter message when no node fits, as the default profile's PostFilter plugins write
 * it: DynamicResources first ("no new claims to deallocate" for a pod without claims), then
 * DefaultPreemption ("preemption: " and its own FitError over the nodes: "Preemption is not
 * helpful for scheduling" where a node's rejection is unresolvable, "No preemption victims
 * found for incoming pod" where no pod of lower priority runs there, or the filters' reasons
 * when removing all of them would not make room either). This scheduler does not evict: a node
 * where removing lower-priority pods would make room is reported as without victims too
 * (docs/scheduler.md).
 */
import type { NodeInfo } from './node-info.js'
import { type Pod, podSpec, priorityOf } from './objects.js'
import { type Diagnosis, type Status, fitErrorMessage, unresolvable } from './status.js'

export const PREEMPTION_NOT_HELPFUL = 'Preemption is not helpful for scheduling'
export const NO_VICTIMS = 'No preemption victims found for incoming pod'
export const NO_CLAIMS_TO_DEALLOCATE = 'no new claims to deallocate'
export const NOT_ELIGIBLE_NEVER = 'not eligible due to preemptionPolicy=Never.'

/**
 * `filterWithout(node, removed)`: the filters' status of the pod on `node` with the pods of
 * `removed` taken off it (SelectVictimsOnNode's check with every lower-priority pod removed).
 */
export function postFilterMessage(pod: Pod, nodes: readonly NodeInfo[], diagnosis: Diagnosis, filterWithout: (node: NodeInfo, removed: Set<string>) => Status | undefined): string {
  const prefix = `${NO_CLAIMS_TO_DEALLOCATE}, preemption: `
  if (podSpec(pod).preemptionPolicy === 'Never') return prefix + NOT_ELIGIBLE_NEVER
  const statuses = new Map<string, Status>()
  const priority = priorityOf(pod)
  for (const node of nodes) {
    // A PreFilter rejection stands for every node (its status is unresolvable there too).
    const status = diagnosis.preFilterMsg !== undefined ? unresolvable(diagnosis.preFilterMsg) : diagnosis.nodeToStatus.get(node.name)
    if (!status || status.code === 'UnschedulableAndUnresolvable') {
      statuses.set(node.name, unresolvable(PREEMPTION_NOT_HELPFUL))
      continue
    }
    const lower = new Set([...node.pods.values()].filter((p) => priorityOf(p.pod) < priority).map((p) => p.key))
    if (lower.size === 0) {
      statuses.set(node.name, unresolvable(NO_VICTIMS))
      continue
    }
    statuses.set(node.name, filterWithout(node, lower) ?? unresolvable(NO_VICTIMS))
  }
  return prefix + fitErrorMessage(nodes.length, { nodeToStatus: statuses })
}
