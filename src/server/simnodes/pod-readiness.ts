/**
 * The pod's readiness as the kubelet's status manager derives it from its containers: the
 * conditions ContainersReady and Ready are True when every container is ready, else False with
 * the reference's reason `ContainersNotReady` and message `containers with unready status: [a b]`
 * (pkg/kubelet/status/generate.go). Readiness probes are simulated as passing, unless the pod
 * asks otherwise with the annotation `probes.client.dev/readiness: "false"`: then its containers
 * that have a readinessProbe stay not ready while running (what a CI needs to see
 * `kubectl rollout status` time out).
 */
type Obj = Record<string, unknown>

export const READINESS_ANNOTATION = 'probes.client.dev/readiness'
/** Liveness probes fail when the pod says so: the kubelet kills and restarts its probed containers (container-restarts.ts). */
export const LIVENESS_ANNOTATION = 'probes.client.dev/liveness'

const CONTAINERS_NOT_READY = 'ContainersNotReady'

interface Pod {
  metadata: { annotations?: Record<string, string> }
  spec?: unknown
}

/** The status with the readiness annotation applied to its running containers and the Ready conditions derived from them. */
export function withReadiness(pod: Pod, status: Obj, now: string): Obj {
  const statuses = status.containerStatuses
  if (!Array.isArray(statuses) || statuses.length === 0) return status
  const failing = pod.metadata.annotations?.[READINESS_ANNOTATION] === 'false'
  const probed = new Set(specContainers(pod).filter((c) => c.readinessProbe).map((c) => c.name))
  const containerStatuses = (statuses as Obj[]).map((s) => (failing && probed.has(String(s.name)) && s.ready === true ? { ...s, ready: false } : s))
  const unready = containerStatuses.filter((s) => s.ready !== true).map((s) => String(s.name))
  const conditions = readyConditions((status.conditions as Obj[] | undefined) ?? [], unready, now)
  return { ...status, containerStatuses, conditions }
}

/** ContainersReady and Ready set from the unready containers; a condition keeps its transition time while its status stays. */
function readyConditions(conditions: Obj[], unready: string[], now: string): Obj[] {
  const wanted: Obj =
    unready.length === 0
      ? { status: 'True' }
      : { status: 'False', reason: CONTAINERS_NOT_READY, message: `containers with unready status: [${unready.join(' ')}]` }
  const out = conditions.filter((c) => c.type !== 'Ready' && c.type !== 'ContainersReady')
  for (const type of ['Ready', 'ContainersReady']) {
    const before = conditions.find((c) => c.type === type)
    const since = before && before.status === wanted.status ? before.lastTransitionTime : now
    out.push({ type, ...wanted, lastProbeTime: null, lastTransitionTime: since })
  }
  return out
}

function specContainers(pod: Pod): Array<{ name: string; readinessProbe?: unknown }> {
  const containers = (pod.spec as { containers?: unknown } | undefined)?.containers
  return Array.isArray(containers) ? (containers as Array<{ name: string; readinessProbe?: unknown }>) : []
}
