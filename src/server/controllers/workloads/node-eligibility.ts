/**
 * Whether a pod may run on a node by its node selector, required node affinity and the node's
 * taints, as the reference's DaemonSet controller checks it (daemon_controller.go predicates:
 * the NodeName, NodeAffinity and TaintToleration plugins' filters): NoSchedule and NoExecute
 * taints must be tolerated; PreferNoSchedule ones do not matter.
 */
import type { KubeObject } from '../../api/registry/object.js'
import type { Taint, Toleration } from '../../scheduler/objects.js'
import { requiredNodeAffinityMatches } from '../../scheduler/plugins/node-affinity.js'
import { untoleratedTaint } from '../../scheduler/plugins/tolerations.js'

export type { Toleration }

// The reference's DaemonSet controller calls the scheduler plugins' own helpers
// (nodeaffinity.GetRequiredNodeAffinity, FindMatchingUntoleratedTaint): so does this.

export function fitsNodeAffinity(podSpec: Record<string, unknown>, node: KubeObject): boolean {
  return requiredNodeAffinityMatches({ apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: podSpec }, node)
}

export function toleratesNodeTaints(podSpec: Record<string, unknown>, node: KubeObject): boolean {
  const taints = (node.spec as { taints?: Taint[] } | undefined)?.taints ?? []
  const tolerations = (podSpec.tolerations ?? []) as Toleration[]
  return untoleratedTaint(taints, tolerations, (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute') === undefined
}

export function fitsNodeName(podSpec: Record<string, unknown>, node: KubeObject): boolean {
  const name = podSpec.nodeName as string | undefined
  return !name || name === node.metadata.name
}
