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

/** logarithmicRankDiff: the difference of floor(log2(age in ns)) of two times at `now` (-1 for a time not in the past). */
function logarithmicRankDiff(t1: number, t2: number, now: number): number {
  const bucket = (t: number) => {
    const ns = (now - t) * 1e6
    return ns <= 0 ? -1 : Math.floor(Math.log2(ns))
  }
  return bucket(t1) - bucket(t2)
}

/**
 * The order of two times, the later (younger) first; on the logarithmic scale when both are
 * known, the uid deciding within a bucket. undefined when the times are equal.
 */
function byAge(a: KubeObject, b: KubeObject, ta: number, tb: number, now: number): number | undefined {
  if (ta === tb) return undefined
  if (ta === -Infinity || tb === -Infinity) return ta === -Infinity ? -1 : tb === -Infinity ? 1 : tb - ta
  const diff = logarithmicRankDiff(ta, tb, now)
  if (diff === 0) return String(a.metadata.uid ?? '') < String(b.metadata.uid ?? '') ? -1 : 1
  return diff
}

/** The pods in deletion order; `rank` counts the related pods on each pod's node (higher goes first). */
export function rankForDeletion(pods: readonly KubeObject[], rank: (pod: KubeObject) => number = () => 0, now = Date.now()): KubeObject[] {
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
      const order = byAge(a, b, time(readyCondition(a)?.lastTransitionTime), time(readyCondition(b)?.lastTransitionTime), now)
      if (order !== undefined) return order
    }
    const restartsA = restarts(a)
    const restartsB = restarts(b)
    if (restartsA !== restartsB) return restartsB - restartsA
    return byAge(a, b, time(a.metadata.creationTimestamp), time(b.metadata.creationTimestamp), now) ?? 0
  })
}
