/**
 * Service cluster IP allocation from the default `--service-cluster-ip-range` (10.0.0.0/24):
 * the first free address after the one the reference reserves for the `kubernetes` service,
 * free meaning no stored Service holds it. A requested address must be in the range and free.
 */
import type { KubeObject } from '../registry/object.js'
import { isPlainObject } from '../registry/object.js'
import { errors } from '../status-errors.js'

/** The default `--service-cluster-ip-range`. */
export const SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24'

function parseCidr(cidr: string): { base: number; size: number } {
  const [ip, bits] = cidr.split('/') as [string, string]
  const base = ip.split('.').reduce((n, o) => n * 256 + Number(o), 0)
  return { base, size: 2 ** (32 - Number(bits)) }
}

function toIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.')
}

function toNumber(ip: string): number | undefined {
  const parts = ip.split('.')
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined
  return parts.reduce((n, o) => n * 256 + Number(o), 0)
}

/** The address the reference gives the `kubernetes` service: the first of the range. */
export function kubernetesServiceIP(range = SERVICE_CLUSTER_IP_RANGE): string {
  return toIp(parseCidr(range).base + 1)
}

/** `services` lists the stored Services (decoded by the store's codec, whatever the media type). */
/** `alsoTaken`: addresses held otherwise (the IPAddress objects). */
export async function allocateClusterIP(
  services: () => Promise<readonly KubeObject[]>,
  obj: KubeObject,
  range = SERVICE_CLUSTER_IP_RANGE,
  alsoTaken: () => Promise<readonly string[]> = async () => [],
): Promise<void> {
  const spec = isPlainObject(obj.spec) ? obj.spec : (obj.spec = {})
  if (spec.type === 'ExternalName' || spec.clusterIP === 'None') return
  const { base, size } = parseCidr(range)
  const used = new Set<string>()
  for (const service of await services()) {
    const s = isPlainObject(service.spec) ? service.spec : {}
    if (typeof s.clusterIP === 'string') used.add(s.clusterIP)
  }
  for (const ip of await alsoTaken()) used.add(ip)
  const field = (detail: string, value: unknown) =>
    errors.invalid('', 'Service', obj.metadata.name ?? '', [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${detail}`, field: 'spec.clusterIPs' }])
  if (typeof spec.clusterIP === 'string' && spec.clusterIP !== '') {
    const n = toNumber(spec.clusterIP)
    if (n === undefined) throw field('must be a valid IP address', [spec.clusterIP])
    if (n <= base || n >= base + size - 1) throw field(`failed to allocate IP ${spec.clusterIP}: provided IP is not in the valid range. The range of valid IPs is ${range}`, [spec.clusterIP])
    if (used.has(spec.clusterIP)) throw field(`failed to allocate IP ${spec.clusterIP}: provided IP is already allocated`, [spec.clusterIP])
    spec.clusterIPs = [spec.clusterIP]
    return
  }
  for (let n = base + 2; n < base + size - 1; n++) {
    const ip = toIp(n)
    if (used.has(ip)) continue
    spec.clusterIP = ip
    spec.clusterIPs = [ip]
    return
  }
  throw errors.internal('failed to allocate a serviceIP: range is full')
}
