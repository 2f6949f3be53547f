/**
 * The resource metrics API (`metrics.k8s.io/v1beta1`: NodeMetrics and PodMetrics, get and list,
 * pods by namespace and label selector) of a whole cluster, served in process from the simulated
 * usage (simulated-usage.ts) where the reference runs metrics-server behind the aggregator.
 *
 * It registers the APIService `v1beta1.metrics.k8s.io` with metrics-server's priorities and no
 * service: the aggregator then shows it as a local one (Available, reason `Local`), and its
 * requests come here through the aggregation layer's seam (`AggregatedApis.remote`), before the
 * local delegate, as they would reach an extension server. A NodeMetrics is the sum of its
 * Running pods' usage; objects carry metrics-server's fields (timestamp, window, labels).
 */
import type { AggregatedApis } from '../api/aggregated-apis.js'
import { negotiateOutput, writeErrorNegotiated, writeObject } from '../api/negotiation.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import type { Strategy } from '../api/registry/strategy.js'
import { errors, toApiError } from '../api/status-errors.js'
import type { Controller, ControllerContext } from '../controllers/controller.js'
import type { PodResourceMetrics } from '../controllers/horizontal-pod-autoscaler.js'
import { type Clock, SYSTEM_CLOCK } from '../controllers/clock.js'
import type { Handler } from '../http/types.js'
import { matchesLabels, parseLabelSelector, SelectorError } from '../../core/util/selectors.js'
import { cpuQuantity, memoryQuantity, simulatedContainerUsage } from './simulated-usage.js'

export const METRICS_GROUP = 'metrics.k8s.io'
export const METRICS_VERSION = 'v1beta1'
const GROUP_VERSION = `${METRICS_GROUP}/${METRICS_VERSION}`
/** metrics-server's APIService (its manifests: groupPriorityMinimum 100, versionPriority 100). */
const API_SERVICE_NAME = `${METRICS_VERSION}.${METRICS_GROUP}`
/** The window metrics-server reports for a kubelet's cumulative CPU rate (its default resolution). */
const WINDOW_SECONDS = 15
const WINDOW = `${WINDOW_SECONDS}s`

/** metrics-server's APIResourceList (get and list only; no short names). */
const RESOURCE_LIST = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: GROUP_VERSION,
  resources: [
    { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
    { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
  ],
}

/** The two kinds as discovery lists them beside the local ones. */
const KINDS = RESOURCE_LIST.resources.map(
  (r) => ({ group: METRICS_GROUP, version: METRICS_VERSION, resource: r.name, kind: r.kind, singular: r.singularName, namespaced: r.namespaced, verbs: r.verbs, shortNames: [], categories: [], subresources: [], customResource: true }) as unknown as Strategy,
)

type Json = Record<string, unknown>
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {})

export class SimulatedMetricsApi implements Controller {
  readonly name = 'metrics-server'
  private registry: Registry | undefined
  private readonly clock: Clock

  constructor(clock?: Clock) {
    this.clock = clock ?? SYSTEM_CLOCK
  }

