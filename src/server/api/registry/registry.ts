/**
 * The generic stores of every served kind over one Store, wired together: namespaced creates
 * need their namespace to exist (and not Terminating), deleting a namespace marks it
 * Terminating, and every write is published (onChange) to whoever follows the registry: the
 * controllers (src/server/controllers) empty and remove such namespaces, end pods' grace
 * periods, collect garbage. The registry starts no controller.
 */
import type { Store } from '../../store/types.js'
import { allocateClusterIP } from '../kinds/cluster-ip.js'
import { allocateNodePorts } from '../kinds/node-ports.js'
import { CRD_GROUP, CRD_RESOURCE, customResourceStrategies, customResourceStrategy, storageVersion } from '../kinds/crd.js'
import { recordServiceIPs, releaseServiceIPs } from '../../controllers/service-ip-addresses.js'
import { CUSTOM_RESOURCE_CLEANUP_FINALIZER, isConditionTrue, reconcileStatus, setCondition } from '../../controllers/crd-conditions.js'
import { KINDS } from '../kinds/index.js'
import { defaultKeyPrefix } from '../../store/overrides.js'
import { ApiError, errors } from '../status-errors.js'
import type { ServiceLookup } from '../../controllers/crd-conversion.js'
import { admitNamespaceLifecycle } from '../../admission/namespace-lifecycle.js'
import { finalizersForPropagation, isNamespaces } from './deletion.js'
import { type DeleteOptions, type DeleteResult, GenericStore, type ObjectChange } from './generic-store.js'
import type { RegistryOptions } from './options.js'
import { shareStorageCodec } from './storage-codec.js'
import { WatchCachedStore, disabledByWatchCacheSizes } from './watch-cache.js'
import { Informer } from './informer.js'
import { type KubeObject, isPlainObject, nowTimestamp } from './object.js'
import type { Strategy } from './strategy.js'

/** How long the custom resource stores read from the CRDs are reused (see Registry.customStores). */
const CUSTOM_STORES_TTL_MS = 1000

/** Follows the registry's writes (see Registry.onChange). */
export type ChangeListener = (change: ObjectChange) => void

