/**
 * The IPAddress objects the reference's cluster-IP allocator keeps (1.33 and later, with
 * ServiceCIDRs GA): one per allocated cluster IP, named by the address, with the owning Service
 * as parentRef and the allocator's labels; released with the Service. The default ServiceCIDR
 * `kubernetes` is the reference's default-servicecidr controller's (pkg/controlplane/controller/
 * defaultservicecidr): `--service-cluster-ip-range` with the condition Ready.
 *
 * The objects are written right after the Service is stored (the reference writes them just
 * before); the allocator counts both the Services' addresses and the IPAddresses as taken. A
 * repair pass at start-up gives the Services stored without one (the `kubernetes` Service,
 * Services from before) their IPAddress, as the reference's repair loop does.
 */
import { type KubeObject, isPlainObject, nowTimestamp } from '../registry/object.js'
import { ApiError } from '../status-errors.js'
import type { KindStore } from '../registry/store-hooks.js'

export const IP_FAMILY_LABEL = 'ipaddress.kubernetes.io/ip-family'
export const MANAGED_BY_LABEL = 'ipaddress.kubernetes.io/managed-by'
export const IP_ALLOCATOR = 'ipallocator.k8s.io'
export const DEFAULT_SERVICE_CIDR = 'kubernetes'

/** The cluster IPs a Service holds (none for ExternalName and headless Services). */
export function clusterIPsOf(service: KubeObject): string[] {
  const spec = isPlainObject(service.spec) ? service.spec : {}
  const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : typeof spec.clusterIP === 'string' ? [spec.clusterIP] : []
  return ips.filter((ip): ip is string => typeof ip === 'string' && ip !== '' && ip !== 'None')
}

export function ipAddressObject(ip: string, service: KubeObject): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: { name: ip, labels: { [IP_FAMILY_LABEL]: ip.includes(':') ? 'IPv6' : 'IPv4', [MANAGED_BY_LABEL]: IP_ALLOCATOR } },
    // The core group is the empty group, which the reference's JSON omits.
    spec: { parentRef: { resource: 'services', namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' } },
  }
}

function ownedBy(address: KubeObject, service: KubeObject): boolean {
  const ref = isPlainObject(address.spec) && isPlainObject(address.spec.parentRef) ? address.spec.parentRef : {}
  return ref.resource === 'services' && ref.namespace === service.metadata.namespace && ref.name === service.metadata.name
}

const isCode = (err: unknown, code: number) => err instanceof ApiError && err.code === code

/** Writes the IPAddress of each of the Service's cluster IPs (an existing one is left). */
export async function recordServiceIPs(ipaddresses: KindStore, service: KubeObject): Promise<void> {
  for (const ip of clusterIPsOf(service)) {
    try {
      await ipaddresses.create(ipAddressObject(ip, service))
    } catch (err) {
      if (!isCode(err, 409)) throw err
    }
  }
}

/** Deletes the IPAddresses the Service held (those it owns). */
export async function releaseServiceIPs(ipaddresses: KindStore, service: KubeObject): Promise<void> {
  for (const ip of clusterIPsOf(service)) {
    try {
      const address = await ipaddresses.get(undefined, ip)
      if (ownedBy(address, service)) await ipaddresses.delete(undefined, ip)
    } catch (err) {
      if (!isCode(err, 404)) throw err
    }
  }
}

/** The repair pass: every Service's cluster IPs get their IPAddress. Returns how many were written. */
export async function repairServiceIPs(services: KindStore, ipaddresses: KindStore): Promise<number> {
  const existing = new Set((await ipaddresses.list()).items.map((a) => a.metadata.name))
  let written = 0
  for (const service of (await services.list()).items) {
    for (const ip of clusterIPsOf(service)) {
      if (existing.has(ip)) continue
      try {
        await ipaddresses.create(ipAddressObject(ip, service))
        written++
      } catch (err) {
        if (!isCode(err, 409)) throw err
      }
    }
  }
  return written
}

/**
 * The default ServiceCIDR, as the reference's default-servicecidr controller writes it: a
 * bootstrap object (bootstrap/objects.ts's BootstrapObject, by shape: bootstrap is a room above).
 */
export function defaultServiceCIDR(cidrs: readonly string[]): { key: string; object: KubeObject } {
  return {
    key: `/servicecidrs/${DEFAULT_SERVICE_CIDR}`,
    object: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'ServiceCIDR',
      metadata: { name: DEFAULT_SERVICE_CIDR },
      spec: { cidrs: [...cidrs] },
      status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: nowTimestamp(), message: 'Kubernetes default Service CIDR is ready' }] },
    },
  }
}
