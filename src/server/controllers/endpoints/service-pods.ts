/**
 * What the endpoints and EndpointSlice controllers share of a Service and its pods, as the
 * reference's helpers: the pods a selector Service selects, FindPort (a targetPort number, or
 * a named port looked up in the pod's containers with the service port's protocol),
 * ShouldPodBeInEndpoints, ShouldSetHostname, and the pod's address of a family.
 */
import { matchesLabelSelector } from '../../http/selectors.js'
import type { KubeObject } from '../../api/registry/object.js'
import { isDeleting, isTerminal } from '../kit/pod-state.js'

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : [])

export interface ServicePort {
  name?: string
  port: number
  protocol?: string
  appProtocol?: string
  targetPort?: number | string
}

/** The Service's selector, or undefined for a Service without one (its endpoints are someone else's). */
export function selectorOf(service: KubeObject): Record<string, string> | undefined {
  const selector = obj(service.spec).selector
  if (typeof selector !== 'object' || selector === null || Object.keys(selector).length === 0) return undefined
  return selector as Record<string, string>
}

export const servicePorts = (service: KubeObject): ServicePort[] => arr(obj(service.spec).ports) as unknown as ServicePort[]
export const isHeadless = (service: KubeObject): boolean => obj(service.spec).clusterIP === 'None'
export const publishNotReady = (service: KubeObject): boolean => obj(service.spec).publishNotReadyAddresses === true
export const isExternalName = (service: KubeObject): boolean => obj(service.spec).type === 'ExternalName'

export function selects(service: KubeObject, pod: KubeObject): boolean {
  const selector = selectorOf(service)
  return selector !== undefined && pod.metadata.namespace === service.metadata.namespace && matchesLabelSelector({ matchLabels: selector }, pod.metadata.labels)
}

/** podutil.FindPort: the container port a service port reaches on this pod, or undefined. */
export function findPort(pod: KubeObject, port: ServicePort): number | undefined {
  const target = port.targetPort ?? port.port
  if (typeof target === 'number') return target
  if (/^\d+$/.test(target)) return Number(target)
  const protocol = port.protocol ?? 'TCP'
  for (const container of arr(obj(pod.spec).containers)) {
    for (const p of arr(container.ports)) if (p.name === target && (p.protocol ?? 'TCP') === protocol) return p.containerPort as number
  }
  return undefined
}

/** ShouldPodBeInEndpoints: not terminal, with an IP, and not being deleted unless terminating ones are wanted. */
export function shouldPodBeInEndpoints(pod: KubeObject, includeTerminating: boolean): boolean {
  if (isTerminal(pod)) return false
  if (podAddresses(pod).length === 0) return false
  return includeTerminating || !isDeleting(pod)
}

/** ShouldSetHostname: the pod names a hostname and this Service as its subdomain. */
export function shouldSetHostname(pod: KubeObject, service: KubeObject): boolean {
  const spec = obj(pod.spec)
  return typeof spec.hostname === 'string' && spec.hostname !== '' && spec.subdomain === service.metadata.name && pod.metadata.namespace === service.metadata.namespace
}

function podAddresses(pod: KubeObject): string[] {
  const status = obj(pod.status)
  const ips = arr(status.podIPs).map((p) => String(p.ip ?? '')).filter((ip) => ip !== '')
  if (ips.length > 0) return ips
  return typeof status.podIP === 'string' && status.podIP !== '' ? [status.podIP] : []
}

/** The pod's address of the family (IPv4 or IPv6), or undefined. */
export function podAddress(pod: KubeObject, family: 'IPv4' | 'IPv6'): string | undefined {
  return podAddresses(pod).find((ip) => (family === 'IPv6') === ip.includes(':'))
}

/** The Service's address families (spec.ipFamilies; IPv4 when unset). */
export function addressFamilies(service: KubeObject): Array<'IPv4' | 'IPv6'> {
  const families = (obj(service.spec).ipFamilies ?? []) as string[]
  const known = families.filter((f): f is 'IPv4' | 'IPv6' => f === 'IPv4' || f === 'IPv6')
  return known.length > 0 ? known : ['IPv4']
}
