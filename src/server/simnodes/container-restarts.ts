/**
 * What a kubelet does when a container of a running pod exits and the pod's restartPolicy says
 * to start it again (Always, or OnFailure after a non-zero exit code): the pod stays Running
 * instead of ending Failed or Succeeded; the container shows its termination for a moment
 * (kubectl's STATUS `Error`). As the kubelet's doBackOff (pkg/kubelet/kuberuntime): the first
 * exit is restarted at once; a later one waits in `CrashLoopBackOff` with the termination as
 * `lastState`, its restart count unchanged and the reference's message
 * (`back-off 10s restarting failed container=app pod=web_default(<uid>)`), and after the
 * back-off (10 s doubling up to 5 min) runs again. The restart count grows by one with each new
 * container, as the runtime counts them. The container exits again when the rule that made it
 * exit (a kwok stage) applies again. kwok's stages know no restarts: this rule runs next to them.
 */
import { LIVENESS_ANNOTATION, withReadiness } from './pod-readiness.js'

type Obj = Record<string, unknown>

interface Pod {
  metadata: { name?: string; namespace?: string; uid?: string; annotations?: Record<string, string>; deletionTimestamp?: string }
  spec?: unknown
  status?: unknown
}

/** The kubelet's container back-off: 10 s, doubled at each restart, at most 5 min (pkg/kubelet/kubelet.go). */
const INITIAL_BACKOFF_MS = 10_000
const MAX_BACKOFF_MS = 300_000
/** How long an exited container shows terminated before it is seen waiting (about the kubelet's 1 s relist). */
export const SHOW_TERMINATED_MS = 1_000

const CRASH_LOOP = 'CrashLoopBackOff'
/** What a container killed by the kubelet exits with: SIGKILL's 128 + 9, after its grace period. */
const KILLED_EXIT_CODE = 137

/** The back-off after an exit of a container that has restarted `restarts` (≥ 1) times (the first exit restarts at once). */
export function backOffMs(restarts: number): number {
  return Math.min(INITIAL_BACKOFF_MS * 2 ** Math.max(0, restarts - 1), MAX_BACKOFF_MS)
}

