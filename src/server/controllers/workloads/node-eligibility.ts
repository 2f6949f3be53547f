/**
 * Whether a pod may run on a node by its node selector, required node affinity and the node's
 * taints, as the reference's DaemonSet controller checks it (daemon_controller.go predicates:
 * the NodeName, NodeAffinity and TaintToleration plugins' filters): NoSchedule and NoExecute
 * taints must be tolerated; PreferNoSchedule ones do not matter.
 */
import type { KubeObject } from '../../api/registry/object.js'

interface Requirement {
  key: string
  operator: string
  values?: string[]
}

interface Term {
  matchExpressions?: Requirement[]
  matchFields?: Requirement[]
}

export interface Toleration {
  key?: string
  operator?: string
  value?: string
  effect?: string
  tolerationSeconds?: number
}

interface Taint {
  key: string
  value?: string
  effect: string
}

function matchesRequirement(req: Requirement, value: string | undefined): boolean {
  const values = req.values ?? []
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value)
    case 'NotIn':
      return value === undefined || !values.includes(value)
    case 'Exists':
      return value !== undefined
    case 'DoesNotExist':
      return value === undefined
    case 'Gt':
    case 'Lt': {
      if (value === undefined || values.length !== 1) return false
      const [a, b] = [Number.parseInt(value, 10), Number.parseInt(values[0]!, 10)]
      if (Number.isNaN(a) || Number.isNaN(b)) return false
      return req.operator === 'Gt' ? a > b : a < b
    }
    default:
      return false
  }
}

/** A node selector term: every expression over the labels, every field (metadata.name) over the node. */
function matchesTerm(term: Term, node: KubeObject): boolean {
  const labels = (node.metadata.labels ?? {}) as Record<string, string>
  const expressions = term.matchExpressions ?? []
  const fields = term.matchFields ?? []
  if (expressions.length === 0 && fields.length === 0) return false
  return expressions.every((r) => matchesRequirement(r, labels[r.key])) && fields.every((r) => matchesRequirement(r, r.key === 'metadata.name' ? node.metadata.name : undefined))
}

export function fitsNodeAffinity(podSpec: Record<string, unknown>, node: KubeObject): boolean {
  const labels = (node.metadata.labels ?? {}) as Record<string, string>
  const selector = (podSpec.nodeSelector ?? {}) as Record<string, string>
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false
  const required = (podSpec.affinity as { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: Term[] } } } | undefined)?.nodeAffinity
    ?.requiredDuringSchedulingIgnoredDuringExecution
  if (!required) return true
  return (required.nodeSelectorTerms ?? []).some((term) => matchesTerm(term, node))
}

/** ToleratesTaint (core/v1 helper). */
export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false
  if ((toleration.operator ?? 'Equal') === 'Exists') return !toleration.key || toleration.key === taint.key
  return toleration.key === taint.key && (toleration.value ?? '') === (taint.value ?? '')
}

export function toleratesNodeTaints(podSpec: Record<string, unknown>, node: KubeObject): boolean {
  const taints = ((node.spec as { taints?: Taint[] } | undefined)?.taints ?? []).filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')
  const tolerations = (podSpec.tolerations ?? []) as Toleration[]
  return taints.every((taint) => tolerations.some((t) => tolerates(t, taint)))
}

export function fitsNodeName(podSpec: Record<string, unknown>, node: KubeObject): boolean {
  const name = podSpec.nodeName as string | undefined
  return !name || name === node.metadata.name
}
