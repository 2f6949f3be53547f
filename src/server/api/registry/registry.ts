/**
 * The generic stores of every served kind over one Store, wired together: every create goes
 * through the admission chain of the options (NamespaceLifecycle there: namespaced creates
 * need their namespace to exist and not be Terminating), each kind's own store hooks run
 * (Strategy.storeHooks: deleting a namespace marks it Terminating, services get their IPs),
 * and every write is published (onChange) to whoever follows the registry: the controllers
 * (src/server/controllers) empty and remove such namespaces, end pods' grace periods, collect
 * garbage. The registry starts no controller.
 */
import type { Store } from '../../store/types.js'
import { CRD_GROUP, CRD_RESOURCE, customResourceStrategies, customResourceStrategy, storageVersion } from '../kinds/crd.js'
import { isConditionTrue, reconcileStatus } from '../kinds/crd-conditions.js'
import { KINDS } from '../kinds/index.js'
import { defaultKeyPrefix } from '../../store/overrides.js'
import { errors } from '../status-errors.js'
import type { ServiceLookup } from '../kinds/crd-conversion.js'
import { storedServices } from '../kinds/webhook-client.js'
import { GenericStore, type ObjectChange } from './generic-store.js'
import type { RegistryOptions } from './options.js'
import { shareStorageCodec } from './storage-codec.js'
import { WatchCachedStore, disabledByWatchCacheSizes } from './watch-cache.js'
import type { KubeObject } from './object.js'
import type { StoreHooksContext } from './store-hooks.js'
import type { Strategy } from './strategy.js'

/** How long the custom resource stores read from the CRDs are reused (see Registry.customStores). */
const CUSTOM_STORES_TTL_MS = 1000

/** Follows the registry's writes (see Registry.onChange). */
export type ChangeListener = (change: ObjectChange) => void

export class Registry {
  private readonly byResource = new Map<string, GenericStore>()
  /** The built-in kinds' watch caches, when on. */
  readonly watchCache: WatchCachedStore | undefined
  private readonly listeners = new Set<ChangeListener>()

  constructor(
    readonly store: Store,
    kinds: readonly Strategy[] = KINDS,
    readonly log: (level: number, msg: string) => void = () => {},
    readonly options: RegistryOptions = {},
  ) {
    this.watchCache = watchCacheFor(store, kinds, options)
    this.watchCache?.startAll()
    const cachedStore = this.watchCache ?? store
    if (this.watchCache) shareStorageCodec(store, this.watchCache)
    // What a kind's own store hooks (Strategy.storeHooks) may reach of this registry.
    const hooksContext: StoreHooksContext = { lookup: (group, version, resource) => this.lookup(group, version, resource), options, log }
    for (const strategy of kinds) {
      const hooks = {
        ...strategy.storeHooks?.(hooksContext),
        ...options.writeChecks?.[`${strategy.group}/${strategy.resource}`],
        ...(options.admission ? { admission: options.admission } : {}),
        changed: (change: ObjectChange) => this.changed(change),
        garbageCollection: options.garbageCollector === true,
      }
      this.byResource.set(`${strategy.group}/${strategy.version}/${strategy.resource}`, new GenericStore(cachedStore, strategy, hooks))
    }
  }

  /** Releases what the registry keeps running (the store is closing or replaced). */
  stop(): void {
    this.listeners.clear()
  }

  /**
   * Calls `listener` with every write of the built-in and custom resource stores, once it is
   * stored; answers the function that stops the calls.
   */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private changed(change: ObjectChange): void {
    // A CRD write changes the custom resources served: read them again.
    if (isCRDs(change.strategy)) this.customStoresCache = undefined
    for (const listener of this.listeners) {
      try {
        listener(change)
      } catch (err) {
        // The write is stored: a follower's failure is its own, not the request's.
        this.log(2, `change listener: ${(err as Error).message}`)
      }
    }
  }

  /** The store of the CRDs themselves. */
  get crds(): GenericStore | undefined {
    return this.byResource.get(`${CRD_GROUP}/v1/${CRD_RESOURCE}`)
  }