/** A duration in Go's notation (time.Duration.String for whole seconds): `10s`, `2m40s`, `5m0s`. */
export function goDuration(ms: number): string {
  const seconds = Math.round(ms / 1000)
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${seconds % 60}s`
}

/** Whether the kubelet starts a container again after it exited with this code. */
export function restarts(pod: Pod, exitCode: number): boolean {
  const policy = (pod.spec as { restartPolicy?: string } | undefined)?.restartPolicy ?? 'Always'
  return policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0)
}

/**
 * A status a stage renders for a pod (`next`, already merged) as the kubelet would report it:
 * when it ends the pod (Failed, Succeeded) but an exited container restarts, the pod stays
 * Running; restart counts and last states stay the pod's own (kwok's templates write 0).
 */
export function kubeletExit(pod: Pod, next: Obj, now: string): Obj {
  const before = containerStatuses(pod.status)
  const statuses = (Array.isArray(next.containerStatuses) ? (next.containerStatuses as Obj[]) : []).map((s) => {
    const old = before.find((b) => b.name === s.name)
    return old ? { ...s, restartCount: old.restartCount ?? 0, ...(old.lastState ? { lastState: old.lastState } : {}) } : s
  })
  const exitRestarts = statuses.some((s) => {
    const terminated = terminatedOf(s)
    return terminated !== undefined && restarts(pod, Number(terminated.exitCode ?? 0))
  })
  if (!exitRestarts || (next.phase !== 'Failed' && next.phase !== 'Succeeded')) return statuses.length > 0 ? { ...next, containerStatuses: statuses } : next
  return withReadiness(pod, { ...next, phase: 'Running', containerStatuses: statuses.map((s) => (terminatedOf(s) ? { ...s, ready: false, started: false } : s)) }, now)
}

/** What the kubelet does next on its own to a pod of ours: a container to put in back-off, or one to run again; undefined when nothing. */
export function nextRestartStep(pod: Pod, nowMs: number): RestartStep | undefined {
  if ((pod.status as { phase?: string } | undefined)?.phase !== 'Running') return undefined
  // A pod being deleted is the pod-delete stage's: the kubelet restarts nothing of it.
  if (pod.metadata.deletionTimestamp) return undefined
  const statuses = containerStatuses(pod.status)
  const exited = statuses.find((s) => {
    const terminated = terminatedOf(s)
    return terminated !== undefined && restarts(pod, Number(terminated.exitCode ?? 0))
  })
  if (exited) return { kind: 'back-off', container: String(exited.name), delayMs: SHOW_TERMINATED_MS }
  const waiting = statuses.find((s) => (asObj(asObj(s.state).waiting).reason as string | undefined) === CRASH_LOOP)
  if (!waiting) return livenessKill(pod, statuses, nowMs)
  const finishedAt = Date.parse(String(asObj(asObj(waiting.lastState).terminated).finishedAt ?? ''))
  const due = (Number.isNaN(finishedAt) ? nowMs : finishedAt) + backOffMs(Number(waiting.restartCount ?? 1))
  return { kind: 'run', container: String(waiting.name), delayMs: Math.max(0, due - nowMs) }
}

/**
 * A container whose liveness probe the pod says fails (the annotation `probes.client.dev/liveness:
 * "false"` and a livenessProbe): the kubelet kills it once the probe has failed failureThreshold
 * times in a row, periodSeconds apart, after initialDelaySeconds (defaults 3, 10 s, 0).
 */
function livenessKill(pod: Pod, statuses: Obj[], nowMs: number): RestartStep | undefined {
  if (pod.metadata.annotations?.[LIVENESS_ANNOTATION] !== 'false') return undefined
  for (const s of statuses) {
    const probe = livenessProbeOf(pod, String(s.name))
    const startedAt = Date.parse(String(asObj(asObj(s.state).running).startedAt ?? ''))
    if (!probe || Number.isNaN(startedAt)) continue
    const seconds = (probe.initialDelaySeconds ?? 0) + (probe.periodSeconds ?? 10) * (probe.failureThreshold ?? 3)
    return { kind: 'kill', container: String(s.name), delayMs: Math.max(0, startedAt + seconds * 1000 - nowMs) }
  }
  return undefined
}

interface Probe {
  initialDelaySeconds?: number
  periodSeconds?: number
  failureThreshold?: number
  httpGet?: { port?: unknown }
  tcpSocket?: { port?: unknown }
}

function livenessProbeOf(pod: Pod, container: string): Probe | undefined {
  const containers = (pod.spec as { containers?: Array<{ name?: string; livenessProbe?: Probe }> } | undefined)?.containers
  return Array.isArray(containers) ? containers.find((c) => c.name === container)?.livenessProbe : undefined
}

/** The prober's failure output for a probe of this kind (pkg/probe: http, tcp; an exec probe's output is the command's, here none). */
function probeFailure(probe: Probe, podIP: string): string {
  if (probe.httpGet) return 'HTTP probe failed with statuscode: 500'
  if (probe.tcpSocket) return `dial tcp ${podIP}:${String(probe.tcpSocket.port ?? '')}: connect: connection refused`
  return ''
}

export interface RestartStep {
  kind: 'back-off' | 'run' | 'kill'
  container: string
  delayMs: number
}

export interface KubeletEvent {
  type: 'Normal' | 'Warning'
  reason: string
  message: string
  fieldPath: string
}

/** The pod's status after the step (undefined when the pod has moved on), and the kubelet's event for a back-off. */
export function applyRestartStep(pod: Pod, step: RestartStep, now: string): { status: Obj; events: KubeletEvent[] } | undefined {
  const status = asObj(pod.status)
  const statuses = containerStatuses(status)
  const target = statuses.find((s) => s.name === step.container)
  if (!target) return undefined
  const podRef = `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid ?? ''})`
  let changed: Obj
  let backedOff = false
  const fieldPath = `spec.containers{${step.container}}`
  const events: KubeletEvent[] = []
  if (step.kind === 'kill') {
    const running = asObj(asObj(target.state).running)
    const probe = livenessProbeOf(pod, step.container)
    if (!probe || running.startedAt === undefined) return undefined
    const podIP = String(asObj(status).podIP ?? '')
    // pkg/kubelet/prober: "%s probe failed: %s"; kuberuntime: "Container %s failed liveness probe, will be restarted".
    events.push({ type: 'Warning', reason: 'Unhealthy', message: `Liveness probe failed: ${probeFailure(probe, podIP)}`, fieldPath })
    events.push({ type: 'Normal', reason: 'Killing', message: `Container ${step.container} failed liveness probe, will be restarted`, fieldPath })
    const terminated = { exitCode: KILLED_EXIT_CODE, reason: 'Error', startedAt: running.startedAt, finishedAt: now }
    changed = { ...target, ready: false, started: false, state: { terminated } }
  } else if (step.kind === 'back-off') {
    const terminated = terminatedOf(target)
    if (!terminated) return undefined
    const restartCount = Number(target.restartCount ?? 0)
    // The kubelet's last state names the exited container (its ID), which the waiting one still shows.
    const last = target.containerID === undefined ? terminated : { ...terminated, containerID: target.containerID }
    if (restartCount === 0) {
      // The first exit: no back-off yet, a new container at once (the kubelet's backOff.Next starts the 10 s).
      const { containerID: _exited, ...rest } = target
      changed = { ...rest, ready: true, started: true, restartCount: 1, lastState: { terminated: last }, state: { running: { startedAt: now } } }
    } else {
      const message = `back-off ${goDuration(backOffMs(restartCount))} restarting failed container=${step.container} pod=${podRef}`
      changed = { ...target, ready: false, started: false, lastState: { terminated: last }, state: { waiting: { reason: CRASH_LOOP, message } } }
      backedOff = true
    }
  } else {
    if ((asObj(asObj(target.state).waiting).reason as string | undefined) !== CRASH_LOOP) return undefined
    // A new container: its ID is the runtime's new one (filled in from the restart count).
    const { containerID: _exited, ...rest } = target
    changed = { ...rest, ready: true, started: true, restartCount: Number(target.restartCount ?? 0) + 1, state: { running: { startedAt: now } } }
  }
  const containerStatusesNext = statuses.map((s) => (s === target ? changed : s))
  // A killed container that is not restarted (restartPolicy Never) ends the pod once none runs.
  const ended = step.kind === 'kill' && !restarts(pod, KILLED_EXIT_CODE) && !containerStatusesNext.some((s) => asObj(s.state).running !== undefined)
  const next = { ...status, ...(ended ? { phase: 'Failed' } : {}), containerStatuses: containerStatusesNext }
  if (backedOff) events.push({ type: 'Warning', reason: 'BackOff', message: `Back-off restarting failed container ${step.container} in pod ${podRef}`, fieldPath })
  return { status: withReadiness(pod, next, now), events }
}

function containerStatuses(status: unknown): Obj[] {
  const list = asObj(status).containerStatuses
  return Array.isArray(list) ? (list as Obj[]) : []
}

function terminatedOf(s: Obj): Obj | undefined {
  const t = asObj(s.state).terminated
  return t && typeof t === 'object' ? (t as Obj) : undefined
}

function asObj(v: unknown): Obj {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {}
}