export class Registry {
  private namespaceInformer: Informer | undefined
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
    const services = async () => (await this.byResource.get('/v1/services')!.list()).items
    const ipAddresses = () => this.lookup('networking.k8s.io', 'v1', 'ipaddresses')
    const takenAddresses = async () => {
      const store = ipAddresses()
      return store ? (await store.list()).items.map((a) => a.metadata.name ?? '') : []
    }
    for (const strategy of kinds) {
      const isServices = strategy.group === '' && strategy.resource === 'services'
      const hooks = {
        ...(isServices
          ? {
              beforeCreate: async (obj: KubeObject) => {
                await allocateClusterIP(services, obj, options.serviceClusterIPRange, takenAddresses)
                await allocateNodePorts(services, obj, options.serviceNodePortRange)
              },
              beforeUpdate: (obj: KubeObject, old: KubeObject) => allocateNodePorts(services, obj, options.serviceNodePortRange, old),
              // The IPAddress objects of 1.33 and later (when the emulated version serves them).
              afterCreate: async (obj: KubeObject) => {
                const store = ipAddresses()
                if (store) await recordServiceIPs(store, obj).catch((err: unknown) => log(2, `ipaddresses of service ${obj.metadata.name ?? ''}: ${(err as Error).message}`))
              },
              afterDelete: async (obj: KubeObject) => {
                const store = ipAddresses()
                if (store) await releaseServiceIPs(store, obj).catch((err: unknown) => log(2, `ipaddresses of service ${obj.metadata.name ?? ''}: ${(err as Error).message}`))
              },
            }
          : {}),
        ...options.writeChecks?.[`${strategy.group}/${strategy.resource}`],
        checkNamespace: (namespace: string, name: string) => this.checkNamespace(strategy, namespace, name),
        changed: (change: ObjectChange) => this.changed(change),
        garbageCollection: options.garbageCollector === true,
        ...(isNamespaces(strategy) ? { delete: (current: KubeObject, o: DeleteOptions, proceed: () => Promise<DeleteResult>) => this.deleteNamespace(current, o, proceed) } : {}),
        ...(strategy.resource === 'events' && (strategy.group === '' || strategy.group === 'events.k8s.io') && options.eventTtlSeconds
          ? { ttlSeconds: () => options.eventTtlSeconds }
          : {}),
        ...(isCRDs(strategy)
          ? {
              beforeCreate: (obj: KubeObject) => this.reconcileCRDStatus(obj),
              beforeUpdate: (obj: KubeObject) => this.reconcileCRDStatus(obj),
              delete: (current: KubeObject, o: DeleteOptions, proceed: () => Promise<DeleteResult>) => this.deleteCRD(current, o, proceed),
            }
          : {}),
      }
      this.byResource.set(`${strategy.group}/${strategy.version}/${strategy.resource}`, new GenericStore(cachedStore, strategy, hooks))
    }
  }

  /** Releases what the registry keeps running (the store is closing or replaced). */
  stop(): void {
    this.namespaceInformer?.stop()
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

  /** The NamespaceLifecycle admission plugin (src/server/admission/namespace-lifecycle.ts). */
  private checkNamespace(strategy: Strategy, namespace: string, name: string): Promise<void> {
    // As the reference's plugin reads its namespace informer: an active namespace in memory
    // admits without a store read. Anything else (not seen yet, terminating) is looked up
    // live, as the reference does when its cache may lag.
    const seen = this.namespaceCache()?.get(namespace)
    if (seen && !seen.metadata.deletionTimestamp && (seen.status as { phase?: unknown } | undefined)?.phase !== 'Terminating') return Promise.resolve()
    return admitNamespaceLifecycle({ store: this.store, namespaces: () => this.lookup('', 'v1', 'namespaces') }, strategy, namespace, name)
  }

  /** The namespaces kept in memory, started on the first namespaced create. */
  private namespaceCache(): Informer | undefined {
    if (!this.namespaceInformer) {
      const namespaces = this.lookup('', 'v1', 'namespaces')
      if (!namespaces) return undefined
      this.namespaceInformer = new Informer(namespaces, { upsert: () => {}, remove: () => {} }, (err) => this.log(3, `namespace informer: ${err.message}`))
      this.namespaceInformer.start()
    }
    return this.namespaceInformer
  }

  /**
   * The namespace registry's DELETE: the first one marks the namespace (deletionTimestamp,
   * phase Terminating, the propagation policy's finalizers) and answers it; the namespace
   * controller then empties it. Until spec.finalizers is empty a DELETE answers the namespace;
   * then the generic deletion runs.
   */
  private async deleteNamespace(current: KubeObject, options: DeleteOptions, proceed: () => Promise<DeleteResult>): Promise<DeleteResult> {
    const name = current.metadata.name!
    const namespaces = this.lookup('', 'v1', 'namespaces')!
    if (!current.metadata.deletionTimestamp) {
      const marked = await namespaces.rewrite(
        undefined,
        name,
        (obj) => {
          if (options.preconditions?.uid && obj.metadata.uid !== options.preconditions.uid) throw errors.conflict({ group: '', resource: 'namespaces' }, name)
          obj.metadata.deletionTimestamp ??= nowTimestamp()
          obj.status = { ...(isPlainObject(obj.status) ? obj.status : {}), phase: 'Terminating' }
          const finalizers = this.options.garbageCollector === true ? finalizersForPropagation(namespaces.strategy, obj, options) : undefined
          if (finalizers) {
            if (finalizers.length > 0) obj.metadata.finalizers = finalizers
            else delete obj.metadata.finalizers
          }
        },
        options.dryRun,
      )
      return { object: marked, deleted: false, updated: true }
    }
    const spec = isPlainObject(current.spec) ? current.spec : {}
    if (Array.isArray(spec.finalizers) && spec.finalizers.length > 0) return { object: current, deleted: false, updated: true }
    return proceed()
  }

  /** The store of the CRDs themselves. */
  get crds(): GenericStore | undefined {
    return this.byResource.get(`${CRD_GROUP}/v1/${CRD_RESOURCE}`)
  }

  /**
   * A store for the custom resources of one strategy (namespaced creates need their namespace;
   * the CRD's handler refuses creates while the CRD is terminating).
   */
  private customStore(strategy: Strategy, crd?: KubeObject): GenericStore {
    const terminating = crd !== undefined && isConditionTrue(crd, 'Terminating')
    return new GenericStore(this.store, strategy, {
      ...(terminating ? { admitCreate: () => { throw errors.crdTerminating(strategy.group, strategy.resource, 'create') } } : {}),
      checkNamespace: (namespace: string, name: string) => this.checkNamespace(strategy, namespace, name),
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
  private readonly serviceLookup: ServiceLookup = {
    getService: async (namespace, name) => {
      const services = this.lookup('', 'v1', 'services')
      if (!services) return undefined
      try {
        return await services.get(namespace, name)
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) return undefined
        throw err
      }
    },
  }

  /** The CRD status controllers' pass over a CRD being written, against the other CRDs. */
  private async reconcileCRDStatus(crd: KubeObject): Promise<void> {
    const { items } = await this.crds!.list()
    reconcileStatus(crd, items)
  }

  /**
   * The CRD registry's DELETE: the first one marks the CRD (deletionTimestamp, the
   * customresourcecleanup finalizer, Terminating True) and answers it; the CRD finalizer then
   * deletes its custom resources and the CRD. Later ones are the generic deletion.
   */
  private async deleteCRD(current: KubeObject, options: DeleteOptions, proceed: () => Promise<DeleteResult>): Promise<DeleteResult> {
    if (current.metadata.deletionTimestamp) return proceed()
    const marked = await this.crds!.rewrite(
      undefined,
      current.metadata.name!,
      (obj) => {
        if (options.preconditions?.uid && obj.metadata.uid !== options.preconditions.uid) throw errors.conflict({ group: CRD_GROUP, resource: CRD_RESOURCE }, obj.metadata.name!)
        obj.metadata.deletionTimestamp ??= nowTimestamp()
        const finalizers = Array.isArray(obj.metadata.finalizers) ? obj.metadata.finalizers : []
        if (!finalizers.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) obj.metadata.finalizers = [...finalizers, CUSTOM_RESOURCE_CLEANUP_FINALIZER]
        setCondition(obj, {
          type: 'Terminating',
          status: 'True',
          reason: 'InstanceDeletionPending',
          message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
        })
      },
      options.dryRun,
    )
    return { object: marked, deleted: false, updated: true }
  }

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
