/**
 * What workload controllers read of a pod's status, as the reference's podutil helpers
 * (pkg/api/v1/pod/util.go IsPodReady, IsPodAvailable; pkg/controller/controller_utils.go
 * IsPodActive): ready is the Ready condition True; available is ready for minReadySeconds.
 */
import type { KubeObject } from '../../api/registry/object.js'

interface Condition {
  type?: string
  status?: string
  lastTransitionTime?: string
}

function conditions(pod: KubeObject): Condition[] {
  const list = (pod.status as { conditions?: unknown } | undefined)?.conditions
  return Array.isArray(list) ? (list as Condition[]) : []
}

export function podPhase(pod: KubeObject): string {
  return String((pod.status as { phase?: unknown } | undefined)?.phase ?? '')
}

export function readyCondition(pod: KubeObject): Condition | undefined {
  return conditions(pod).find((c) => c.type === 'Ready')
}

export function isPodReady(pod: KubeObject): boolean {
  return readyCondition(pod)?.status === 'True'
}

/** Ready for at least minReadySeconds at `now` (the reference's IsPodAvailable). */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false
  if (minReadySeconds <= 0) return true
  const since = Date.parse(readyCondition(pod)?.lastTransitionTime ?? '')
  return !Number.isNaN(since) && since + minReadySeconds * 1000 <= now
}

/** Not finished and not being deleted (IsPodActive). */
export function isPodActive(pod: KubeObject): boolean {
  const phase = podPhase(pod)
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp
}

export function nodeNameOf(pod: KubeObject): string {
  return String((pod.spec as { nodeName?: unknown } | undefined)?.nodeName ?? '')
}
