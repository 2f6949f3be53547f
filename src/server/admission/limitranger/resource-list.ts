/**
 * Resource lists (`{cpu: "500m", memory: "1Gi"}`) as the LimitRanger reads them: parsed into
 * quantities, summed and maxed as the reference's addResourceList and maxResourceList do (a
 * sum keeps the format of its first term, as Quantity.Add does), and the pod's total
 * requests and limits (its podRequests and podLimits: containers add up, sidecar init
 * containers add up too, a plain init container counts alone over the sidecars started
 * before it, and pod-level resources override cpu and memory).
 */
import { type Quantity, parseQuantity } from '../../api/validation/quantity.js'

export type ResourceList = Map<string, Quantity>

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : [])

/** The quantities of a decoded resource list; entries that do not parse are left out. */
export function resourceList(value: unknown): ResourceList {
  const out: ResourceList = new Map()
  if (!isObj(value)) return out
  for (const [name, text] of Object.entries(value)) {
    const q = parseQuantity(text)
    if (q) out.set(name, q)
  }
  return out
}

/** q × 10^-exp10 as a signed bigint numerator over a common exponent. */
function scaled(q: Quantity, exp10: number): bigint {
  return (q.negative ? -1n : 1n) * q.digits * 10n ** BigInt(q.exp10 - exp10)
}

/** Quantity.Add: the exact sum, in the first term's format. */
export function addQuantity(a: Quantity, b: Quantity): Quantity {
  const exp10 = Math.min(a.exp10, b.exp10)
  const sum = scaled(a, exp10) + scaled(b, exp10)
  let digits = sum < 0n ? -sum : sum
  let exp = exp10
  if (digits === 0n) return { digits: 0n, exp10: 0, negative: false, format: a.format }
  while (digits % 10n === 0n) {
    digits /= 10n
    exp++
  }
  return { digits, exp10: exp, negative: sum < 0n, format: a.format }
}

/** The value scaled by 10^scale, rounded up (Quantity.Value at 0, MilliValue at 3). */
export function scaledValue(q: Quantity, scale: number): bigint {
  const e = q.exp10 + scale
  if (e >= 0) return (q.negative ? -1n : 1n) * q.digits * 10n ** BigInt(e)
  const div = 10n ** BigInt(-e)
  // Rounded away from zero's floor: up for positives, toward zero for negatives.
  return q.negative ? -(q.digits / div) : (q.digits + div - 1n) / div
}

/** addResourceList: adds every entry of `more` into `into`. */
export function addResourceList(into: ResourceList, more: ResourceList): void {
  for (const [name, q] of more) {
    const current = into.get(name)
    into.set(name, current ? addQuantity(current, q) : q)
  }
}

/** maxResourceList: keeps the larger of each entry. */
export function maxResourceList(into: ResourceList, more: ResourceList, compare: (a: Quantity, b: Quantity) => number): void {
  for (const [name, q] of more) {
    const current = into.get(name)
    if (!current || compare(q, current) > 0) into.set(name, q)
  }
}

/** The resources pod-level `spec.resources` may set (isSupportedPodLevelResource). */
const POD_LEVEL_RESOURCES = new Set(['cpu', 'memory'])

/**
 * podRequests or podLimits (`which`) over the spec only: the containers' sum, the sidecars'
 * too, and the largest of the init containers (each with the sidecars before it), then the
 * pod-level values when PodLevelResources is on.
 */
export function podResources(spec: Obj, which: 'requests' | 'limits', podLevelResources: boolean, compare: (a: Quantity, b: Quantity) => number): ResourceList {
  const total: ResourceList = new Map()
  const of = (c: Obj) => resourceList(isObj(c.resources) ? c.resources[which] : undefined)
  for (const c of list(spec.containers)) addResourceList(total, of(c))
  const sidecars: ResourceList = new Map()
  const initMax: ResourceList = new Map()
  for (const c of list(spec.initContainers)) {
    let own = of(c)
    if (c.restartPolicy === 'Always') {
      addResourceList(total, own)
      addResourceList(sidecars, own)
      own = new Map(sidecars)
    } else {
      const withSidecars: ResourceList = new Map()
      addResourceList(withSidecars, own)
      addResourceList(withSidecars, sidecars)
      own = withSidecars
    }
    maxResourceList(initMax, own, compare)
  }
  maxResourceList(total, initMax, compare)
  if (podLevelResources && isObj(spec.resources)) {
    for (const [name, q] of resourceList(spec.resources[which])) if (POD_LEVEL_RESOURCES.has(name)) total.set(name, q)
  }
  return total
}
