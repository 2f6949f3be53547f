/**
 * Events as client-go's record.EventRecorder writes them for a controller (core/v1 Events):
 * named `<object>.<hex time>`, in the object's namespace (`default` for cluster-scoped ones),
 * with the source component, and repeats of the same event (same object, type, reason and
 * message) counted on the first one within the reference's ten-minute window instead of
 * written again, as its event correlator does.
 */
import type { Registry } from '../api/registry/registry.js'
import type { KubeObject } from '../api/registry/object.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'

export type EventType = 'Normal' | 'Warning'

/** The reference's aggregation window for identical events (events_cache.go's maxLruCacheEntries aside). */
const REPEAT_WINDOW_MS = 10 * 60 * 1000

interface Recorded {
  readonly namespace: string
  readonly name: string
  readonly at: number
}

export class EventRecorder {
  private readonly recent = new Map<string, Recorded>()

  constructor(
    private readonly registry: Registry,
    /** source.component and reportingComponent, as the reference's (e.g. `deployment-controller`, `default-scheduler`). */
    private readonly component: string,
    private readonly options: { host?: string; clock?: Clock; onError?(err: Error): void } = {},
  ) {}

  /**
   * Records one event about `object` (a part of it with `fieldPath`, as the kubelet's
   * `spec.containers{name}`); failures are reported, never thrown (events are best effort, as in
   * the reference).
   */
  async record(object: KubeObject, type: EventType, reason: string, message: string, fieldPath?: string): Promise<void> {
    const events = this.registry.lookup('', 'v1', 'events')
    if (!events) return
    const clock = this.options.clock ?? SYSTEM_CLOCK
    const now = clock.now()
    const timestamp = new Date(Math.floor(now / 1000) * 1000).toISOString().replace('.000Z', 'Z')
    const namespace = object.metadata.namespace || 'default'
    const involved = {
      kind: object.kind,
      namespace: object.metadata.namespace,
      name: object.metadata.name,
      uid: object.metadata.uid,
      apiVersion: object.apiVersion,
      resourceVersion: object.metadata.resourceVersion,
      fieldPath,
    }
    const key = JSON.stringify([object.metadata.uid ?? `${namespace}/${object.metadata.name}`, fieldPath ?? '', type, reason, message])
    try {
      const seen = this.recent.get(key)
      if (seen && now - seen.at < REPEAT_WINDOW_MS) {
        await events.update(seen.namespace, seen.name, (current) => ({ ...current, count: ((current.count as number | undefined) ?? 1) + 1, lastTimestamp: timestamp }), { admission: false })
        this.recent.set(key, { ...seen, at: now })
        return
      }
      const name = `${object.metadata.name}.${(BigInt(now) * 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000))).toString(16)}`
      await events.create(
        {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name, namespace },
          involvedObject: Object.fromEntries(Object.entries(involved).filter(([, v]) => v !== undefined)),
          reason,
          message,
          source: { component: this.component, ...(this.options.host ? { host: this.options.host } : {}) },
          firstTimestamp: timestamp,
          lastTimestamp: timestamp,
          count: 1,
          type,
          eventTime: null,
          reportingComponent: this.component,
          reportingInstance: this.options.host ?? '',
        },
        { admission: false },
      )
      this.recent.set(key, { namespace, name, at: now })
      if (this.recent.size > 4096) this.recent.delete(this.recent.keys().next().value!)
    } catch (err) {
      this.options.onError?.(err as Error)
    }
  }
}
