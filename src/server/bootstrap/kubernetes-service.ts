/**
 * The `kubernetes` Service, its Endpoints and its EndpointSlice in `default`, which in-cluster
 * clients use to find the API server: the first address of the service range on port 443,
 * pointing at this server's advertised address and secure port (the slice as the reference's
 * endpoint reconciler writes it beside the Endpoints). Written once; an existing object is left alone so that
 * a second server on the same store does not fight over it.
 */
import { networkInterfaces } from 'node:os'
import { kubernetesServiceIP } from '../api/kinds/cluster-ip.js'
import type { BootstrapObject } from './objects.js'

/**
 * Where clients reach this server: --advertise-address, else a specific --bind-address, else
 * the first external IPv4 interface (the reference's choice for an unspecified bind address).
 */
export function endpointAddress(advertiseAddress: string | undefined, bindAddress: string): string {
  if (advertiseAddress) return advertiseAddress
  if (bindAddress !== '0.0.0.0' && bindAddress !== '::' && bindAddress !== '') return bindAddress
  for (const addrs of Object.values(networkInterfaces())) {
    const external = addrs?.find((a) => a.family === 'IPv4' && !a.internal)
    if (external) return external.address
  }
  return '127.0.0.1'
}

export interface KubernetesServiceSettings {
  address: string
  securePort: number
  /** --service-cluster-ip-range: the service gets its first address. */
  clusterIPRange?: string
  /** --core-service-node-port: when non-zero the service is of type NodePort on it. */
  nodePort?: number
  /** --endpoint-reconciler-type=none: the Endpoints are someone else's to write. */
  withEndpoints?: boolean
}

export function kubernetesService({ address, securePort, clusterIPRange, nodePort, withEndpoints = true }: KubernetesServiceSettings): BootstrapObject[] {
  const clusterIP = kubernetesServiceIP(clusterIPRange)
  const labels = { component: 'apiserver', provider: 'kubernetes' }
  const service: BootstrapObject = {
    key: '/services/default/kubernetes',
    object: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kubernetes', namespace: 'default', labels },
      spec: {
        ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: securePort, ...(nodePort ? { nodePort } : {}) }],
        clusterIP,
        clusterIPs: [clusterIP],
        type: nodePort ? 'NodePort' : 'ClusterIP',
        ...(nodePort ? { externalTrafficPolicy: 'Cluster' } : {}),
        sessionAffinity: 'None',
        ipFamilies: [address.includes(':') ? 'IPv6' : 'IPv4'],
        ipFamilyPolicy: 'SingleStack',
        internalTrafficPolicy: 'Cluster',
      },
      status: { loadBalancer: {} },
    },
  }
  if (!withEndpoints) return [service]
  return [
    service,
    {
      key: '/endpoints/default/kubernetes',
      object: {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
        subsets: [{ addresses: [{ ip: address }], ports: [{ name: 'https', port: securePort, protocol: 'TCP' }] }],
      },
    },
    {
      key: '/endpointslices/default/kubernetes',
      object: {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
        addressType: address.includes(':') ? 'IPv6' : 'IPv4',
        endpoints: [{ addresses: [address], conditions: { ready: true } }],
        ports: [{ name: 'https', port: securePort, protocol: 'TCP' }],
      },
    },
  ]
}
