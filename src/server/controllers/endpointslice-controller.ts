/**
 * The EndpointSlice controller (the reference's pkg/controller/endpointslice and its
 * reconciler in k8s.io/endpointslice, kube-controller-manager's `endpointslice-controller`):
 * each Service with a selector gets EndpointSlices (`<service>-<random>`, labelled
 * kubernetes.io/service-name and endpointslice.kubernetes.io/managed-by, owned by the Service)
 * listing its pods, one endpoint per pod with an address of the slice's family: conditions
 * ready (ready and not terminating, or publishNotReadyAddresses), serving (ready) and
 * terminating (being deleted), nodeName, the node's zone, the hostname when the pod names this
 * Service as its subdomain, and the pod as targetRef. Endpoints with the same ports share
 * slices of at most 100 (--max-endpoints-per-slice); an endpoint stays in the slice that holds
 * it while it can, new ones fill slices with room before new slices are made, and a Service
 * without endpoints keeps one empty placeholder slice. Services without a selector are left
 * alone (their slices are someone else's, as the mirroring controller's).
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import type { Controller, ControllerContext } from './controller.js'
import { ZONE_LABEL, followServices } from './endpoints/follow-services.js'
import { addressFamilies, findPort, isExternalName, isHeadless, podAddress, publishNotReady, selectorOf, servicePorts, shouldPodBeInEndpoints, shouldSetHostname } from './endpoints/service-pods.js'
import { HEADLESS_LABEL } from './endpoints-controller.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { KeyedQueue, splitKey } from './kit/keyed-queue.js'
import { controllerRef } from './kit/owners.js'
import { type Endpoint, type EndpointPort, type SlicePlan, endpointsOf, planSlices, portsOf } from './endpoints/slice-placement.js'
import { isDeleting, isPodReady, nodeNameOf } from './kit/pod-state.js'

const ADMISSION = asControllerServiceAccount('endpointslice-controller')
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name'
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by'
export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io'
export const MAX_ENDPOINTS_PER_SLICE = 100

type Obj = Record<string, unknown>

export class EndpointSliceController implements Controller {
  readonly name = 'endpointslice-controller'
  private queue: KeyedQueue | undefined
  private unsubscribe: (() => void) | undefined
  private services!: GenericStore
  private pods!: GenericStore
  private nodes!: GenericStore
  private slices!: GenericStore

  constructor(private readonly options: { maxEndpointsPerSlice?: number; onError?: (err: Error) => void } = {}) {}

  async start(ctx: ControllerContext): Promise<void> {
    const services = ctx.registry.lookup('', 'v1', 'services')
    const pods = ctx.registry.lookup('', 'v1', 'pods')
    const nodes = ctx.registry.lookup('', 'v1', 'nodes')
    const slices = ctx.registry.lookup('discovery.k8s.io', 'v1', 'endpointslices')
    if (!services || !pods || !nodes || !slices) return
    Object.assign(this, { services, pods, nodes, slices })
    const onError = (err: unknown) => (this.options.onError ?? ((e: Error) => ctx.log(2, `endpointslice controller: ${e.message}`)))(err as Error)
    this.queue = new KeyedQueue((key) => this.sync(key), { onError })
    this.queue.start()
    this.unsubscribe = await followServices(ctx.registry, this.queue, { nodes: true })
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
      // A Service gone takes its slices with it (they are its dependents).
      if (toApiError(err).status.code === 404) return
      throw err
    }
    const selector = selectorOf(service)
    if (!selector || isExternalName(service) || service.metadata.deletionTimestamp) return
    const pods = (await this.pods.list({ namespace, labels: Object.entries(selector).map(([k, v]) => ({ key: k, operator: '=' as const, values: [v] })) })).items
    const zones = new Map((await this.nodes.list()).items.map((n) => [n.metadata.name!, n.metadata.labels?.[ZONE_LABEL]]))
    const existing = (await this.slices.list({ namespace, labels: [{ key: SERVICE_NAME_LABEL, operator: '=', values: [name] }] })).items.filter(
      (s) => s.metadata.labels?.[MANAGED_BY_LABEL] === CONTROLLER_NAME && !s.metadata.deletionTimestamp,
    )
    // Slices of an earlier Service of the same name go.
    const owned = existing.filter((s) => (s.metadata.ownerReferences as Obj[] | undefined)?.some((r) => r.uid === service.metadata.uid))
    for (const stale of existing.filter((s) => !owned.includes(s))) await this.deleteSlice(stale)

    const families = addressFamilies(service)
    const plans: SlicePlan[] = []
    for (const family of families) {
      const groups = this.desiredGroups(service, pods, zones, family)
      const ofFamily = owned.filter((s) => s.addressType === family)
      plans.push(...planSlices(family, groups, ofFamily, this.options.maxEndpointsPerSlice ?? MAX_ENDPOINTS_PER_SLICE))
    }
    const kept = new Set(plans.map((p) => p.slice?.metadata.uid).filter(Boolean))
    let deletions = owned.filter((s) => !kept.has(s.metadata.uid) && families.includes(s.addressType as 'IPv4'))
    deletions = deletions.concat(owned.filter((s) => !families.includes(s.addressType as 'IPv4')))
    if (plans.length === 0) {
      // The placeholder: one empty slice, an existing one reused when there is one.
      const reuse = owned.find((s) => s.addressType === families[0])
      plans.push({ family: families[0]!, ports: [], endpoints: [], ...(reuse ? { slice: reuse } : {}) })
      deletions = deletions.filter((s) => s !== reuse)
    }
    const labels = sliceLabels(service)
    for (const plan of plans) await this.write(service, plan, labels)
    for (const slice of deletions) await this.deleteSlice(slice)
  }

  /** The endpoints of each port set of one address family. */
  private desiredGroups(service: KubeObject, pods: KubeObject[], zones: Map<string, string | undefined>, family: 'IPv4' | 'IPv6'): Map<string, { ports: EndpointPort[]; endpoints: Endpoint[] }> {
    const groups = new Map<string, { ports: EndpointPort[]; endpoints: Endpoint[] }>()
    const notReadyToo = publishNotReady(service)
    for (const pod of pods) {
      if (!shouldPodBeInEndpoints(pod, true)) continue
      const address = podAddress(pod, family)
      if (!address) continue
      const ports: EndpointPort[] = []
      for (const servicePort of servicePorts(service)) {
        const port = findPort(pod, servicePort)
        if (port === undefined) continue
        ports.push({ name: servicePort.name ?? '', port, protocol: servicePort.protocol ?? 'TCP', ...(servicePort.appProtocol ? { appProtocol: servicePort.appProtocol } : {}) })
      }
      const terminating = isDeleting(pod)
      const serving = notReadyToo || isPodReady(pod)
      // For compatibility, a terminating pod is never ready unless not-ready ones are published.
      const ready = serving && (!terminating || notReadyToo)
      const node = nodeNameOf(pod)
      const zone = node ? zones.get(node) : undefined
      const endpoint: Endpoint = {
        addresses: [address],
        conditions: { ready, serving, terminating },
        ...(shouldSetHostname(pod, service) ? { hostname: String((pod.spec as { hostname: string }).hostname) } : {}),
        targetRef: { kind: 'Pod', namespace: pod.metadata.namespace!, name: pod.metadata.name!, uid: pod.metadata.uid! },
        ...(node ? { nodeName: node } : {}),
        ...(zone ? { zone } : {}),
      }
      const key = JSON.stringify(ports)
      let group = groups.get(key)
      if (!group) groups.set(key, (group = { ports, endpoints: [] }))
      group.endpoints.push(endpoint)
    }
    return groups
  }

  private async write(service: KubeObject, plan: SlicePlan, labels: Record<string, string>): Promise<void> {
    const body = { addressType: plan.family, endpoints: plan.endpoints, ports: plan.ports }
    if (!plan.slice) {
      try {
        await this.slices.create(
          {
            apiVersion: 'discovery.k8s.io/v1',
            kind: 'EndpointSlice',
            metadata: { generateName: `${service.metadata.name}-`, namespace: service.metadata.namespace, labels, ownerReferences: [controllerRef(service, 'v1', 'Service')] },
            ...body,
          },
          { admission: ADMISSION },
        )
      } catch (err) {
        if (toApiError(err).status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return
        throw err
      }
      return
    }
    const slice = plan.slice
    if (JSON.stringify(endpointsOf(slice)) === JSON.stringify(plan.endpoints) && JSON.stringify(portsOf(slice)) === JSON.stringify(plan.ports) && JSON.stringify(slice.metadata.labels ?? {}) === JSON.stringify(labels)) return
    await this.slices.update(slice.metadata.namespace, slice.metadata.name!, (latest) => ({ ...latest, metadata: { ...latest.metadata, resourceVersion: slice.metadata.resourceVersion, labels }, ...body }), { admission: ADMISSION })
  }

  private async deleteSlice(slice: KubeObject): Promise<void> {
    try {
      await this.slices.delete(slice.metadata.namespace, slice.metadata.name!, { preconditions: { uid: slice.metadata.uid! }, admission: ADMISSION })
    } catch (err) {
      const code = toApiError(err).status.code
      if (code !== 404 && code !== 409) throw err
    }
  }
}

/** setEndpointSliceLabels: the Service's labels but the reserved ones, the service name, the manager, the headless mark. */
function sliceLabels(service: KubeObject): Record<string, string> {
  const labels: Record<string, string> = {}
  for (const [k, v] of Object.entries(service.metadata.labels ?? {})) if (k !== SERVICE_NAME_LABEL && k !== MANAGED_BY_LABEL && k !== HEADLESS_LABEL) labels[k] = v
  if (isHeadless(service)) labels[HEADLESS_LABEL] = ''
  labels[SERVICE_NAME_LABEL] = service.metadata.name!
  labels[MANAGED_BY_LABEL] = CONTROLLER_NAME
  return labels
}
