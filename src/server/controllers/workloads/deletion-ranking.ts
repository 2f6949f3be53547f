/**
 * Which pods a ReplicaSet deletes first when it scales down, as the reference's
 * ActivePodsWithRanks (pkg/controller/controller_utils.go): unassigned before assigned, pending
 * before unknown before running, not ready before ready, more related pods on the same node
 * first, ready for less time first, more container restarts first, newer first.
 */
import type { KubeObject } from '../../api/registry/object.js'
import { isPodReady, nodeNameOf, podPhase, readyCondition } from './pod-state.js'

const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 }

function restarts(pod: KubeObject): number {
  const statuses = (pod.status as { containerStatuses?: Array<{ restartCount?: number }> } | undefined)?.containerStatuses ?? []
  return Math.max(0, ...statuses.map((s) => s.restartCount ?? 0))
}

function time(value: unknown): number {
  const t = Date.parse(String(value ?? ''))
  return Number.isNaN(t) ? -Infinity : t
}

/** The pods in deletion order; `rank` counts the related pods on each pod's node (higher goes first). */
export function rankForDeletion(pods: readonly KubeObject[], rank: (pod: KubeObject) => number = () => 0): KubeObject[] {
  return [...pods].sort((a, b) => {
    const assignedA = nodeNameOf(a) !== ''
    const assignedB = nodeNameOf(b) !== ''
    if (assignedA !== assignedB) return assignedA ? 1 : -1
    const phaseA = PHASE_ORDER[podPhase(a)] ?? 0
    const phaseB = PHASE_ORDER[podPhase(b)] ?? 0
    if (phaseA !== phaseB) return phaseA - phaseB
    const readyA = isPodReady(a)
    const readyB = isPodReady(b)
    if (readyA !== readyB) return readyA ? 1 : -1
    const rankA = rank(a)
    const rankB = rank(b)
    if (rankA !== rankB) return rankB - rankA
    if (readyA && readyB) {
      const sinceA = time(readyCondition(a)?.lastTransitionTime)
      const sinceB = time(readyCondition(b)?.lastTransitionTime)
      // Ready more recently goes first.
      if (sinceA !== sinceB) return sinceB - sinceA
    }
    const restartsA = restarts(a)
    const restartsB = restarts(b)
    if (restartsA !== restartsB) return restartsB - restartsA
    const createdA = time(a.metadata.creationTimestamp)
    const createdB = time(b.metadata.creationTimestamp)
    if (createdA !== createdB) return createdB - createdA
    return 0
  })
}
