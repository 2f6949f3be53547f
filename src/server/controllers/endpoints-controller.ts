/**
 * The endpoints controller (the reference's pkg/controller/endpoint, kube-controller-manager's
 * `endpoints-controller`): each Service with a selector gets an Endpoints object of its name
 * whose subsets list the selected pods' IPs, ready pods under addresses and the others under
 * notReadyAddresses (all ready with publishNotReadyAddresses), with the ports the service ports
 * reach on each pod (named target ports looked up in its containers), grouped by port set as
 * RepackSubsets does. Services without a selector are left alone: their Endpoints are written
 * by others (the `kubernetes` Service's by the API server's reconciler). The Endpoints of a
 * deleted Service is deleted. Its labels are the Service's, with service.kubernetes.io/headless
 * for a headless one.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import type { Controller, ControllerContext } from './controller.js'
import { followServices } from './endpoints/follow-services.js'
import { findPort, isExternalName, isHeadless, podAddress, publishNotReady, selectorOf, servicePorts, shouldPodBeInEndpoints, shouldSetHostname } from './endpoints/service-pods.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { KeyedQueue, splitKey } from './kit/keyed-queue.js'
import { isPodReady, nodeNameOf } from './kit/pod-state.js'

const ADMISSION = asControllerServiceAccount('endpoint-controller')
export const HEADLESS_LABEL = 'service.kubernetes.io/headless'
/** maxCapacity: the addresses an Endpoints holds at most; beyond, it is truncated and says so. */
const MAX_CAPACITY = 1000
const OVER_CAPACITY_ANNOTATION = 'endpoints.kubernetes.io/over-capacity'

interface Address {
  ip: string
  hostname?: string
  nodeName?: string
  targetRef: { kind: 'Pod'; namespace: string; name: string; uid: string }
}
interface Port {
  name?: string
  port: number
  protocol: string
  appProtocol?: string
}
interface Subset {
  addresses?: Address[]
  notReadyAddresses?: Address[]
  ports?: Port[]
}

export class EndpointsController implements Controller {
  readonly name = 'endpoints-controller'
  private queue: KeyedQueue | undefined
  private unsubscribe: (() => void) | undefined
  private services!: GenericStore
  private pods!: GenericStore
  private endpoints!: GenericStore

  constructor(private readonly options: { maxCapacity?: number; onError?: (err: Error) => void } = {}) {}

  async start(ctx: ControllerContext): Promise<void> {
    const services = ctx.registry.lookup('', 'v1', 'services')
    const pods = ctx.registry.lookup('', 'v1', 'pods')
    const endpoints = ctx.registry.lookup('', 'v1', 'endpoints')
    if (!services || !pods || !endpoints) return
    this.services = services
    this.pods = pods
    this.endpoints = endpoints
    const onError = (err: unknown) => (this.options.onError ?? ((e: Error) => ctx.log(2, `endpoints controller: ${e.message}`)))(err as Error)
    this.queue = new KeyedQueue((key) => this.sync(key), { onError })
    this.queue.start()
    this.unsubscribe = await followServices(ctx.registry, this.queue)
  }

  stop(): void {
    this.unsubscribe?.()
    this.queue?.stop()
  }

  private async sync(key: string): Promise<void> {
    const [namespace, name] = splitKey(key)
    let service: KubeObject
    try {
      service = await this.services.get(namespace, name)
    } catch (err) {
      if (toApiError(err).status.code !== 404) throw err
      // The Service is gone: so is its Endpoints.
      try {
        await this.endpoints.delete(namespace, name, { admission: ADMISSION })
      } catch (deleteErr) {
        if (toApiError(deleteErr).status.code !== 404) throw deleteErr
      }
      return
    }
    const selector = selectorOf(service)
    if (!selector || isExternalName(service) || service.metadata.deletionTimestamp) return
    const pods = (await this.pods.list({ namespace, labels: Object.entries(selector).map(([key, value]) => ({ key, operator: '=' as const, values: [value] })) })).items
    const subsets = repack(this.subsetsFor(service, pods))
    const truncated = truncate(subsets, this.options.maxCapacity ?? MAX_CAPACITY)
    const labels: Record<string, string> = { ...(service.metadata.labels ?? {}) }
    if (isHeadless(service)) labels[HEADLESS_LABEL] = ''
    else delete labels[HEADLESS_LABEL]

    let current: KubeObject | undefined
    const annotations = (existing: KubeObject | undefined): Record<string, string> => {
      const out = { ...(existing?.metadata.annotations ?? {}) }
      if (truncated) out[OVER_CAPACITY_ANNOTATION] = 'truncated'
      else delete out[OVER_CAPACITY_ANNOTATION]
      return out
    }
    try {
      current = await this.endpoints.get(namespace, name)
    } catch (err) {
      if (toApiError(err).status.code !== 404) throw err
    }
    if (!current) {
      try {
        await this.endpoints.create({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace, labels, ...(truncated ? { annotations: annotations(undefined) } : {}) }, ...(subsets.length > 0 ? { subsets } : {}) }, { admission: ADMISSION })
      } catch (err) {
        const apiErr = toApiError(err)
        if (apiErr.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return
        throw err
      }
      return
    }
    const same =
      JSON.stringify(current.subsets ?? []) === JSON.stringify(subsets) &&
      JSON.stringify(current.metadata.labels ?? {}) === JSON.stringify(labels) &&
      JSON.stringify(current.metadata.annotations ?? {}) === JSON.stringify(annotations(current))
    if (same) return
    await this.endpoints.update(
      namespace,
      name,
      (latest) => {
        const next: KubeObject = { ...latest, metadata: { ...latest.metadata, resourceVersion: current!.metadata.resourceVersion, labels, annotations: annotations(latest) } }
        if (Object.keys(next.metadata.annotations!).length === 0) delete next.metadata.annotations
        if (subsets.length > 0) next.subsets = subsets
        else delete next.subsets
        return next
      },
      { admission: ADMISSION },
    )
  }

