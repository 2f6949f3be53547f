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
  /** Deprecated since 1.34 for `resourceObjects` (the assembly marks it so: hidden in 1.35). */
  readonly objects: Gauge<'resource'>
  readonly resourceObjects: Gauge<'group' | 'resource'>
  readonly size: Gauge<'storage_cluster_id'>

  constructor(private readonly options: StorageMetricsOptions) {
    this.objects = new Gauge({
      name: 'apiserver_storage_objects',
      help: '[STABLE] [DEPRECATED, consider using apiserver_resource_objects instead] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      labelNames: ['resource'],
      registers: [options.registry],
    })
    this.resourceObjects = new Gauge({
      name: 'apiserver_resource_objects',
      help: '[ALPHA] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      labelNames: ['group', 'resource'],
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
      // `configmaps` is the core group's; `clusterroles.rbac.authorization.k8s.io` names its group.
      const dot = resource.indexOf('.')
      const groupResource = dot < 0 ? { group: '', resource } : { group: resource.slice(dot + 1), resource: resource.slice(0, dot) }
      let count = -1
      try {
        count = await store.count(prefix)
      } catch (err) {
        this.options.onError(err)
      }
      this.objects.set({ resource }, count)
      this.resourceObjects.set(groupResource, count)
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
