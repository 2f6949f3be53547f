/**
 * The core group's Services and Endpoints. A Service's store allocates its cluster IP and node
 * ports before it is written (cluster-ip.ts, node-ports.ts) and keeps the IPAddress objects of
 * its cluster IPs (service-ip-addresses.ts), as the reference's Service REST storage does.
 */
import { type KubeObject, isPlainObject } from '../registry/object.js'
import type { KindStoreHooks, StoreHooksContext } from '../registry/store-hooks.js'
import { validateEndpoints, validateService, validateServiceStatusUpdate, validateServiceUpdate } from '../validation/core.js'
import { nameIsDNS1035Label } from '../validation/names.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import { allocateClusterIP } from './cluster-ip.js'
import type { KindTable } from './kind.js'
import { allocateNodePorts } from './node-ports.js'
import { recordServiceIPs, releaseServiceIPs } from './service-ip-addresses.js'
import { type Obj, arr, col, num, obj, str } from './values.js'

function portsText(o: KubeObject): string {
  const ports = arr(obj(o.spec).ports).map(obj)
  if (ports.length === 0) return '<none>'
  return ports
    .map((p) => `${num(p.port)}${typeof p.nodePort === 'number' && p.nodePort > 0 ? `:${p.nodePort}` : ''}/${str(p.protocol, 'TCP')}`)
    .join(',')
}

function externalIP(o: KubeObject): string {
  const spec = obj(o.spec)
  const type = str(spec.type, 'ClusterIP')
  const external = arr(spec.externalIPs).map((x) => str(x))
  if (type === 'ExternalName') return str(spec.externalName)
  if (type === 'LoadBalancer') {
    const ingress = arr(obj(obj(o.status).loadBalancer).ingress).map(obj).map((i) => str(i.ip) || str(i.hostname)).filter(Boolean)
    const all = [...ingress, ...external]
    return all.length > 0 ? all.join(',') : '<pending>'
  }
  return external.length > 0 ? external.join(',') : '<none>'
}

/** The reference's sameClusterIPs: the same list, in order. */
function sameClusterIPs(a: Obj, b: Obj): boolean {
  const x = arr(a.clusterIPs)
  const y = arr(b.clusterIPs)
  return x.length === y.length && x.every((ip, i) => ip === y[i])
}

/** The update half of the reference's normalizeClusterIPs (pkg/registry/core/service/storage). */
function normalizeClusterIPsOnUpdate(spec: Obj, oldSpec: Obj): void {
  // An old client patching something else sent clusterIP without clusterIPs.
  if (arr(oldSpec.clusterIPs).length > 0 && arr(spec.clusterIPs).length === 0 && (oldSpec.clusterIP ?? '') === (spec.clusterIP ?? '')) spec.clusterIPs = oldSpec.clusterIPs
  if ((oldSpec.clusterIP ?? '') === (spec.clusterIP ?? '')) return
  if (oldSpec.clusterIP && !spec.clusterIP) {
    // Clearing clusterIP with clusterIPs unchanged clears both (validation then reports it).
    if (sameClusterIPs(oldSpec, spec)) delete spec.clusterIPs
  } else if (sameClusterIPs(oldSpec, spec)) spec.clusterIPs = [spec.clusterIP]
}

/** formatEndpoints: at most three host:port pairs, then "+ N more...". */
function endpointsText(o: KubeObject): string {
  const subsets = arr(o.subsets).map(obj)
  if (subsets.length === 0) return '<none>'
  const list: string[] = []
  let count = 0
  for (const ss of subsets) {
    const addresses = arr(ss.addresses).map((a) => str(obj(a).ip))
    const ports = arr(ss.ports).map(obj)
    if (ports.length === 0) {
      count += addresses.length
      for (const ip of addresses) if (list.length < 3) list.push(ip)
      continue
    }
    for (const p of ports) {
      count += addresses.length
      for (const ip of addresses) if (list.length < 3) list.push(ip.includes(':') ? `[${ip}]:${num(p.port)}` : `${ip}:${num(p.port)}`)
    }
  }
  return count > 3 ? `${list.join(',')} + ${count - 3} more...` : list.join(',')
}

/**
 * The Service REST storage's allocations: a cluster IP and node ports before a create, node
 * ports before an update; the IPAddress objects of 1.33 and later (when the emulated version
 * serves them) after a create and a delete.
 */
