/**
 * Quota's arithmetic on resource lists (the reference's k8s.io/apiserver/pkg/quota/v1
 * resources.go): add, subtract without going below zero, mask to a set of names, compare
 * against the hard limits, and print them as its refusals do (`pods=1,requests.cpu=500m`,
 * names sorted). A list is a Map from resource name to quantity.
 */
import { type Quantity, compareQuantity, parseQuantity, quantityString } from '../../api/validation/quantity.js'
import { type ResourceList, addQuantity, resourceList } from '../limitranger/resource-list.js'

export type { ResourceList }
export { resourceList }

/** NewQuantity(n, DecimalSI). */
export function count(n: number): Quantity {
  return parseQuantity(String(n))!
}

/** quota.Add: the sum of both lists (a name in one only keeps its value). */
export function add(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a)
  for (const [name, q] of b) {
    const current = out.get(name)
    out.set(name, current ? addQuantity(current, q) : q)
  }
  return out
}

const negate = (q: Quantity): Quantity => ({ ...q, negative: q.digits !== 0n && !q.negative })

/** quota.SubtractWithNonNegativeResult: a − b, each value at least zero. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map()
  for (const [name, q] of a) {
    const other = b.get(name)
    const diff = other ? addQuantity(q, negate(other)) : q
    out.set(name, diff.negative ? { digits: 0n, exp10: 0, negative: false, format: q.format } : diff)
  }
  return out
}

/** quota.Mask: only the named entries. */
export function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map()
  for (const name of names) {
    const q = list.get(name)
    if (q) out.set(name, q)
  }
  return out
}

/** quota.RemoveZeros. */
export function removeZeros(list: ResourceList): ResourceList {
  return new Map([...list].filter(([, q]) => q.digits !== 0n))
}

/** quota.IsNegative: the names whose value is below zero. */
export function negativeNames(list: ResourceList): string[] {
  return [...list].filter(([, q]) => q.negative && q.digits !== 0n).map(([name]) => name)
}

/**
 * quota.LessThanOrEqual: whether every entry of `a` is within `b` (a name `b` lacks is
 * within), and the names that are not.
 */
export function lessThanOrEqual(a: ResourceList, b: ResourceList): { allowed: boolean; exceeded: string[] } {
  const exceeded: string[] = []
  for (const [name, q] of a) {
    const limit = b.get(name)
    if (limit && compareQuantity(q, limit) > 0) exceeded.push(name)
  }
  return { allowed: exceeded.length === 0, exceeded }
}

/** quota.Equals. */
export function equals(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false
  for (const [name, q] of a) {
    const other = b.get(name)
    if (!other || compareQuantity(q, other) !== 0) return false
  }
  return true
}

/** prettyPrint: `name=value` sorted by name, comma-separated. */
export function prettyPrint(list: ResourceList): string {
  return [...list.keys()]
    .sort()
    .map((name) => `${name}=${quantityString(list.get(name)!)}`)
    .join(',')
}

/** The list as a decoded ResourceList field (each value its canonical text). */
export function toJson(list: ResourceList): Record<string, string> {
  return Object.fromEntries([...list.keys()].sort().map((name) => [name, quantityString(list.get(name)!)]))
}