  /** Follows the registry and registers the APIService (once; an operator's own is left alone). */
  async start(ctx: ControllerContext): Promise<void> {
    this.registry = ctx.registry
    const apiServices = ctx.registry.lookup('apiregistration.k8s.io', 'v1', 'apiservices')
    if (!apiServices) return
    try {
      await apiServices.create(
        { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: API_SERVICE_NAME }, spec: { service: null, group: METRICS_GROUP, version: METRICS_VERSION, groupPriorityMinimum: 100, versionPriority: 100 } },
        { admission: false },
      )
    } catch (err) {
      if (toApiError(err).status.code !== 409) ctx.log(2, `registering ${API_SERVICE_NAME}: ${(err as Error).message}`)
    }
  }

  stop(): void {
    this.registry = undefined
  }

  /** The same numbers as the resource metrics client reads them (thousandths), for the autoscaler. */
  readonly podResourceMetrics: PodResourceMetrics = (pod) => {
    const usage = simulatedContainerUsage(pod)
    if (!usage) return undefined
    return { timestamp: Math.floor(this.clock.now() / 1000) * 1000, windowMs: WINDOW_SECONDS * 1000, containers: usage.map((c) => ({ name: c.name, usage: { cpu: c.cpuMilli, memory: c.memoryBytes * 1000 } })) }
  }

  /** The aggregation seam with this group version served here, the others as `inner` serves them. */
  besides(inner: AggregatedApis): AggregatedApis {
    return {
      remote: (group, version) => (group === METRICS_GROUP && version === METRICS_VERSION ? this.handler : inner.remote(group, version)),
      discoveredKinds: () => [...inner.discoveredKinds(), ...KINDS],
      openApiV3Documents: () => inner.openApiV3Documents(),
      openApiV2Documents: () => inner.openApiV2Documents(),
      openApiRevision: () => inner.openApiRevision(),
    }
  }

  readonly handler: Handler = async (req, res, ctx) => {
    const output = negotiateOutput(req.headers.accept, { table: false })
    try {
      const { info } = ctx
      if (req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotAllowed()
      if (!info.resource) return await writeObject(res, 200, RESOURCE_LIST, output)
      const registry = this.registry
      if (!registry) throw errors.serviceUnavailable('the metrics API is not started yet', 1)
      const selector = parseSelector(ctx.url.searchParams.get('labelSelector'))
      if (info.resource === 'nodes' && !info.namespace) return await writeObject(res, 200, await this.nodes(registry, info.name, selector), output)
      if (info.resource === 'pods') return await writeObject(res, 200, await this.pods(registry, info.namespace, info.name, selector), output)
      throw errors.notFound({ group: METRICS_GROUP, resource: info.resource }, info.name ?? '')
    } catch (err) {
      await writeErrorNegotiated(req, res, toApiError(err))
    }
  }

  private timestamp(): string {
    return new Date(Math.floor(this.clock.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z')
  }

  private async pods(registry: Registry, namespace: string | undefined, name: string | undefined, selector: Selector): Promise<Json> {
    const store = registry.lookup('', 'v1', 'pods')!
    const pods = name !== undefined ? [await getOrNotFound(() => store.get(namespace, name), 'podmetrics', `${namespace ?? ''}/${name}`)] : (await store.list({ namespace })).items.filter((p) => selector(p.metadata.labels))
    const items = pods.flatMap((pod) => {
      const usage = simulatedContainerUsage(pod)
      if (!usage) return []
      return [{ metadata: metricsMeta(pod), timestamp: this.timestamp(), window: WINDOW, containers: usage.map((c) => ({ name: c.name, usage: { cpu: cpuQuantity(c.cpuMilli), memory: memoryQuantity(c.memoryBytes) } })) }]
    })
    if (name !== undefined) {
      if (items.length === 0) throw notFound('podmetrics', `${namespace ?? ''}/${name}`)
      return { kind: 'PodMetrics', apiVersion: GROUP_VERSION, ...items[0] }
    }
    return { kind: 'PodMetricsList', apiVersion: GROUP_VERSION, metadata: {}, items }
  }

  private async nodes(registry: Registry, name: string | undefined, selector: Selector): Promise<Json> {
    const nodeStore = registry.lookup('', 'v1', 'nodes')!
    const nodes = name !== undefined ? [await getOrNotFound(() => nodeStore.get(undefined, name), 'nodemetrics', name)] : (await nodeStore.list()).items.filter((n) => selector(n.metadata.labels))
    const totals = new Map<string, { cpuMilli: number; memoryBytes: number }>()
    for (const pod of (await registry.lookup('', 'v1', 'pods')!.list()).items) {
      const node = obj(pod.spec).nodeName
      const usage = typeof node === 'string' ? simulatedContainerUsage(pod) : undefined
      if (!usage) continue
      const total = totals.get(node as string) ?? { cpuMilli: 0, memoryBytes: 0 }
      for (const c of usage) {
        total.cpuMilli += c.cpuMilli
        total.memoryBytes += c.memoryBytes
      }
      totals.set(node as string, total)
    }
    const items = nodes.map((node) => {
      const total = totals.get(node.metadata.name ?? '') ?? { cpuMilli: 0, memoryBytes: 0 }
      return { metadata: metricsMeta(node), timestamp: this.timestamp(), window: WINDOW, usage: { cpu: cpuQuantity(total.cpuMilli), memory: memoryQuantity(total.memoryBytes) } }
    })
    if (name !== undefined) return { kind: 'NodeMetrics', apiVersion: GROUP_VERSION, ...items[0] }
    return { kind: 'NodeMetricsList', apiVersion: GROUP_VERSION, metadata: {}, items }
  }
}

type Selector = (labels: Record<string, string> | undefined) => boolean

function parseSelector(text: string | null): Selector {
  try {
    const reqs = parseLabelSelector(text)
    return (labels) => matchesLabels(reqs, labels)
  } catch (err) {
    if (err instanceof SelectorError) throw errors.badRequest(err.message)
    throw err
  }
}

/** metrics-server's NotFound (`podmetrics.metrics.k8s.io "default/web" not found`). */
const notFound = (resource: string, name: string) => errors.notFound({ group: METRICS_GROUP, resource }, name)

async function getOrNotFound(get: () => Promise<KubeObject>, resource: string, name: string): Promise<KubeObject> {
  try {
    return await get()
  } catch (err) {
    if (toApiError(err).status.code === 404) throw notFound(resource, name)
    throw err
  }
}

/** The metadata metrics-server copies from the pod or node: name, namespace, labels, creation time. */
function metricsMeta(o: KubeObject): Json {
  const m = o.metadata
  return { name: m.name, ...(m.namespace ? { namespace: m.namespace } : {}), creationTimestamp: m.creationTimestamp, ...(m.labels ? { labels: m.labels } : {}) }
}
