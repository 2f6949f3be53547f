/**
 * The EndpointSlice mirroring controller (the reference's pkg/controller/endpointslicemirroring,
 * kube-controller-manager's `endpointslice-mirroring-controller`): the Endpoints of a Service
 * without a selector, written by someone else, are mirrored into EndpointSlices
 * (`<name>-<random>`, labelled kubernetes.io/service-name and managed by
 * endpointslicemirroring-controller.k8s.io, owned by the Service): each address an endpoint
 * with its ready condition (addresses ready, notReadyAddresses not), hostname, nodeName and
 * targetRef, grouped by the subset's ports and the address family, at most 1000 addresses per
 * subset (--mirroring-max-endpoints-per-subset). Endpoints labelled
 * endpointslice.kubernetes.io/skip-mirror=true (the `kubernetes` Service's, which the API
 * server writes with its own slice) and those of Services with a selector are not mirrored;
 * their mirrored slices are deleted.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import type { Controller, ControllerContext } from './controller.js'
import { type Endpoint, type EndpointPort, type SlicePlan, endpointsOf, planSlices, portsOf } from './endpoints/slice-placement.js'
import { selectorOf } from './endpoints/service-pods.js'
import { MANAGED_BY_LABEL, SERVICE_NAME_LABEL } from './endpointslice-controller.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { KeyedQueue, keyOf, splitKey } from './kit/keyed-queue.js'
import { controllerRef } from './kit/owners.js'

const ADMISSION = asControllerServiceAccount('endpointslicemirroring-controller')
export const MIRRORING_CONTROLLER_NAME = 'endpointslicemirroring-controller.k8s.io'
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror'
const MAX_ENDPOINTS_PER_SUBSET = 1000
/** What the reference does not copy from the Endpoints onto its slices. */
const SKIPPED_ANNOTATIONS = new Set(['endpoints.kubernetes.io/last-change-trigger-time', 'kubectl.kubernetes.io/last-applied-configuration'])

type Obj = Record<string, unknown>
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : [])

export class EndpointSliceMirroringController implements Controller {
  readonly name = 'endpointslice-mirroring-controller'
  private queue: KeyedQueue | undefined
  private unsubscribe: (() => void) | undefined
  private services!: GenericStore
  private endpoints!: GenericStore
  private slices!: GenericStore

  constructor(private readonly options: { maxEndpointsPerSubset?: number; onError?: (err: Error) => void } = {}) {}

  async start(ctx: ControllerContext): Promise<void> {
    const services = ctx.registry.lookup('', 'v1', 'services')
    const endpoints = ctx.registry.lookup('', 'v1', 'endpoints')
    const slices = ctx.registry.lookup('discovery.k8s.io', 'v1', 'endpointslices')
    if (!services || !endpoints || !slices) return
    Object.assign(this, { services, endpoints, slices })
    const onError = (err: unknown) => (this.options.onError ?? ((e: Error) => ctx.log(2, `endpointslice mirroring controller: ${e.message}`)))(err as Error)
    this.queue = new KeyedQueue((key) => this.sync(key), { onError })
    this.queue.start()
    this.unsubscribe = ctx.registry.onChange(({ object, strategy }) => {
      if (strategy.group === '' && (strategy.resource === 'endpoints' || strategy.resource === 'services')) this.queue?.add(keyOf(object.metadata.namespace, object.metadata.name))
      else if (strategy.group === 'discovery.k8s.io' && object.metadata.labels?.[MANAGED_BY_LABEL] === MIRRORING_CONTROLLER_NAME) {
        const service = object.metadata.labels?.[SERVICE_NAME_LABEL]
        if (service) this.queue?.add(keyOf(object.metadata.namespace, service))
      }
    })
    for (const e of (await endpoints.list()).items) this.queue.add(keyOf(e.metadata.namespace, e.metadata.name))
  }

  stop(): void {
    this.unsubscribe?.()
    this.queue?.stop()
  }

  private async get(store: GenericStore, namespace: string, name: string): Promise<KubeObject | undefined> {
    try {
      return await store.get(namespace, name)
    } catch (err) {
      if (toApiError(err).status.code === 404) return undefined
      throw err
    }
  }

