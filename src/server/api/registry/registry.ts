/**
 * The generic stores of every served kind over one Store, wired together: namespaced creates
 * need their namespace to exist (and not Terminating), deleting a namespace marks it
 * Terminating and the namespace controller empties and removes it, pods' grace periods end,
 * and the garbage collector (when on) sees every write.
 */
import type { Store } from '../../store/types.js'
import { allocateClusterIP } from '../kinds/cluster-ip.js'
import { allocateNodePorts } from '../kinds/node-ports.js'
import { CRD_GROUP, CRD_RESOURCE, customResourceStrategies, customResourceStrategy, storageVersion } from '../kinds/crd.js'
import { CRDFinalizer } from '../../controllers/crd-finalizer.js'
import { recordServiceIPs, releaseServiceIPs } from '../../controllers/service-ip-addresses.js'
import { CUSTOM_RESOURCE_CLEANUP_FINALIZER, isConditionTrue, reconcileStatus, setCondition } from '../../controllers/crd-conditions.js'
import { KINDS } from '../kinds/index.js'
import { defaultKeyPrefix } from '../../store/overrides.js'
import { ApiError, errors } from '../status-errors.js'
import type { ServiceLookup } from '../../controllers/crd-conversion.js'
import { admitNamespaceLifecycle } from '../../admission/namespace-lifecycle.js'
import { GarbageCollector } from '../../controllers/garbage-collector.js'
import { NamespaceController } from '../../controllers/namespace-controller.js'
import { ServiceAccountsController } from '../../controllers/service-accounts.js'
import { PodGraceReaper } from '../../controllers/pod-grace-reaper.js'
import { finalizersForPropagation, isNamespaces, isPods } from './deletion.js'
import { type DeleteOptions, type DeleteResult, GenericStore, type ObjectChange } from './generic-store.js'
import type { RegistryOptions } from './options.js'
import { shareStorageCodec } from './storage-codec.js'
import { WatchCachedStore, disabledByWatchCacheSizes } from './watch-cache.js'
import { Informer } from './informer.js'
import { type KubeObject, isPlainObject, nowTimestamp } from './object.js'
import type { Strategy } from './strategy.js'

/** How long the custom resource stores read from the CRDs are reused (see Registry.customStores). */
const CUSTOM_STORES_TTL_MS = 1000

export class Registry {
  private namespaceInformer: Informer | undefined
  private readonly byResource = new Map<string, GenericStore>()
  /** The built-in kinds' watch caches, when on. */
  readonly watchCache: WatchCachedStore | undefined
  readonly namespaceController: NamespaceController
  readonly podGraceReaper: PodGraceReaper
  /** With RegistryOptions.serviceAccountsController. */
  readonly serviceAccounts: ServiceAccountsController | undefined
  /** When --enable-garbage-collector. */
  readonly garbageCollector: GarbageCollector | undefined
  /** Deletes the custom resources of a CRD being deleted, then the CRD. */
  readonly crdFinalizer: CRDFinalizer

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
    const namespacesStore = () => this.lookup('', 'v1', 'namespaces')!
    this.namespaceController = new NamespaceController({
      namespaces: namespacesStore,
      namespacedStores: async () => [...this.all(), ...(await this.customStores())].filter((g) => g.strategy.namespaced),
      log,
    })
    this.serviceAccounts = options.serviceAccountsController ? new ServiceAccountsController(namespacesStore, () => this.lookup('', 'v1', 'serviceaccounts'), log) : undefined
    if (this.serviceAccounts && this.lookup('', 'v1', 'namespaces') && this.lookup('', 'v1', 'serviceaccounts')) {
      this.serviceAccounts.sweep().catch((err) => log(2, `service accounts: ${(err as Error).message}`))
    }
    this.podGraceReaper = new PodGraceReaper(() => this.lookup('', 'v1', 'pods')!, log)
    this.crdFinalizer = new CRDFinalizer({ crds: () => this.crds!, instances: (crd) => this.instancesOf(crd), log })
    if (this.crds) this.crdFinalizer.start()
    this.garbageCollector = options.garbageCollector ? new GarbageCollector({ stores: async () => [...this.all(), ...(await this.customStores())], log }) : undefined
    if (this.lookup('', 'v1', 'namespaces')) this.namespaceController.start()
    if (this.lookup('', 'v1', 'pods')) this.podGraceReaper.start()
    this.garbageCollector?.start()
  }

  /** Stops the controllers (the store is closing). */
  stop(): void {
    this.namespaceInformer?.stop()
    this.namespaceController.stop()
    this.podGraceReaper.stop()
    this.crdFinalizer.stop()
    this.garbageCollector?.stop()
  }

  private changed(change: ObjectChange): void {
    const { object, strategy } = change
    if (isCRDs(strategy)) {
      this.customStoresCache = undefined
      if (change.type === 'deleted') void this.reconcileGroupNames(object).catch((err: unknown) => this.log(2, `crd names: ${(err as Error).message}`))
      else this.crdFinalizer.observe(object)
    }
    if (isPods(strategy) && change.type !== 'deleted') this.podGraceReaper.observe(object)
    if (isNamespaces(strategy) && change.type !== 'deleted' && object.metadata.deletionTimestamp) this.namespaceController.enqueue(object.metadata.name!)
    if (isNamespaces(strategy) && change.type === 'created') void this.serviceAccounts?.observe(object)
    // Something in a terminating namespace went: look at the namespace again at once.
    const ns = object.metadata.namespace
    if (change.type === 'deleted' && ns && this.namespaceController.has(ns)) this.namespaceController.enqueue(ns)
    this.garbageCollector?.observe(change)
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
  private get crds(): GenericStore | undefined {
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
   * A CRD went and freed its names: the naming controller looks again at the other CRDs of its
   * group whose names are not all accepted.
   */
  private async reconcileGroupNames(deleted: KubeObject): Promise<void> {
    const group = (deleted.spec as { group?: unknown } | undefined)?.group
    const { items } = await this.crds!.list()
    for (const crd of items) {
      if ((crd.spec as { group?: unknown } | undefined)?.group !== group || isConditionTrue(crd, 'NamesAccepted')) continue
      await this.crds!.rewrite(undefined, crd.metadata.name!, (o) => reconcileStatus(o, items))
    }
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
  private instancesOf(crd: KubeObject): GenericStore | undefined {
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
