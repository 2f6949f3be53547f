/**
 * Where endpoints go among a Service's EndpointSlices, as the reference's reconcilers place
 * them (k8s.io/endpointslice reconciler.go, and the mirroring one): endpoints with the same
 * ports share slices of at most `max`; existing slices of a port set keep the endpoints they
 * hold that are still wanted (updated), new endpoints fill the slices with room, then new
 * slices; the slices left without endpoints are not planned (their writers delete them).
 */
import type { KubeObject } from '../../api/registry/object.js'

export interface EndpointPort {
  name: string
  port: number
  protocol: string
  appProtocol?: string
}
export interface Endpoint {
  addresses: string[]
  conditions: { ready: boolean; serving?: boolean; terminating?: boolean }
  hostname?: string
  targetRef?: { kind: string; namespace?: string; name: string; uid?: string }
  nodeName?: string
  zone?: string
}

export const endpointsOf = (slice: KubeObject): Endpoint[] => (Array.isArray(slice.endpoints) ? (slice.endpoints as Endpoint[]) : [])
export const portsOf = (slice: KubeObject): EndpointPort[] => (Array.isArray(slice.ports) ? (slice.ports as EndpointPort[]) : [])
const endpointKey = (e: Endpoint) => `${e.targetRef?.uid ?? ''}/${e.addresses[0]}`

export interface SlicePlan {
  family: 'IPv4' | 'IPv6'
  ports: EndpointPort[]
  endpoints: Endpoint[]
  /** The existing slice written, or none for a new one. */
  slice?: KubeObject
}

/**
 * The reconciler's placement: existing slices of a port set keep the endpoints they hold that
 * are still wanted (updated), new endpoints fill the slices with room, then new slices; the
 * slices left without endpoints are not planned (they are deleted).
 */
export function planSlices(family: 'IPv4' | 'IPv6', groups: Map<string, { ports: EndpointPort[]; endpoints: Endpoint[] }>, existing: KubeObject[], max: number): SlicePlan[] {
  const plans: SlicePlan[] = []
  for (const [key, group] of groups) {
    const wanted = new Map(group.endpoints.map((e) => [endpointKey(e), e]))
    const placed = new Set<string>()
    const slicePlans: SlicePlan[] = []
    for (const slice of existing.filter((s) => JSON.stringify(portsOf(s)) === key)) {
      const endpoints: Endpoint[] = []
      for (const e of endpointsOf(slice)) {
        const k = endpointKey(e)
        const now = wanted.get(k)
        if (now && !placed.has(k) && endpoints.length < max) {
          endpoints.push(now)
          placed.add(k)
        }
      }
      slicePlans.push({ family, ports: group.ports, endpoints, slice })
    }
    const fresh = group.endpoints.filter((e) => !placed.has(endpointKey(e)))
    for (const plan of slicePlans) while (plan.endpoints.length < max && fresh.length > 0) plan.endpoints.push(fresh.shift()!)
    while (fresh.length > 0) slicePlans.push({ family, ports: group.ports, endpoints: fresh.splice(0, max) })
    plans.push(...slicePlans.filter((p) => p.endpoints.length > 0))
  }
  return plans
}

