/**
 * Node selector terms (k8s.io/component-helpers/scheduling/corev1/nodeaffinity): a term's
 * matchExpressions (In, NotIn, Exists, DoesNotExist, Gt, Lt on labels) and matchFields
 * (metadata.name) all hold; a term with neither matches nothing; terms are ORed.
 */
import type { Node, NodeSelectorRequirement, NodeSelectorTerm } from '../objects.js'

function requirementHolds(req: NodeSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.key)
  const value = labels[req.key]
  const values = req.values ?? []
  switch (req.operator) {
    case 'In':
      return has && values.includes(value!)
    case 'NotIn':
      return !has || !values.includes(value!)
    case 'Exists':
      return has
    case 'DoesNotExist':
      return !has
    case 'Gt':
    case 'Lt': {
      if (!has || values.length !== 1) return false
      const actual = Number.parseInt(value!, 10)
      const bound = Number.parseInt(values[0]!, 10)
      if (!/^-?\d+$/.test(value!) || Number.isNaN(bound)) return false
      return req.operator === 'Gt' ? actual > bound : actual < bound
    }
    default:
      return false
  }
}

export function termMatches(term: NodeSelectorTerm, node: Node): boolean {
  const expressions = term.matchExpressions ?? []
  const fields = term.matchFields ?? []
  if (expressions.length === 0 && fields.length === 0) return false
  const labels = node.metadata.labels ?? {}
  if (!expressions.every((r) => requirementHolds(r, labels))) return false
  const fieldValues = { 'metadata.name': node.metadata.name ?? '' }
  return fields.every((r) => r.key === 'metadata.name' && (r.operator === 'In' || r.operator === 'NotIn') && requirementHolds(r, fieldValues))
}

export function anyTermMatches(terms: readonly NodeSelectorTerm[], node: Node): boolean {
  return terms.some((t) => termMatches(t, node))
}
