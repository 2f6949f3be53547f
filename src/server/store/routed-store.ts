import { InvalidError } from './errors.js'
import type {
  PutOptions,
  DeleteOptions,
  DeleteResult,
  KeyValue,
  ListOptions,
  ListResult,
  NamedHealthCheck,
  Store,
  Watch,
  WatchOptions,
} from './types.js'

/** Keys starting with `keyPrefix` live in `store`. */
export interface Route {
  readonly keyPrefix: string
  readonly store: Store
}

/** A backend of overrides, with the name of its health checks (`store-override-0`). */
export interface OverrideBackend {
  readonly name: string
  readonly store: Store
}

/**
 * Sends each key to the store that holds its resource: the override store of the first
 * matching route (longest key prefix first), the default store otherwise. Revisions are
 * per backend, as with the reference's per-resource etcd clusters, so `currentRevision`
 * and `compact` speak for the default store; each backend compacts itself.
 */
export class RoutedStore implements Store {
  readonly kind = 'routed' as const
  private readonly routes: Route[]

  constructor(
    private readonly fallback: Store,
    routes: readonly Route[],
    private readonly backends: readonly OverrideBackend[],
  ) {
    this.routes = [...routes].sort((a, b) => b.keyPrefix.length - a.keyPrefix.length)
  }

  /** The store for one key. */
  storeFor(key: string): Store {
    return this.routes.find(r => key.startsWith(r.keyPrefix))?.store ?? this.fallback
  }

  /** The store for every key under `prefix`; a prefix straddling backends is refused. */
  private storeForPrefix(prefix: string): Store {
    const inside = this.routes.find(r => prefix.startsWith(r.keyPrefix))
    if (inside) return inside.store
    const straddled = this.routes.filter(r => r.keyPrefix.startsWith(prefix))
    if (straddled.length > 0) {
      throw new InvalidError(
        `prefix "${prefix}" spans several stores (overrides for ${straddled.map(r => `"${r.keyPrefix}"`).join(', ')}); ` +
          `list or watch each resource on its own`,
      )
    }
    return this.fallback
  }

  create(key: string, value: Buffer, options?: PutOptions): Promise<KeyValue> {
    return this.storeFor(key).create(key, value, options)
  }

  get(key: string): Promise<KeyValue | null> {
    return this.storeFor(key).get(key)
  }

  getNow(key: string): KeyValue | null | undefined {
    const store = this.storeFor(key)
    return store.getNow ? store.getNow(key) : undefined
  }

  update(key: string, value: Buffer, expectedModRevision: number, options?: PutOptions): Promise<KeyValue> {
    return this.storeFor(key).update(key, value, expectedModRevision, options)
  }

  delete(key: string, options?: DeleteOptions): Promise<DeleteResult> {
    return this.storeFor(key).delete(key, options)
  }

  async list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.storeForPrefix(prefix).list(prefix, options)
  }

  async count(prefix: string): Promise<number> {
    return this.storeForPrefix(prefix).count(prefix)
  }

  async watch(keyOrPrefix: string, options: WatchOptions = {}): Promise<Watch> {
    const store = options.exact ? this.storeFor(keyOrPrefix) : this.storeForPrefix(keyOrPrefix)
    return store.watch(keyOrPrefix, options)
  }

  compact(revision: number): Promise<void> {
    return this.fallback.compact(revision)
  }

  currentRevision(): Promise<number> {
    return this.fallback.currentRevision()
  }

  async healthCheck(timeoutMs?: number): Promise<void> {
    await Promise.all(this.healthChecks().map(c => c.check(timeoutMs)))
  }

  /** The default backend's size; overrides are separate etcd clusters with their own. */
  dbSizeBytes(): Promise<number> {
    return this.fallback.dbSizeBytes()
  }

  healthChecks(): NamedHealthCheck[] {
    return [
      ...this.fallback.healthChecks(),
      ...this.backends.map(b => ({ name: b.name, check: (timeoutMs?: number) => b.store.healthCheck(timeoutMs) })),
    ]
  }

  readyChecks(): NamedHealthCheck[] {
    return [
      ...this.fallback.readyChecks(),
      ...this.backends.flatMap(b => b.store.readyChecks().map(c => ({ name: `${b.name}-readiness`, check: c.check }))),
    ]
  }

  async close(): Promise<void> {
    await Promise.all([this.fallback.close(), ...this.backends.map(b => b.store.close())])
  }
}
