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

const RESOURCES: Record<string, string> = { ClusterRole: 'clusterroles', Role: 'roles', ClusterRoleBinding: 'clusterrolebindings', RoleBinding: 'rolebindings' }

type Selectors = { clusterRoleSelectors?: unknown[] }

/** What the existing object becomes; the same object when nothing is missing. */
export function reconciled(existing: KubeObject, expected: KubeObject): KubeObject {
  if (existing.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return existing
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

/** Reconciles each default object that exists; returns how many were updated. */
export async function reconcileRbac(registry: Registry, objects: readonly BootstrapObject[]): Promise<number> {
  let updated = 0
  for (const { object } of objects) {
    const expected = object as KubeObject
    const store = registry.lookup(RBAC_GROUP, 'v1', RESOURCES[expected.kind ?? ''] ?? '')
    if (!store) continue
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
      if (err instanceof ApiError && err.code === 404) continue
      throw err
    }
    if (changed) updated++
  }
  return updated
}
