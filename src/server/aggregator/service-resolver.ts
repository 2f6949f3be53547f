/**
 * Where an APIService's service is reached, as the reference's service resolvers say
 * (k8s.io/apiserver/pkg/util/proxy ResolveCluster and ResolveEndpoint): the cluster IP and the
 * service port by default, or with `--enable-aggregator-routing` one ready endpoint address and
 * the endpoint port of the same name. Endpoint addresses come from the service's EndpointSlices
 * (label `kubernetes.io/service-name`), else from its Endpoints as the mirroring controller would
 * copy them into slices. Errors carry the reference's messages.
 */
import { storedServices } from '../api/kinds/webhook-client.js'
import type { Registry } from '../api/registry/registry.js'
import type { KubeObject } from '../api/registry/object.js'
import { ApiError } from '../api/status-errors.js'

export interface ResolvedEndpoint {
  host: string
  port: number
}

type Json = Record<string, unknown>
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' ? (v as Json) : {})
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])

/** The reference's resolution failures (their text is what the availability condition and the logs show). */
export class ResolveError extends Error {}

/** The Service, or a ResolveError `service "<name>" not found` (the lister's NotFound). */
export function getService(registry: Registry, namespace: string, name: string): Promise<KubeObject | undefined> {
  return storedServices(() => registry).getService(namespace, name)
}

/** findServicePort: the service's port numbered `port`. */
function servicePort(service: KubeObject, port: number): Json {
  const found = arr(obj(service.spec).ports).map(obj).find((p) => p.port === port)
  if (!found) throw new ResolveError(`no service port ${port} found for service ${JSON.stringify(service.metadata.name)}`)
  return found
}

/** One address and port an endpoint serves a port name on. */
export interface EndpointAddress {
  ip: string
  port: number
  ready: boolean
}

/** The addresses of the service's endpoints for the port named `portName` ('' for an unnamed one). */
export async function endpointAddresses(registry: Registry, namespace: string, serviceName: string, portName: string): Promise<{ found: boolean; addresses: EndpointAddress[] }> {
  const slices = registry.lookup('discovery.k8s.io', 'v1', 'endpointslices')
  const owned = slices ? (await slices.list({ namespace })).items.filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === serviceName) : []
  if (owned.length > 0) {
    const addresses = owned.flatMap((slice) => {
      const port = arr((slice as Json).ports).map(obj).find((p) => (p.name ?? '') === portName && typeof p.port === 'number')
      if (!port) return []
      return arr((slice as Json).endpoints).map(obj).flatMap((e) => {
        const ready = obj(e.conditions).ready !== false
        return arr(e.addresses).map((ip) => ({ ip: String(ip), port: port.port as number, ready }))
      })
    })
    return { found: true, addresses }
  }
  const endpoints = registry.lookup('', 'v1', 'endpoints')
  let object: KubeObject | undefined
  try {
    object = await endpoints?.get(namespace, serviceName)
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 404)) throw err
  }
  if (!object) return { found: false, addresses: [] }
  const addresses = arr((object as Json).subsets).map(obj).flatMap((subset) => {
    const port = arr(subset.ports).map(obj).find((p) => (p.name ?? '') === portName)
    if (!port) return []
    const ready = arr(subset.addresses).map((a) => ({ ip: String(obj(a).ip), port: Number(port.port), ready: true }))
    const notReady = arr(subset.notReadyAddresses).map((a) => ({ ip: String(obj(a).ip), port: Number(port.port), ready: false }))
    return [...ready, ...notReady]
  })
  return { found: true, addresses }
}

/** ResolveCluster: the service's cluster IP and port (an ExternalName service's name and the port asked). */
export async function resolveCluster(registry: Registry, namespace: string, name: string, port: number): Promise<ResolvedEndpoint> {
  const service = await getService(registry, namespace, name)
  if (!service) throw new ResolveError(`service ${JSON.stringify(name)} not found`)
  const spec = obj(service.spec)
  const type = spec.type ?? 'ClusterIP'
  if (type === 'ClusterIP' && spec.clusterIP === 'None') throw new ResolveError('cannot route to service with ClusterIP "None"')
  if (type === 'ClusterIP' || type === 'LoadBalancer' || type === 'NodePort') return { host: String(spec.clusterIP ?? ''), port: Number(servicePort(service, port).port) }
  if (type === 'ExternalName') return { host: String(spec.externalName ?? ''), port }
  throw new ResolveError(`unsupported service type ${JSON.stringify(type)}`)
}

/** ResolveEndpoint: one of the service's ready endpoint addresses, at random. */
export async function resolveEndpoint(registry: Registry, namespace: string, name: string, port: number): Promise<ResolvedEndpoint> {
  const service = await getService(registry, namespace, name)
  if (!service) throw new ResolveError(`service ${JSON.stringify(name)} not found`)
  const svcPort = servicePort(service, port)
  const type = obj(service.spec).type ?? 'ClusterIP'
  if (type !== 'ClusterIP' && type !== 'LoadBalancer' && type !== 'NodePort') throw new ResolveError(`unsupported service type ${JSON.stringify(type)}`)
  const { addresses } = await endpointAddresses(registry, namespace, name, String(svcPort.name ?? ''))
  const ready = addresses.filter((a) => a.ready)
  if (ready.length === 0) throw new ResolveError(`no endpoints available for service ${JSON.stringify(name)}`)
  const chosen = ready[Math.floor(Math.random() * ready.length)]!
  return { host: chosen.ip, port: chosen.port }
}

/** The resolver `--enable-aggregator-routing` picks. */
export type ServiceResolver = (registry: Registry, namespace: string, name: string, port: number) => Promise<ResolvedEndpoint>

export function serviceResolver(enableAggregatorRouting: boolean): ServiceResolver {
  return enableAggregatorRouting ? resolveEndpoint : resolveCluster
}
