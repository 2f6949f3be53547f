/**
 * The scheduling queue (pkg/scheduler/backend/queue): pods waiting for a node, by priority
 * (spec.priority, higher first) then by the time they entered the queue. A pod that failed
 * waits in the unschedulable set until a change in the cluster may help it (then it goes back
 * after its back-off: 1 s doubling per attempt up to 10 s), or until it has waited there for
 * the flush interval (the reference's 5 minutes).
 */
import type { Clock } from './clock.js'
import { type Pod, podKey, priorityOf } from './objects.js'

export const INITIAL_BACKOFF_MS = 1000
export const MAX_BACKOFF_MS = 10_000
export const UNSCHEDULABLE_FLUSH_MS = 5 * 60 * 1000

interface Entry {
  pod: Pod
  /** When it entered the active queue (the tie-break after priority). */
  timestamp: number
  attempts: number
  /** When its last attempt failed. */
  failedAt: number
  /** A new cluster event arrived while it was being scheduled: retry at once when it fails. */
  moveRequested: boolean
}

export class SchedulingQueue {
  private readonly active = new Map<string, Entry>()
  private readonly backoff = new Map<string, Entry>()
  private readonly unschedulable = new Map<string, Entry>()
  private readonly inFlight = new Map<string, Entry>()
  private sequence = 0

  constructor(private readonly clock: Clock) {}

  /** A pending pod seen (created or updated): queued, or its entry refreshed where it waits. */
  add(pod: Pod): void {
    const key = podKey(pod)
    for (const where of [this.active, this.backoff, this.inFlight]) {
      const entry = where.get(key)
      if (entry) {
        entry.pod = pod
        return
      }
    }
    const parked = this.unschedulable.get(key)
    if (parked) {
      // An update of the pod itself may make it schedulable (the reference's Pod/Update event);
      // a status write (the scheduler's own condition) does not (isPodUpdated strips it).
      const changed = schedulingView(parked.pod) !== schedulingView(pod)
      parked.pod = pod
      if (changed) {
        this.unschedulable.delete(key)
        this.toBackoffOrActive(key, parked)
      }
      return
    }
    this.active.set(key, { pod, timestamp: this.stamp(), attempts: 0, failedAt: 0, moveRequested: false })
  }

  delete(key: string): void {
    this.active.delete(key)
    this.backoff.delete(key)
    this.unschedulable.delete(key)
    this.inFlight.delete(key)
  }

  has(key: string): boolean {
    return this.active.has(key) || this.backoff.has(key) || this.unschedulable.has(key) || this.inFlight.has(key)
  }

  /** The next pod to schedule: the highest priority, then the earliest. */
  pop(): Pod | undefined {
    this.flushBackoff()
    let best: [string, Entry] | undefined
    for (const item of this.active) {
      const [, e] = item
      if (!best) best = item
      else {
        const [, b] = best
        const pe = priorityOf(e.pod)
        const pb = priorityOf(b.pod)
        if (pe > pb || (pe === pb && e.timestamp < b.timestamp)) best = item
      }
    }
    if (!best) return undefined
    const [key, entry] = best
    this.active.delete(key)
    entry.attempts++
    entry.moveRequested = false
    this.inFlight.set(key, entry)
    return entry.pod
  }

  /** The attempt is over (bound, or gone). */
  done(key: string): void {
    this.inFlight.delete(key)
  }

  /** The attempt failed: parked until a change may help, or retried after back-off if one came meanwhile. */
  failed(key: string): void {
    const entry = this.inFlight.get(key)
    if (!entry) return
    this.inFlight.delete(key)
    entry.failedAt = this.clock.now()
    if (entry.moveRequested) this.toBackoffOrActive(key, entry)
    else this.unschedulable.set(key, entry)
  }

  /** An error (not a rejection): retried after back-off. */
  retry(key: string): void {
    const entry = this.inFlight.get(key)
    if (!entry) return
    this.inFlight.delete(key)
    entry.failedAt = this.clock.now()
    this.toBackoffOrActive(key, entry)
  }

  /** MoveAllToActiveOrBackoffQueue: a cluster change (node or pod) may make the parked pods schedulable. */
  moveAllToActiveOrBackoff(): void {
    for (const [key, entry] of this.unschedulable) this.toBackoffOrActive(key, entry)
    this.unschedulable.clear()
    for (const entry of this.inFlight.values()) entry.moveRequested = true
  }

  /** flushUnschedulablePodsLeftover and flushBackoffQCompleted, run by the scheduler's timer. */
  flush(): void {
    const now = this.clock.now()
    for (const [key, entry] of this.unschedulable) {
      if (now - entry.failedAt >= UNSCHEDULABLE_FLUSH_MS) {
        this.unschedulable.delete(key)
        this.toBackoffOrActive(key, entry)
      }
    }
    this.flushBackoff()
  }

  get activeCount(): number {
    this.flushBackoff()
    return this.active.size
  }

  /** When the next back-off ends, if any pod is backing off. */
  nextBackoffEnd(): number | undefined {
    let next: number | undefined
    for (const entry of this.backoff.values()) {
      const end = entry.failedAt + backoffDuration(entry.attempts)
      if (next === undefined || end < next) next = end
    }
    return next
  }

  private flushBackoff(): void {
    const now = this.clock.now()
    for (const [key, entry] of this.backoff) {
      if (entry.failedAt + backoffDuration(entry.attempts) <= now) {
        this.backoff.delete(key)
        entry.timestamp = this.stamp()
        this.active.set(key, entry)
      }
    }
  }

  private toBackoffOrActive(key: string, entry: Entry): void {
    if (entry.failedAt + backoffDuration(entry.attempts) > this.clock.now()) this.backoff.set(key, entry)
    else {
      entry.timestamp = this.stamp()
      this.active.set(key, entry)
    }
  }

  /** Monotonic entry time: the clock may stand still (a fake clock), the order of arrival must not. */
  private stamp(): number {
    return this.sequence++
  }
}

/** What of a pod its own update may change for scheduling: spec, labels, annotations. */
function schedulingView(pod: Pod): string {
  return JSON.stringify([pod.spec ?? {}, pod.metadata.labels ?? {}, pod.metadata.annotations ?? {}])
}

/** calculateBackoffDuration: 1 s doubled per attempt after the first, at most 10 s. */
export function backoffDuration(attempts: number): number {
  let d = INITIAL_BACKOFF_MS
  for (let i = 1; i < attempts; i++) {
    d *= 2
    if (d >= MAX_BACKOFF_MS) return MAX_BACKOFF_MS
  }
  return d
}
