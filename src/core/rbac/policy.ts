/**
 * The RBAC objects the authorizer reads, in memory: Roles and RoleBindings by namespace,
 * ClusterRoles and ClusterRoleBindings by name. The server keeps one current through
 * informers (src/server/authorization/rbac-policy.ts, PolicyCache, built on this one);
 * `auth can-i` fills one from files.
 */
import type { PolicyRule, RoleRef, Subject } from './rules.js'

export const RBAC_GROUP = 'rbac.authorization.k8s.io'

/** An object as decoded (the server's KubeObject has this shape). */
export interface RbacObject {
  apiVersion?: string
  kind?: string
  metadata: { name?: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown }
  [key: string]: unknown
}

export interface Role {
  name: string
  namespace: string
  rules: PolicyRule[]
  labels: Record<string, string>
  /** ClusterRoles only. */
  aggregationRule?: { clusterRoleSelectors?: Array<Record<string, unknown>> }
  object: RbacObject
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
   * removed); a source without it is never memoized (authorizer.ts).
   */
  readonly generation?: number
}

const array = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : [])

export function toRole(obj: RbacObject): Role {
  return {
    name: obj.metadata.name ?? '',
    namespace: obj.metadata.namespace ?? '',
    rules: array<PolicyRule>(obj.rules).map((r) => ({ ...r, verbs: array<string>(r.verbs) })),
    labels: obj.metadata.labels ?? {},
    ...(obj.aggregationRule ? { aggregationRule: obj.aggregationRule as Role['aggregationRule'] } : {}),
    object: obj,
  }
}

export function toBinding(obj: RbacObject): Binding {
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
  namespaces(): Iterable<string> {
    return this.map.keys()
  }
}

/** The four kinds held in memory, put and deleted one object at a time. */
export class PolicyObjects implements PolicySource {
  private readonly roles = new ByNamespace<Role>()
  private readonly bindings = new ByNamespace<Binding>()
  private readonly clusterRoleMap = new Map<string, Role>()
  private readonly clusterBindingMap = new Map<string, Binding>()
  private changes = 0

  /** Counts every change, so that decisions made on the policy can be kept until the next one. */
  get generation(): number {
    return this.changes
  }

  clusterRoleBindings(): Iterable<Binding> {
    return this.clusterBindingMap.values()
  }
  roleBindings(namespace: string): Iterable<Binding> {
    return this.bindings.in(namespace)
  }
  clusterRole(name: string): Role | undefined {
    return this.clusterRoleMap.get(name)
  }
  role(namespace: string, name: string): Role | undefined {
    return this.roles.get(namespace, name)
  }
  clusterRoles(): Iterable<Role> {
    return this.clusterRoleMap.values()
  }
  /** The namespaces that hold a RoleBinding (who-can over every namespace). */
  roleBindingNamespaces(): Iterable<string> {
    return this.bindings.namespaces()
  }

  /** Adds or replaces an object of any of the four kinds; other kinds are ignored. */
  put(obj: RbacObject): void {
    if (obj.kind === 'Role') this.putRole(obj)
    else if (obj.kind === 'ClusterRole') this.putClusterRole(obj)
    else if (obj.kind === 'RoleBinding') this.putRoleBinding(obj)
    else if (obj.kind === 'ClusterRoleBinding') this.putClusterRoleBinding(obj)
  }

  putRole(obj: RbacObject): void {
    this.changed()
    const role = toRole(obj)
    this.roles.set(role.namespace, role.name, role)
  }
  deleteRole(obj: RbacObject): void {
    this.changed()
    this.roles.delete(obj.metadata.namespace ?? '', obj.metadata.name ?? '')
  }
  putClusterRole(obj: RbacObject): void {
    this.changed()
    this.clusterRoleMap.set(obj.metadata.name ?? '', toRole(obj))
    this.clusterRolesChanged()
  }
  deleteClusterRole(obj: RbacObject): void {
    this.changed()
    this.clusterRoleMap.delete(obj.metadata.name ?? '')
    this.clusterRolesChanged()
  }
  putRoleBinding(obj: RbacObject): void {
    this.changed()
    const binding = toBinding(obj)
    this.bindings.set(binding.namespace, binding.name, binding)
  }
  deleteRoleBinding(obj: RbacObject): void {
    this.changed()
    this.bindings.delete(obj.metadata.namespace ?? '', obj.metadata.name ?? '')
  }
  putClusterRoleBinding(obj: RbacObject): void {
    this.changed()
    this.clusterBindingMap.set(obj.metadata.name ?? '', toBinding(obj))
  }
  deleteClusterRoleBinding(obj: RbacObject): void {
    this.changed()
    this.clusterBindingMap.delete(obj.metadata.name ?? '')
  }

  /** Called before every change. */
  protected changed(): void {
    this.changes++
  }

  /** Called after every change to a ClusterRole. */
  protected clusterRolesChanged(): void {}
}