  /**
   * A store for the custom resources of one strategy (creates go through admission; the CRD's
   * handler refuses creates while the CRD is terminating).
   */
  private customStore(strategy: Strategy, crd?: KubeObject): GenericStore {
    const terminating = crd !== undefined && isConditionTrue(crd, 'Terminating')
    return new GenericStore(this.store, strategy, {
      ...(terminating ? { refuseCreate: () => { throw errors.crdTerminating(strategy.group, strategy.resource, 'create') } } : {}),
      ...(this.options.admission ? { admission: this.options.admission } : {}),
      changed: (change: ObjectChange) => this.changed(change),
      garbageCollection: this.options.garbageCollector === true,
    })
  }

  /**
   * The custom resource stores lately read, with when: every discovery and OpenAPI request
   * needs them, so they are read at most once a second (and again at once after a CRD write
   * here; another server's CRD writes show within that second).
   */
  private customStoresCache: { at: number; stores: GenericStore[] } | undefined

  /** The stores of every served version of every established CRD. */
  async customStores(): Promise<GenericStore[]> {
    const now = Date.now()
    if (this.customStoresCache && now - this.customStoresCache.at < CUSTOM_STORES_TTL_MS) return this.customStoresCache.stores
    const stores = await this.readCustomStores()
    this.customStoresCache = { at: now, stores }
    return stores
  }

  /** The stores of every served version of every established CRD, read from the store now. */
  private async readCustomStores(): Promise<GenericStore[]> {
    const crds = this.crds
    if (!crds) return []
    const { items } = await crds.list()
    const builtin = new Set(this.byResource.keys())
    const builtinPrefixes = new Set(this.all().map((g) => g.prefix()))
    return items.flatMap((crd) =>
      customResourceStrategies(crd, this.serviceLookup)
        .filter((s) => !builtin.has(`${s.group}/${s.version}/${s.resource}`) && !builtinPrefixes.has(defaultKeyPrefix(s.group, s.resource)))
        .map((s) => this.customStore(s, crd)),
    )
  }

  /** The strategies served now: the built-in kinds and the custom resources. */
  async kinds(): Promise<Strategy[]> {
    return [...[...this.byResource.values()].map((g) => g.strategy), ...(await this.customStores()).map((g) => g.strategy)]
  }

  /** The store of `resource` in group/version: a built-in kind, or a custom resource of a CRD. */
  async resolve(group: string, version: string, resource: string): Promise<GenericStore | undefined> {
    const builtin = this.lookup(group, version, resource)
    if (builtin) return builtin
    if (group === '' || group === CRD_GROUP) return undefined
    return (await this.customStores()).find((g) => g.strategy.group === group && g.strategy.version === version && g.strategy.resource === resource)
  }

  /** Services for the conversion webhooks' service references. */
  private readonly serviceLookup: ServiceLookup = storedServices(() => this)

  /**
   * The store of a CRD's custom resources in its storage version, for the CRD finalizer;
   * undefined when their keys would be a built-in kind's (never touched).
   */
  instancesOf(crd: KubeObject): GenericStore | undefined {
    const version = storageVersion(crd)
    if (!version) return undefined
    const strategy = customResourceStrategy(crd, version, this.serviceLookup)
    if (!strategy.group || !strategy.resource) return undefined
    const prefix = defaultKeyPrefix(strategy.group, strategy.resource)
    if (this.all().some((g) => g.prefix() === prefix)) return undefined
    return this.customStore(strategy)
  }

  /** The store of `resource` in group/version, if served. */
  lookup(group: string, version: string, resource: string): GenericStore | undefined {
    return this.byResource.get(`${group}/${version}/${resource}`)
  }

  all(): GenericStore[] {
    return [...this.byResource.values()]
  }
}

function isCRDs(strategy: Strategy): boolean {
  return strategy.group === CRD_GROUP && strategy.resource === CRD_RESOURCE
}

/** One cache per built-in resource's keys, unless --watch-cache=false or its size is 0. */
function watchCacheFor(store: Store, kinds: readonly Strategy[], options: RegistryOptions): WatchCachedStore | undefined {
  if (!options.watchCache) return undefined
  const disabled = disabledByWatchCacheSizes(options.watchCacheSizes ?? [])
  const prefixes = kinds.filter((k) => !k.virtual && !disabled.has(`${k.group}/${k.resource}`)).map((k) => defaultKeyPrefix(k.group, k.resource))
  return prefixes.length > 0 ? new WatchCachedStore(store, prefixes, options.watchCacheWindow) : undefined
}
