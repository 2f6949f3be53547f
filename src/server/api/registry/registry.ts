/**
 * The generic stores of every served kind over one Store, wired together: namespaced creates
 * need their namespace to exist, and deleting a namespace deletes the objects in it.
 */
import type { Store } from '../../store/types.js'
import { allocateClusterIP } from '../kinds/cluster-ip.js'
import { allocateNodePorts } from '../kinds/node-ports.js'
import { CRD_GROUP, CRD_RESOURCE, customResourceStrategies } from '../kinds/crd.js'
import { KINDS } from '../kinds/index.js'
import { defaultKeyPrefix } from '../../store/overrides.js'
import { errors } from '../status-errors.js'
import { GenericStore } from './generic-store.js'
import type { RegistryOptions } from './options.js'
import { shareStorageCodec } from './storage-codec.js'
import { WatchCachedStore, disabledByWatchCacheSizes } from './watch-cache.js'
import type { KubeObject } from './object.js'
import type { Strategy } from './strategy.js'

export class Registry {
  private readonly byResource = new Map<string, GenericStore>()
  /** The built-in kinds' watch caches, when on. */
  readonly watchCache: WatchCachedStore | undefined

  constructor(
    readonly store: Store,
    kinds: readonly Strategy[] = KINDS,
    private readonly log: (level: number, msg: string) => void = () => {},
    readonly options: RegistryOptions = {},
  ) {
    this.watchCache = watchCacheFor(store, kinds, options)
    this.watchCache?.startAll()
    const cachedStore = this.watchCache ?? store
    if (this.watchCache) shareStorageCodec(store, this.watchCache)
    const services = async () => (await this.byResource.get('/v1/services')!.list()).items
    for (const strategy of kinds) {
      const isServices = strategy.group === '' && strategy.resource === 'services'
      const hooks = {
        ...(isServices
          ? {
              beforeCreate: async (obj: KubeObject) => {
                await allocateClusterIP(services, obj, options.serviceClusterIPRange)
                await allocateNodePorts(services, obj, options.serviceNodePortRange)
              },
              beforeUpdate: (obj: KubeObject, old: KubeObject) => allocateNodePorts(services, obj, options.serviceNodePortRange, old),
            }
          : {}),
        checkNamespace: async (namespace: string) => {
          if (!(await store.get(`/namespaces/${namespace}`))) throw errors.notFound({ group: '', resource: 'namespaces' }, namespace)
        },
        ...(strategy.resource === 'events' && (strategy.group === '' || strategy.group === 'events.k8s.io') && options.eventTtlSeconds
          ? { ttlSeconds: () => options.eventTtlSeconds }
          : {}),
        afterDelete:
          strategy.resource === 'namespaces' && strategy.group === ''
            ? (obj: { metadata: { name?: string } }) => this.deleteContents(obj.metadata.name!)
            : strategy.resource === CRD_RESOURCE && strategy.group === CRD_GROUP
              ? (obj: KubeObject) => this.deleteCustomResources(obj)
              : undefined,
      }
      this.byResource.set(`${strategy.group}/${strategy.version}/${strategy.resource}`, new GenericStore(cachedStore, strategy, hooks))
    }
  }

  /** The store of the CRDs themselves. */
  private get crds(): GenericStore | undefined {
    return this.byResource.get(`${CRD_GROUP}/v1/${CRD_RESOURCE}`)
  }

  /** A store for the custom resources of one strategy (namespaced creates need their namespace). */
  private customStore(strategy: Strategy): GenericStore {
    return new GenericStore(this.store, strategy, {
      checkNamespace: async (namespace: string) => {
        if (!(await this.store.get(`/namespaces/${namespace}`))) throw errors.notFound({ group: '', resource: 'namespaces' }, namespace)
      },
    })
  }

  /** The stores of every served version of every established CRD, read from the store now. */
  async customStores(): Promise<GenericStore[]> {
    const crds = this.crds
    if (!crds) return []
    const { items } = await crds.list()
    const builtin = new Set(this.byResource.keys())
    const builtinPrefixes = new Set(this.all().map((g) => g.prefix()))
    return items
      .flatMap((crd) => customResourceStrategies(crd))
      .filter((s) => !builtin.has(`${s.group}/${s.version}/${s.resource}`) && !builtinPrefixes.has(defaultKeyPrefix(s.group, s.resource)))
      .map((s) => this.customStore(s))
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

  /** Deleting a CRD deletes every object of it (each with its own DELETED event). */
  private async deleteCustomResources(crd: KubeObject): Promise<void> {
    const spec = crd.spec as { group?: unknown; names?: { plural?: unknown } } | undefined
    const group = typeof spec?.group === 'string' ? spec.group : ''
    const plural = typeof spec?.names?.plural === 'string' ? spec.names.plural : ''
    if (!group || !plural) return
    const prefix = defaultKeyPrefix(group, plural)
    // A group ending in .k8s.io shares the built-in key layout: never touch a built-in kind's keys.
    if (this.all().some((g) => g.prefix() === prefix)) return
    const { items } = await this.store.list(prefix)
    for (const kv of items) {
      try {
        await this.store.delete(kv.key)
      } catch (err) {
        this.log(2, `deleting ${kv.key} of ${crd.metadata.name ?? ''}: ${(err as Error).message}`)
      }
    }
  }

  /** The store of `resource` in group/version, if served. */
  lookup(group: string, version: string, resource: string): GenericStore | undefined {
    return this.byResource.get(`${group}/${version}/${resource}`)
  }

  all(): GenericStore[] {
    return [...this.byResource.values()]
  }

  /** Deletes every namespaced object in the namespace (each with its own DELETED event). */
  private async deleteContents(namespace: string): Promise<void> {
    for (const generic of [...this.all(), ...(await this.customStores().catch(() => []))]) {
      if (!generic.strategy.namespaced) continue
      const { items } = await this.store.list(generic.prefix(namespace))
      for (const kv of items) {
        try {
          await this.store.delete(kv.key)
        } catch (err) {
          this.log(2, `deleting ${kv.key} of namespace ${namespace}: ${(err as Error).message}`)
        }
      }
    }
  }
}

/** One cache per built-in resource's keys, unless --watch-cache=false or its size is 0. */
function watchCacheFor(store: Store, kinds: readonly Strategy[], options: RegistryOptions): WatchCachedStore | undefined {
  if (!options.watchCache) return undefined
  const disabled = disabledByWatchCacheSizes(options.watchCacheSizes ?? [])
  const prefixes = kinds.filter((k) => !disabled.has(`${k.group}/${k.resource}`)).map((k) => defaultKeyPrefix(k.group, k.resource))
  return prefixes.length > 0 ? new WatchCachedStore(store, prefixes, options.watchCacheWindow) : undefined
}
