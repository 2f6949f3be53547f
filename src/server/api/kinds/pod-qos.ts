/**
 * A pod's quality of service class, as the reference's `pkg/apis/core/helper/qos` GetPodQOS:
 * BestEffort without any cpu or memory request or limit, Guaranteed when every container
 * limits both and the requests equal the limits, Burstable otherwise.
 */
import { compareQuantity, parseQuantity, type Quantity } from '../validation/quantity.js'
import { type Obj, arr, obj } from './values.js'

const COMPUTE = ['cpu', 'memory']

function add(total: Map<string, Quantity>, name: string, q: Quantity): void {
  const prev = total.get(name)
  if (!prev) {
    total.set(name, q)
    return
  }
  const exp = Math.min(prev.exp10, q.exp10)
  const value = (x: Quantity) => (x.negative ? -1n : 1n) * x.digits * 10n ** BigInt(x.exp10 - exp)
  const sum = value(prev) + value(q)
  total.set(name, { digits: sum < 0n ? -sum : sum, exp10: exp, negative: sum < 0n, format: prev.format })
}

export function podQOSClass(spec: Obj): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  const requests = new Map<string, Quantity>()
  const limits = new Map<string, Quantity>()
  let guaranteed = true
  for (const c of [...arr(spec.containers), ...arr(spec.initContainers)].map(obj)) {
    const resources = obj(c.resources)
    for (const [name, v] of Object.entries(obj(resources.requests))) {
      const q = parseQuantity(v)
      if (COMPUTE.includes(name) && q && q.digits !== 0n) add(requests, name, q)
    }
    const seen = new Set<string>()
    for (const [name, v] of Object.entries(obj(resources.limits))) {
      const q = parseQuantity(v)
      if (COMPUTE.includes(name) && q && q.digits !== 0n) {
        seen.add(name)
        add(limits, name, q)
      }
    }
    if (!COMPUTE.every((n) => seen.has(n))) guaranteed = false
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort'
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name)
      if (!lim || compareQuantity(lim, req) !== 0) {
        guaranteed = false
        break
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable'
}
