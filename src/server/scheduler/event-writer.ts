/**
 * The scheduler's events as the reference writes them: events.k8s.io/v1 (client-go's
 * tools/events recorder, which kube-scheduler uses, not the core/v1 record package of the
 * controller manager): `regarding` the pod, `note`, `action` (Binding, Scheduling),
 * `reportingController` the profile's scheduler name and `reportingInstance` that name and the
 * host (`default-scheduler-<host>`), an `eventTime` in microseconds. A repeat of the same event
 * (same pod, type, reason, action and note) within six minutes updates the first one's
 * `series` (count and lastObservedTime) instead of writing another. Failures are reported,
 * never thrown: events are best effort.
 */
import { hostname } from 'node:os'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import type { Clock } from './clock.js'

/** tools/events' window for an isomorphic event to join a series. */
const SERIES_WINDOW_MS = 6 * 60 * 1000
/** The note's limit in events.k8s.io/v1 (1 kB); longer notes are cut as truncateMessage does. */
const NOTE_MAX = 1024

/** metav1.MicroTime: RFC 3339 with microseconds. */
const microTime = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z')

interface Recorded {
  readonly namespace: string
  readonly name: string
  at: number
  count: number
}

export class EventWriter {
  private readonly recent = new Map<string, Recorded>()
  readonly reportingInstance: string

  constructor(
    private readonly registry: Registry,
    private readonly reportingController: string,
    private readonly clock: Clock,
    private readonly onError: (err: Error) => void = () => {},
    host = hostname(),
  ) {
    this.reportingInstance = `${reportingController}-${host}`
  }

  async record(regarding: KubeObject, type: 'Normal' | 'Warning', reason: string, action: string, note: string): Promise<void> {
    const events = this.registry.lookup('events.k8s.io', 'v1', 'events')
    if (!events) return
    const now = this.clock.now()
    const text = note.length > NOTE_MAX ? `${note.slice(0, NOTE_MAX - 4)} ...` : note
    const namespace = regarding.metadata.namespace || 'default'
    const key = JSON.stringify([regarding.metadata.uid ?? `${namespace}/${regarding.metadata.name}`, type, reason, action, text])
    try {
      const seen = this.recent.get(key)
      if (seen && now - seen.at < SERIES_WINDOW_MS) {
        seen.count++
        seen.at = now
        const count = seen.count
        await events.update(seen.namespace, seen.name, (current) => ({ ...current, series: { count, lastObservedTime: microTime(now) } }), { admission: false })
        return
      }
      const name = `${regarding.metadata.name}.${(BigInt(now) * 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000))).toString(16)}`
      await events.create(
        {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata: { name, namespace },
          eventTime: microTime(now),
          reportingController: this.reportingController,
          reportingInstance: this.reportingInstance,
          action,
          reason,
          regarding: {
            kind: regarding.kind ?? 'Pod',
            namespace: regarding.metadata.namespace,
            name: regarding.metadata.name,
            uid: regarding.metadata.uid,
            apiVersion: regarding.apiVersion ?? 'v1',
            resourceVersion: regarding.metadata.resourceVersion,
          },
          note: text,
          type,
        },
        { admission: false },
      )
      this.recent.set(key, { namespace, name, at: now, count: 1 })
      if (this.recent.size > 4096) this.recent.delete(this.recent.keys().next().value!)
    } catch (err) {
      this.onError(err as Error)
    }
  }
}
