/**
 * Start-up reconciliation of the default RBAC objects (the reference's
 * pkg/registry/rbac/reconciliation, in its union mode): a default role that exists gets back
 * the rules and aggregation selectors it lost, a default binding the subjects it lost, and both
 * their labels and annotations, unless an administrator set
 * `rbac.authorization.kubernetes.io/autoupdate: "false"` on it. Nothing is ever removed.
 */
import { deepEqual } from '../../core/patch/index.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { covers } from '../authorization/rbac-escalation.js'
import { RBAC_GROUP } from '../authorization/rbac-policy.js'
import type { PolicyRule, Subject } from '../authorization/rbac-rules.js'
import { ApiError } from '../api/status-errors.js'
import type { BootstrapObject } from './objects.js'

export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate'

export const RESOURCES: Record<string, string> = { ClusterRole: 'clusterroles', Role: 'roles', ClusterRoleBinding: 'clusterrolebindings', RoleBinding: 'rolebindings' }

type Selectors = { clusterRoleSelectors?: unknown[] }

/** Every key of `wanted` is in `have` with the same value. */
function includesAll(have: Record<string, string> | undefined, wanted: Record<string, string> | undefined): boolean {
  for (const [key, value] of Object.entries(wanted ?? {})) if (have?.[key] !== value) return false
  return true
}

/**
 * The usual case on a restart, answered without taking the rules apart: the object still
 * has the default's labels, annotations and exactly its rules, selectors or subjects.
 */
function untouched(existing: KubeObject, expected: KubeObject): boolean {
  if (!includesAll(existing.metadata.labels, expected.metadata.labels) || !includesAll(existing.metadata.annotations, expected.metadata.annotations)) return false
  if (expected.kind === 'ClusterRole' || expected.kind === 'Role') {
    const wanted = (expected.aggregationRule as Selectors | undefined)?.clusterRoleSelectors
    if (wanted && !deepEqual((existing.aggregationRule as Selectors | undefined)?.clusterRoleSelectors ?? [], wanted)) return false
    return deepEqual(existing.rules ?? [], expected.rules ?? [])
  }
  const have = (existing.subjects as Subject[] | undefined) ?? []
  return ((expected.subjects as Subject[] | undefined) ?? []).every((s) => have.some((h) => h.kind === s.kind && h.name === s.name && (h.namespace ?? '') === (s.namespace ?? '')))
}

/** What the existing object becomes; the same object when nothing is missing. */
export function reconciled(existing: KubeObject, expected: KubeObject): KubeObject {
  if (existing.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return existing
  if (untouched(existing, expected)) return existing
  const out = structuredClone(existing)
  out.metadata.annotations = { ...expected.metadata.annotations, ...out.metadata.annotations }
  out.metadata.labels = { ...expected.metadata.labels, ...out.metadata.labels }
  if (expected.kind === 'ClusterRole' || expected.kind === 'Role') {
    const have = (out.rules as PolicyRule[] | undefined) ?? []
    const { missing } = covers(have, (expected.rules as PolicyRule[] | undefined) ?? [])
    if (missing.length) out.rules = [...have, ...missing]
    const wanted = (expected.aggregationRule as Selectors | undefined)?.clusterRoleSelectors
    if (wanted) {
      const current = (out.aggregationRule as Selectors | undefined)?.clusterRoleSelectors ?? []
      const added = wanted.filter((w) => !current.some((c) => deepEqual(c, w)))
      if (added.length) out.aggregationRule = { clusterRoleSelectors: [...current, ...added] }
    }
  } else {
    const have = (out.subjects as Subject[] | undefined) ?? []
    const missing = ((expected.subjects as Subject[] | undefined) ?? []).filter((s) => !have.some((h) => h.kind === s.kind && h.name === s.name && (h.namespace ?? '') === (s.namespace ?? '')))
    if (missing.length) out.subjects = [...have, ...missing]
  }
  // Nothing missing: the same object, so that the caller neither writes nor counts it.
  return deepEqual(out, existing) ? existing : out
}

/** The stored object for a default as an informer's cache has it, or undefined. */
export type CachedRbac = (expected: KubeObject) => KubeObject | undefined

/**
 * Reconciles each default object that exists; returns how many were updated. All at once:
 * each is its own read and (rarely) write of a different object, which on etcd one after the
 * other cost a round trip each on every start. With `cached` (the RBAC informers' view, just
 * listed from the store), a default whose cached copy needs nothing is neither read nor decoded
 * again: the usual restart. One the cache does not have, or that it shows changed, is read and
 * reconciled from the store as before.
 */
export async function reconcileRbac(registry: Registry, objects: readonly BootstrapObject[], cached?: CachedRbac): Promise<number> {
  const outcomes = await Promise.all(
    objects.map(async ({ object }) => {
      const expected = object as KubeObject
      const seen = cached?.(expected)
      if (seen && reconciled(seen, expected) === seen) return 0
      const store = registry.lookup(RBAC_GROUP, 'v1', RESOURCES[expected.kind ?? ''] ?? '')
      if (!store) return 0
      const namespace = expected.metadata.namespace
      let changed = false
      try {
        await store.rewrite(namespace, expected.metadata.name ?? '', (current) => {
          const next = reconciled(current, expected)
          if (next === current) return
          for (const key of Object.keys(current)) delete current[key]
          Object.assign(current, next)
          changed = true
        })
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) return 0
        throw err
      }
      return changed ? 1 : 0
    }),
  )
  return outcomes.reduce((sum: number, n) => sum + n, 0)
}
