/**
 * Storage metrics polled in the background, as the reference does: the number of stored
 * objects per resource (every --store-count-metric-poll-period) and the size of the store's
 * database (every --store-db-metric-poll-interval). A period of 0 turns a poll off.
 */
import { Gauge } from 'prom-client'
import type { Registry } from 'prom-client'
import type { Store } from './store/types.js'

interface StorageMetricsOptions {
  registry: Registry
  store: () => Store | undefined
  /** Resources and their store key prefixes, e.g. `['namespaces', '/namespaces/']`. */
  resources: () => ReadonlyArray<[resource: string, prefix: string]>
  countPollMs: number
  dbPollMs: number
  onError: (err: unknown) => void
}

export class StorageMetrics {
  private readonly timers: NodeJS.Timeout[] = []
  readonly objects: Gauge<'resource'>
  readonly size: Gauge<'storage_cluster_id'>

  constructor(private readonly options: StorageMetricsOptions) {
    this.objects = new Gauge({
      name: 'apiserver_storage_objects',
      help: '[STABLE] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      labelNames: ['resource'],
      registers: [options.registry],
    })
    this.size = new Gauge({
      name: 'apiserver_storage_size_bytes',
      help: '[STABLE] Size of the storage database file physically allocated in bytes.',
      labelNames: ['storage_cluster_id'],
      registers: [options.registry],
    })
  }

  start(): void {
    if (this.options.countPollMs > 0) this.timers.push(setInterval(() => void this.pollCounts(), this.options.countPollMs).unref())
    if (this.options.dbPollMs > 0) this.timers.push(setInterval(() => void this.pollSize(), this.options.dbPollMs).unref())
  }

  async pollCounts(): Promise<void> {
    const store = this.options.store()
    if (!store) return
    for (const [resource, prefix] of this.options.resources()) {
      try {
        this.objects.set({ resource }, await store.count(prefix))
      } catch (err) {
        this.objects.set({ resource }, -1)
        this.options.onError(err)
      }
    }
  }

  async pollSize(): Promise<void> {
    const store = this.options.store()
    if (!store) return
    try {
      this.size.set({ storage_cluster_id: store.kind }, await store.dbSizeBytes())
    } catch (err) {
      this.options.onError(err)
    }
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t)
  }
}
