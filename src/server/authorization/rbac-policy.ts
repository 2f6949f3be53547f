/**
 * The RBAC objects the authorizer reads, kept current by informers over the registry (so the
 * store is read once, then watched). The objects themselves and their in-memory form are the
 * core's (src/core/rbac/policy.ts), which `auth can-i` fills from files instead.
 */
import type { Registry } from '../api/registry/registry.js'
import { Informer } from '../api/registry/informer.js'
import type { KubeObject } from '../api/registry/object.js'
import { type Binding, PolicyObjects, type PolicySource, RBAC_GROUP, type Role } from '../../core/rbac/policy.js'

export { RBAC_GROUP, toBinding, toRole, type Binding, type PolicySource, type Role } from '../../core/rbac/policy.js'

export class PolicyCache extends PolicyObjects {
  /**
   * What is read until the informers have synced (the bootstrap policy), so that probes and
   * discovery answer as `system:public-info-viewer` allows while the store is still opening.
   */
  private fallback: PolicySource | undefined
  private informers: Informer[] = []
  /** The informers by resource (`roles`, `clusterroles`, ...), for stored(). */
  private readonly informerOf = new Map<string, Informer>()
  private readonly listeners: Array<() => void> = []
  private resolveSynced!: () => void
  /** Resolves once start() has every informer's initial state. */
  readonly synced = new Promise<void>((resolve) => (this.resolveSynced = resolve))

  /** Callers of whenStored() waiting for objects the informers have not delivered yet. */
  private storedWaiters: Array<{ missing: () => boolean; resolve: () => void }> = []

  /** A cache that answers from `objects` until it has synced with the store. */
  static withFallback(objects: readonly KubeObject[]): PolicyCache {
    const fallback = new PolicyObjects()
    for (const o of objects) fallback.put(o)
    const cache = new PolicyCache()
    cache.fallback = fallback
    return cache
  }

  override clusterRoleBindings(): Iterable<Binding> {
    return this.fallback ? this.fallback.clusterRoleBindings() : super.clusterRoleBindings()
  }

  override roleBindings(namespace: string): Iterable<Binding> {
    return this.fallback ? this.fallback.roleBindings(namespace) : super.roleBindings(namespace)
  }

  override clusterRole(name: string): Role | undefined {
    return this.fallback ? this.fallback.clusterRole(name) : super.clusterRole(name)
  }

  override role(namespace: string, name: string): Role | undefined {
    return this.fallback ? this.fallback.role(namespace, name) : super.role(namespace, name)
  }

  override clusterRoles(): Iterable<Role> {
    return this.fallback ? this.fallback.clusterRoles() : super.clusterRoles()
  }

  /** Called after every change to a ClusterRole (the aggregation controller listens). */
  onClusterRoleChange(listener: () => void): void {
    this.listeners.push(listener)
  }

  protected override clusterRolesChanged(): void {
    for (const l of this.listeners) l()
  }

  /**
   * Starts watching the four kinds through the registry; resolves once each has delivered its
   * initial state, so that no request is decided on a partial policy.
   */
  async start(registry: Registry, onError: (err: Error) => void = () => {}): Promise<void> {
    const kinds: Array<[string, (o: KubeObject) => void, (o: KubeObject) => void]> = [
      ['roles', (o) => this.putRole(o), (o) => this.deleteRole(o)],
      ['clusterroles', (o) => this.putClusterRole(o), (o) => this.deleteClusterRole(o)],
      ['rolebindings', (o) => this.putRoleBinding(o), (o) => this.deleteRoleBinding(o)],
      ['clusterrolebindings', (o) => this.putClusterRoleBinding(o), (o) => this.deleteClusterRoleBinding(o)],
    ]
    this.informers = kinds.flatMap(([resource, put, remove]) => {
      const store = registry.lookup(RBAC_GROUP, 'v1', resource)
      if (!store) return []
      const informer = new Informer(store, { upsert: put, remove }, onError)
      this.informerOf.set(resource, informer)
      return [informer]
    })
    for (const informer of this.informers) informer.start()
    await Promise.all(this.informers.map((i) => i.synced))
    this.fallback = undefined
    this.changed()
    for (const l of this.listeners) l()
    this.resolveSynced()
  }

  /**
   * The stored object as the informer of `resource` last saw it (`namespace` '' for cluster
   * roles and bindings); undefined when it has not seen it, or before synced.
   */
  stored(resource: string, namespace: string, name: string): KubeObject | undefined {
    return this.informerOf.get(resource)?.get(name, namespace)
  }

  /**
   * Resolves once the informers have synced and hold every object named (resource, namespace
   * '' for cluster-scoped, name): what was just written is then in effect for authorization.
   */
  whenStored(objects: ReadonlyArray<{ resource: string; namespace: string; name: string }>): Promise<void> {
    const missing = () => this.fallback !== undefined || objects.some((o) => !this.stored(o.resource, o.namespace, o.name))
    if (!missing()) return Promise.resolve()
    return new Promise((resolve) => this.storedWaiters.push({ missing, resolve }))
  }

  protected override changed(): void {
    super.changed()
    if (this.storedWaiters.length === 0) return
    this.storedWaiters = this.storedWaiters.filter((w) => {
      if (w.missing()) return true
      w.resolve()
      return false
    })
  }

  stop(): void {
    for (const informer of this.informers) informer.stop()
  }
}