function serviceStoreHooks({ lookup, options, log }: StoreHooksContext): KindStoreHooks {
  const services = async () => (await lookup('', 'v1', 'services')!.list()).items
  const ipAddresses = () => lookup('networking.k8s.io', 'v1', 'ipaddresses')
  const takenAddresses = async () => {
    const store = ipAddresses()
    return store ? (await store.list()).items.map((a) => a.metadata.name ?? '') : []
  }
  return {
    beforeCreate: async (obj: KubeObject) => {
      await allocateClusterIP(services, obj, options.serviceClusterIPRange, takenAddresses)
      await allocateNodePorts(services, obj, options.serviceNodePortRange)
    },
    beforeUpdate: (obj: KubeObject, old: KubeObject) => allocateNodePorts(services, obj, options.serviceNodePortRange, old),
    afterCreate: async (obj: KubeObject) => {
      const store = ipAddresses()
      if (store) await recordServiceIPs(store, obj).catch((err: unknown) => log(2, `ipaddresses of service ${obj.metadata.name ?? ''}: ${(err as Error).message}`))
    },
    afterDelete: async (obj: KubeObject) => {
      const store = ipAddresses()
      if (store) await releaseServiceIPs(store, obj).catch((err: unknown) => log(2, `ipaddresses of service ${obj.metadata.name ?? ''}: ${(err as Error).message}`))
    },
  }
}

export const CORE_SERVICES: KindTable = {
  '/v1/services': {
    createOnUpdate: true,
    virtualSubresources: ['proxy'],
    statusOwnedBySubresource: true,
    storeHooks: serviceStoreHooks,
    validateName: nameIsDNS1035Label,
    defaults(o) {
      const spec = obj(o.spec)
      spec.type ??= 'ClusterIP'
      spec.sessionAffinity ??= 'None'
      if (spec.type !== 'ExternalName') {
        spec.internalTrafficPolicy ??= 'Cluster'
        spec.ipFamilies ??= ['IPv4']
        spec.ipFamilyPolicy ??= 'SingleStack'
      }
      // SetDefaults_Service: externally accessible services (NodePort, LoadBalancer, ClusterIP
      // with external IPs) route external traffic cluster-wide unless told otherwise.
      if (spec.type === 'NodePort' || spec.type === 'LoadBalancer' || (spec.type === 'ClusterIP' && arr(spec.externalIPs).length > 0)) spec.externalTrafficPolicy ??= 'Cluster'
      if (spec.type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true
      for (const p of arr(spec.ports)) {
        if (!isPlainObject(p)) continue
        p.protocol ??= 'TCP'
        p.targetPort ??= p.port
      }
      o.spec = spec
    },
    prepareForCreate(o) {
      o.status = { loadBalancer: {} }
    },
    prepareForUpdate(o, old) {
      const spec = obj(o.spec)
      const oldSpec = obj(old.spec)
      // The reference's beginUpdate, before validation: patchAllocatedValues (the allocated cluster
      // IPs stay when an update leaves them out), then normalizeClusterIPs (clusterIP and
      // clusterIPs kept in step, so a changed clusterIP is reported as clusterIPs[0] changing).
      if (spec.type !== 'ExternalName' && oldSpec.type !== 'ExternalName') {
        if (!spec.clusterIP && oldSpec.clusterIP !== undefined) spec.clusterIP = oldSpec.clusterIP
        if (arr(spec.clusterIPs).length === 0 && arr(oldSpec.clusterIPs).length > 0) spec.clusterIPs = oldSpec.clusterIPs
      }
      normalizeClusterIPsOnUpdate(spec, oldSpec)
      o.spec = spec
    },
    validate: validateService,
    validateUpdate: validateServiceUpdate,
    validateStatusUpdate: validateServiceStatusUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('Type', 'type determines how the Service is exposed.'),
        col('Cluster-IP', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
        col('External-IP', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
        col('Port(s)', 'The list of ports that are exposed by this service.'),
        AGE_COLUMN,
        col('Selector', 'Route service traffic to pods with label keys and values matching this selector.', 1),
      ],
      cells: (o, now) => {
        const spec = obj(o.spec)
        const selector = Object.entries(obj(spec.selector)).map(([k, v]) => `${k}=${str(v)}`).join(',') || '<none>'
        return [o.metadata.name, str(spec.type, 'ClusterIP'), str(spec.clusterIP) || '<none>', externalIP(o), portsText(o), age(o, now), selector]
      },
    },
  },
  '/v1/endpoints': {
    createOnUpdate: true,
    defaults(o) {
      // SetDefaults_EndpointPort.
      for (const s of arr(o.subsets)) for (const p of arr(obj(s).ports)) if (isPlainObject(p)) p.protocol ??= 'TCP'
    },
    validate: validateEndpoints,
    table: {
      definitions: [NAME_COLUMN, col('Endpoints', 'The set of all endpoints is the union of all subsets.'), AGE_COLUMN],
      cells: (o, now) => [o.metadata.name, endpointsText(o), age(o, now)],
    },
  },
}
