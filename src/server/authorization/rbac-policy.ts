/**
 * The RBAC objects the authorizer reads, in memory: Roles and RoleBindings by namespace,
 * ClusterRoles and ClusterRoleBindings by name. Fed by informers over the registry (so the
 * store is read once, then watched), or filled directly by tests.
 */
import type { Registry } from '../api/registry/registry.js'
import { Informer } from '../api/registry/informer.js'
import type { KubeObject } from '../api/registry/object.js'
import type { PolicyRule, RoleRef, Subject } from './rbac-rules.js'

export const RBAC_GROUP = 'rbac.authorization.k8s.io'

export interface Role {
  name: string
  namespace: string
  rules: PolicyRule[]
  labels: Record<string, string>
  /** ClusterRoles only. */
  aggregationRule?: { clusterRoleSelectors?: Array<Record<string, unknown>> }
  object: KubeObject
}

export interface Binding {
  name: string
  namespace: string
  roleRef: RoleRef
  subjects: Subject[]
}

export interface PolicySource {
  clusterRoleBindings(): Iterable<Binding>
  roleBindings(namespace: string): Iterable<Binding>
  clusterRole(name: string): Role | undefined
  role(namespace: string, name: string): Role | undefined
  clusterRoles(): Iterable<Role>
  /**
   * Changes with every change of the policy (any object of the four kinds added, replaced or
   * removed); a source without it is never memoized (rbac.ts).
   */
  readonly generation?: number
}

const array = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : [])

export function toRole(obj: KubeObject): Role {
  return {
    name: obj.metadata.name ?? '',
    namespace: obj.metadata.namespace ?? '',
    rules: array<PolicyRule>(obj.rules).map((r) => ({ ...r, verbs: array<string>(r.verbs) })),
    labels: obj.metadata.labels ?? {},
    ...(obj.aggregationRule ? { aggregationRule: obj.aggregationRule as Role['aggregationRule'] } : {}),
    object: obj,
  }
}

export function toBinding(obj: KubeObject): Binding {
  const ref = (obj.roleRef ?? {}) as RoleRef
  return {
    name: obj.metadata.name ?? '',
    namespace: obj.metadata.namespace ?? '',
    roleRef: { apiGroup: ref.apiGroup ?? RBAC_GROUP, kind: ref.kind ?? '', name: ref.name ?? '' },
    subjects: array<Subject>(obj.subjects),
  }
}

/** Objects by namespace then name. */
class ByNamespace<T> {
  private readonly map = new Map<string, Map<string, T>>()
  set(namespace: string, name: string, value: T): void {
    let inner = this.map.get(namespace)
    if (!inner) this.map.set(namespace, (inner = new Map()))
    inner.set(name, value)
  }
  delete(namespace: string, name: string): void {
    const inner = this.map.get(namespace)
    inner?.delete(name)
    if (inner?.size === 0) this.map.delete(namespace)
  }
  get(namespace: string, name: string): T | undefined {
    return this.map.get(namespace)?.get(name)
  }
  in(namespace: string): Iterable<T> {
    return this.map.get(namespace)?.values() ?? []
  }
}

export class PolicyCache implements PolicySource {
  /**
   * What is read until the informers have synced (the bootstrap policy), so that probes and
   * discovery answer as `system:public-info-viewer` allows while the store is still opening.
   */
  private fallback: PolicySource | undefined
  private readonly roles = new ByNamespace<Role>()
  private readonly bindings = new ByNamespace<Binding>()
  private readonly clusterRoleMap = new Map<string, Role>()
  private readonly clusterBindingMap = new Map<string, Binding>()
  private informers: Informer[] = []
  /** The informers by resource (`roles`, `clusterroles`, ...), for stored(). */
  private readonly informerOf = new Map<string, Informer>()
  private readonly listeners: Array<() => void> = []
  private changes = 0
  private resolveSynced!: () => void
  /** Resolves once start() has every informer's initial state. */
  readonly synced = new Promise<void>((resolve) => (this.resolveSynced = resolve))

  /** Callers of whenStored() waiting for objects the informers have not delivered yet. */
  private storedWaiters: Array<{ missing: () => boolean; resolve: () => void }> = []

  /** Counts every change, so that decisions made on the policy can be kept until the next one. */
  get generation(): number {
    return this.changes
  }

  /** A cache that answers from `objects` until it has synced with the store. */
  static withFallback(objects: readonly KubeObject[]): PolicyCache {
    const fallback = new PolicyCache()
    for (const o of objects) fallback.put(o)
    const cache = new PolicyCache()
    cache.fallback = fallback
    return cache
  }

  clusterRoleBindings(): Iterable<Binding> {
    return this.fallback ? this.fallback.clusterRoleBindings() : this.clusterBindingMap.values()
  }
  roleBindings(namespace: string): Iterable<Binding> {
    return this.fallback ? this.fallback.roleBindings(namespace) : this.bindings.in(namespace)
  }
  clusterRole(name: string): Role | undefined {
    return this.fallback ? this.fallback.clusterRole(name) : this.clusterRoleMap.get(name)
  }
  role(namespace: string, name: string): Role | undefined {
    return this.fallback ? this.fallback.role(namespace, name) : this.roles.get(namespace, name)
  }
  clusterRoles(): Iterable<Role> {
    return this.fallback ? this.fallback.clusterRoles() : this.clusterRoleMap.values()
  }

  /** Adds or replaces an object of any of the four kinds. */
  put(obj: KubeObject): void {
    if (obj.kind === 'Role') this.putRole(obj)
    else if (obj.kind === 'ClusterRole') this.putClusterRole(obj)
    else if (obj.kind === 'RoleBinding') this.putRoleBinding(obj)
    else if (obj.kind === 'ClusterRoleBinding') this.putClusterRoleBinding(obj)
  }

  /** Called after every change to a ClusterRole (the aggregation controller listens). */
  onClusterRoleChange(listener: () => void): void {
    this.listeners.push(listener)
  }

  putRole(obj: KubeObject): void {
    this.changed()
    const role = toRole(obj)
    this.roles.set(role.namespace, role.name, role)
  }
  deleteRole(obj: KubeObject): void {
    this.changed()
    this.roles.delete(obj.metadata.namespace ?? '', obj.metadata.name ?? '')
  }
  putClusterRole(obj: KubeObject): void {
    this.changed()
    this.clusterRoleMap.set(obj.metadata.name ?? '', toRole(obj))
    for (const l of this.listeners) l()
  }
  deleteClusterRole(obj: KubeObject): void {
    this.changed()
    this.clusterRoleMap.delete(obj.metadata.name ?? '')
    for (const l of this.listeners) l()
  }
  putRoleBinding(obj: KubeObject): void {
    this.changed()
    const binding = toBinding(obj)
    this.bindings.set(binding.namespace, binding.name, binding)
  }
  deleteRoleBinding(obj: KubeObject): void {
    this.changed()
    this.bindings.delete(obj.metadata.namespace ?? '', obj.metadata.name ?? '')
  }
  putClusterRoleBinding(obj: KubeObject): void {
    this.changed()
    this.clusterBindingMap.set(obj.metadata.name ?? '', toBinding(obj))
  }
  deleteClusterRoleBinding(obj: KubeObject): void {
    this.changed()
    this.clusterBindingMap.delete(obj.metadata.name ?? '')
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

  private changed(): void {
    this.changes++
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