  private async sync(key: string): Promise<void> {
    const [namespace, name] = splitKey(key)
    const endpoints = await this.get(this.endpoints, namespace, name)
    const service = await this.get(this.services, namespace, name)
    const mirrored = (await this.slices.list({ namespace, labels: [{ key: SERVICE_NAME_LABEL, operator: '=', values: [name] }] })).items.filter(
      (s) => s.metadata.labels?.[MANAGED_BY_LABEL] === MIRRORING_CONTROLLER_NAME && !s.metadata.deletionTimestamp,
    )
    const mirror = endpoints && service && !selectorOf(service) && endpoints.metadata.labels?.[SKIP_MIRROR_LABEL] !== 'true' && !endpoints.metadata.deletionTimestamp
    if (!mirror) {
      for (const slice of mirrored) await this.deleteSlice(slice)
      return
    }
    const owned = mirrored.filter((s) => (s.metadata.ownerReferences as Obj[] | undefined)?.some((r) => r.uid === service.metadata.uid))
    for (const stale of mirrored.filter((s) => !owned.includes(s))) await this.deleteSlice(stale)
    const plans: SlicePlan[] = []
    for (const family of ['IPv4', 'IPv6'] as const) {
      const groups = this.groups(endpoints, family)
      if (groups.size > 0) plans.push(...planSlices(family, groups, owned.filter((s) => s.addressType === family), Number.MAX_SAFE_INTEGER))
    }
    const kept = new Set(plans.map((p) => p.slice?.metadata.uid).filter(Boolean))
    const labels = this.labels(endpoints, name)
    const annotations = Object.fromEntries(Object.entries(endpoints.metadata.annotations ?? {}).filter(([k]) => !SKIPPED_ANNOTATIONS.has(k)))
    for (const plan of plans) await this.write(service, endpoints, plan, labels, annotations)
    for (const slice of owned.filter((s) => !kept.has(s.metadata.uid))) await this.deleteSlice(slice)
  }

  /** The endpoints of each subset's port set for one family, at most the maximum per subset. */
  private groups(endpoints: KubeObject, family: 'IPv4' | 'IPv6'): Map<string, { ports: EndpointPort[]; endpoints: Endpoint[] }> {
    const groups = new Map<string, { ports: EndpointPort[]; endpoints: Endpoint[] }>()
    const max = this.options.maxEndpointsPerSubset ?? MAX_ENDPOINTS_PER_SUBSET
    for (const subset of arr(endpoints.subsets)) {
      const ports: EndpointPort[] = arr(subset.ports).map((p) => ({
        name: String(p.name ?? ''),
        port: p.port as number,
        protocol: String(p.protocol ?? 'TCP'),
        ...(p.appProtocol ? { appProtocol: String(p.appProtocol) } : {}),
      }))
      const listed: Endpoint[] = []
      for (const [addresses, ready] of [
        [arr(subset.addresses), true],
        [arr(subset.notReadyAddresses), false],
      ] as const) {
        for (const address of addresses) {
          const ip = String(address.ip ?? '')
          if ((family === 'IPv6') !== ip.includes(':') || listed.length >= max) continue
          listed.push({
            addresses: [ip],
            conditions: { ready },
            ...(address.hostname ? { hostname: String(address.hostname) } : {}),
            ...(address.targetRef ? { targetRef: address.targetRef as Endpoint['targetRef'] } : {}),
            ...(address.nodeName ? { nodeName: String(address.nodeName) } : {}),
          })
        }
      }
      if (listed.length === 0) continue
      const key = JSON.stringify(ports)
      const group = groups.get(key) ?? { ports, endpoints: [] }
      group.endpoints.push(...listed)
      groups.set(key, group)
    }
    return groups
  }

  private labels(endpoints: KubeObject, service: string): Record<string, string> {
    const labels: Record<string, string> = {}
    for (const [k, v] of Object.entries(endpoints.metadata.labels ?? {})) if (k !== SERVICE_NAME_LABEL && k !== MANAGED_BY_LABEL) labels[k] = v
    labels[SERVICE_NAME_LABEL] = service
    labels[MANAGED_BY_LABEL] = MIRRORING_CONTROLLER_NAME
    return labels
  }

  private async write(service: KubeObject, endpoints: KubeObject, plan: SlicePlan, labels: Record<string, string>, annotations: Record<string, string>): Promise<void> {
    const body = { addressType: plan.family, endpoints: plan.endpoints, ports: plan.ports }
    const meta = { labels, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) }
    if (!plan.slice) {
      await this.slices.create(
        {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: { generateName: `${endpoints.metadata.name}-`, namespace: endpoints.metadata.namespace, ...meta, ownerReferences: [controllerRef(service, 'v1', 'Service')] },
          ...body,
        },
        { admission: ADMISSION },
      )
      return
    }
    const slice = plan.slice
    const same =
      JSON.stringify(endpointsOf(slice)) === JSON.stringify(plan.endpoints) &&
      JSON.stringify(portsOf(slice)) === JSON.stringify(plan.ports) &&
      JSON.stringify(slice.metadata.labels ?? {}) === JSON.stringify(labels) &&
      JSON.stringify(slice.metadata.annotations ?? {}) === JSON.stringify(annotations)
    if (same) return
    await this.slices.update(slice.metadata.namespace, slice.metadata.name!, (latest) => ({ ...latest, metadata: { ...latest.metadata, resourceVersion: slice.metadata.resourceVersion, ...meta }, ...body }), { admission: ADMISSION })
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