  /** The subsets of syncService before repacking: one per pod and port. */
  private subsetsFor(service: KubeObject, pods: KubeObject[]): Subset[] {
    const subsets: Subset[] = []
    const tolerateUnready = publishNotReady(service)
    for (const pod of pods) {
      if (!shouldPodBeInEndpoints(pod, tolerateUnready)) continue
      const ip = podAddress(pod, 'IPv4') ?? podAddress(pod, 'IPv6')
      if (!ip) continue
      const address: Address = {
        ip,
        ...(shouldSetHostname(pod, service) ? { hostname: String((pod.spec as { hostname: string }).hostname) } : {}),
        ...(nodeNameOf(pod) ? { nodeName: nodeNameOf(pod) } : {}),
        targetRef: { kind: 'Pod', namespace: pod.metadata.namespace!, name: pod.metadata.name!, uid: pod.metadata.uid! },
      }
      const ready = tolerateUnready || isPodReady(pod)
      const add = (ports: Port[]) => subsets.push(ready ? { addresses: [address], ports } : { notReadyAddresses: [address], ports })
      const ports = servicePorts(service)
      if (ports.length === 0) {
        // A headless Service may have no ports.
        if (isHeadless(service)) add([])
        continue
      }
      for (const servicePort of ports) {
        const port = findPort(pod, servicePort)
        if (port === undefined) continue
        add([{ ...(servicePort.name ? { name: servicePort.name } : {}), port, protocol: servicePort.protocol ?? 'TCP', ...(servicePort.appProtocol ? { appProtocol: servicePort.appProtocol } : {}) }])
      }
    }
    return subsets
  }
}

/** RepackSubsets: addresses with the same ports in one subset, addresses sorted by IP, subsets in a stable order. */
function repack(subsets: Subset[]): Subset[] {
  const byPorts = new Map<string, { ports: Port[]; ready: Map<string, Address>; notReady: Map<string, Address> }>()
  for (const subset of subsets) {
    const ports = [...(subset.ports ?? [])].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
    const key = JSON.stringify(ports)
    let group = byPorts.get(key)
    if (!group) byPorts.set(key, (group = { ports, ready: new Map(), notReady: new Map() }))
    const addressKey = (a: Address) => `${a.ip}/${a.targetRef.uid}`
    for (const a of subset.addresses ?? []) group.ready.set(addressKey(a), a)
    for (const a of subset.notReadyAddresses ?? []) group.notReady.set(addressKey(a), a)
  }
  // LessEndpointAddress: the IPs' bytes, then the target's UID.
  const byIp = (a: Address, b: Address) => (a.ip === b.ip ? (a.targetRef.uid < b.targetRef.uid ? -1 : 1) : a.ip < b.ip ? -1 : 1)
  const out: Subset[] = []
  for (const key of [...byPorts.keys()].sort()) {
    const group = byPorts.get(key)!
    // An address ready for some port is not listed as not ready for the same ports.
    for (const k of group.ready.keys()) group.notReady.delete(k)
    const subset: Subset = {}
    if (group.ready.size > 0) subset.addresses = [...group.ready.values()].sort(byIp)
    if (group.notReady.size > 0) subset.notReadyAddresses = [...group.notReady.values()].sort(byIp)
    if (group.ports.length > 0) subset.ports = group.ports
    out.push(subset)
  }
  return out
}

/**
 * truncateEndpoints: at most `max` addresses, each subset keeping its share of them, ready
 * addresses first; answers whether anything was cut.
 */
function truncate(subsets: Subset[], max: number): boolean {
  const total = subsets.reduce((n, s) => n + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0)
  if (total <= max) return false
  let left = max
  for (const [i, subset] of subsets.entries()) {
    const size = (subset.addresses?.length ?? 0) + (subset.notReadyAddresses?.length ?? 0)
    const share = i === subsets.length - 1 ? left : Math.min(left, Math.round((size / total) * max))
    left -= share
    const ready = subset.addresses ?? []
    if (share <= ready.length) {
      if (share > 0) subset.addresses = ready.slice(0, share)
      else delete subset.addresses
      delete subset.notReadyAddresses
    } else if (subset.notReadyAddresses) subset.notReadyAddresses = subset.notReadyAddresses.slice(0, share - ready.length)
  }
  return true
}
