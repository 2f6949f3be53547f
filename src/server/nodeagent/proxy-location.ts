/**
 * Where `pods/<id>/proxy`, `nodes/<id>/proxy` and `services/<id>/proxy` go (the reference's
 * ResourceLocation of pkg/registry/core/pod/strategy.go, node/strategy.go and
 * service/storage): `<id>` is `name`, `name:port` or `scheme:name:port`
 * (utilnet.SplitSchemeNamePort); a pod is reached at its IP, a node at its agent (its own
 * transport when no other port is asked), a service at one of its Endpoints' addresses, which
 * must belong to a pod of that IP.
 */
import { isIP } from 'node:net'
import type { Registry } from '../api/registry/registry.js'
import { ApiError, errors } from '../api/status-errors.js'
import { failureStatus } from '../http/status.js'
import type { NodeAgentClient, NodeAgentLocation } from './client.js'

type Obj = Record<string, unknown>

const asObj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {})
const asArr = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(asObj) : [])

export type ProxyScheme = 'http' | 'https'

export interface ProxyLocation extends NodeAgentLocation {
  scheme: ProxyScheme
  /** The node agent's own transport (its CA and client certificate), not the proxy transport. */
  agent: boolean
}

/** utilnet.SplitSchemeNamePort; undefined when `id` is not valid. */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':')
  let scheme = ''
  let name: string
  let port = ''
  if (parts.length === 1) name = parts[0]!
  else if (parts.length === 2) [name, port] = parts as [string, string]
  else if (parts.length === 3) [scheme, name, port] = parts as [string, string, string]
  else return undefined
  if (name === '' || !['', 'http', 'https'].includes(scheme)) return undefined
  return { scheme, name, port }
}

/** proxyutil.IsProxyableIP and the global unicast check: no loopback, link-local or unspecified address. */
export function proxyableIp(ip: string): boolean {
  const kind = isIP(ip)
  if (kind === 4) {
    const [a, b] = ip.split('.').map(Number) as [number, number]
    return !(a === 0 || a === 127 || (a === 169 && b === 254) || a >= 224)
  }
  if (kind === 6) {
    const lower = ip.toLowerCase()
    return !(lower === '::' || lower === '::1' || lower.startsWith('fe8') || lower.startsWith('fe9') || lower.startsWith('fea') || lower.startsWith('feb') || lower.startsWith('ff'))
  }
  return false
}

const ADDRESS_NOT_ALLOWED = 'address not allowed'

/** The reference's NewServiceUnavailable (no details, no Retry-After). */
function serviceUnavailable(message: string): ApiError {
  return new ApiError(failureStatus(503, 'ServiceUnavailable', message))
}

export async function podProxyLocation(registry: Registry, namespace: string, id: string): Promise<ProxyLocation> {
  const split = splitSchemeNamePort(id)
  if (!split) throw errors.badRequest(`invalid pod request ${JSON.stringify(id)}`)
  const pods = registry.lookup('', 'v1', 'pods')!
  const pod = asObj(await pods.get(namespace, split.name))
  let port = split.port
  if (port === '') {
    for (const c of asArr(asObj(pod.spec).containers)) {
      const ports = asArr(c.ports)
      if (ports.length > 0) {
        port = String(ports[0]!.containerPort)
        break
      }
    }
  }
  const podIP = String(asArr(asObj(pod.status).podIPs)[0]?.ip ?? '')
  if (!proxyableIp(podIP)) throw errors.badRequest(ADDRESS_NOT_ALLOWED)
  return { scheme: (split.scheme || 'http') as ProxyScheme, host: podIP, port: port === '' ? 80 : Number(port), agent: false }
}

export async function nodeProxyLocation(registry: Registry, client: NodeAgentClient, id: string): Promise<ProxyLocation> {
  const split = splitSchemeNamePort(id)
  if (!split) throw errors.badRequest(`invalid node request ${JSON.stringify(id)}`)
  const agent = await client.location(registry, split.name)
  // isProxyableHostname: a name is resolved by the dialer; an IP must be proxyable.
  if (isIP(agent.host) !== 0 && !proxyableIp(agent.host)) throw errors.badRequest(ADDRESS_NOT_ALLOWED)
  if (split.port === '' || split.port === String(agent.port)) return { scheme: 'https', ...agent, agent: true }
  return { scheme: (split.scheme || 'http') as ProxyScheme, host: agent.host, port: Number(split.port), agent: false }
}

export async function serviceProxyLocation(registry: Registry, namespace: string, id: string): Promise<ProxyLocation> {
  const split = splitSchemeNamePort(id)
  if (!split) throw errors.badRequest(`invalid service request ${JSON.stringify(id)}`)
  const { name } = split
  let portName = split.port
  if (/^[+-]?[0-9]+$/.test(portName)) {
    // A port number names the service port that declares it.
    const service = asObj(await registry.lookup('', 'v1', 'services')!.get(namespace, name))
    const declared = asArr(asObj(service.spec).ports).find((p) => Number(p.port) === Number(portName))
    if (!declared) throw serviceUnavailable(`no service port ${Number(portName)} found for service ${JSON.stringify(name)}`)
    portName = String(declared.name ?? '')
  }
  const endpoints = asObj(await registry.lookup('', 'v1', 'endpoints')!.get(namespace, name))
  const subsets = asArr(endpoints.subsets)
  if (subsets.length === 0) throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(name)}`)
  const seed = Math.floor(Math.random() * subsets.length)
  for (let i = 0; i < subsets.length; i++) {
    const subset = subsets[(seed + i) % subsets.length]!
    const addresses = asArr(subset.addresses)
    if (addresses.length === 0) continue
    const port = asArr(subset.ports).find((p) => String(p.name ?? '') === portName)
    if (!port) continue
    const start = Math.floor(Math.random() * addresses.length)
    for (let t = 0; t < addresses.length; t++) {
      const address = addresses[(start + t) % addresses.length]!
      if (await validAddress(registry, address)) {
        return { scheme: (split.scheme || 'http') as ProxyScheme, host: String(address.ip), port: Number(port.port), agent: false }
      }
    }
  }
  throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(id)}`)
}

/** isValidAddress: the address names a pod (targetRef) that exists and has that IP. */
async function validAddress(registry: Registry, address: Obj): Promise<boolean> {
  const ref = asObj(address.targetRef)
  if (ref.kind !== 'Pod' || typeof ref.name !== 'string') return false
  try {
    const pod = asObj(await registry.lookup('', 'v1', 'pods')!.get(String(ref.namespace ?? ''), ref.name))
    return asArr(asObj(pod.status).podIPs).some((p) => p.ip === address.ip)
  } catch {
    return false
  }
}
