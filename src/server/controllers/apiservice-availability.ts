/**
 * The availability of the APIServices backed by a service (the reference's remote
 * AvailableConditionController, kube-aggregator pkg/controllers/status/remote): the service must
 * exist (ServiceNotFound), a ClusterIP one must list the port (ServicePortError) and have ready
 * endpoints for it (EndpointsNotFound, MissingEndpoints), and a discovery GET of
 * `/apis/<group>/<version>` on the resolved endpoint must answer 2xx or 3xx within 5 s
 * (FailedDiscoveryCheck); then `Available` is True with reason `Passed`. The condition is written
 * through the status subresource only when it changes. APIServices are checked again when they,
 * their Service, Endpoints or EndpointSlices change, every 30 s, and sooner after a failure.
 */
import type { Registry } from '../api/registry/registry.js'
import type { KubeObject } from '../api/registry/object.js'
import { endpointUrl, extensionGet } from '../aggregator/extension-get.js'
import { ResolveError, type ServiceResolver, endpointAddresses, getService } from '../aggregator/service-resolver.js'
import { type ProxyClientCertificate, extensionServerTls } from '../aggregator/transport.js'
import type { EgressDialer } from '../egress/dialer.js'
import type { Controller, ControllerContext } from './controller.js'

type Json = Record<string, unknown>
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' ? (v as Json) : {})

const RESYNC_MS = 30_000
const MAX_BACKOFF_MS = 30_000
const DISCOVERY_TIMEOUT_MS = 5_000

interface Condition {
  type: 'Available'
  status: 'True' | 'False' | 'Unknown'
  reason: string
  message: string
}

export interface AvailabilityDeps {
  resolver: ServiceResolver
  client?: ProxyClientCertificate
  dialer?: EgressDialer
}

export class APIServiceAvailabilityController implements Controller {
  readonly name = 'apiservice-status-remote-available-controller'
  private unsubscribe: (() => void) | undefined
  private resync: NodeJS.Timeout | undefined
  private readonly retries = new Map<string, { timer: NodeJS.Timeout; attempt: number }>()
  private readonly running = new Map<string, Promise<void>>()
  private readonly again = new Set<string>()
  private stopped = false

  constructor(private readonly deps: AvailabilityDeps) {}

  start(ctx: ControllerContext): void {
    const { registry } = ctx
    this.unsubscribe = registry.onChange((change) => {
      const { group, resource } = change.strategy
      if (group === 'apiregistration.k8s.io' && resource === 'apiservices') {
        if (change.type !== 'deleted') this.enqueue(ctx, change.object.metadata.name ?? '')
        return
      }
      const serviceName = serviceNameOf(group, resource, change.object)
      if (serviceName !== undefined) void this.enqueueFor(ctx, change.object.metadata.namespace ?? '', serviceName)
    })
    const all = () => void this.enqueueAll(ctx)
    all()
    this.resync = setInterval(all, RESYNC_MS)
    this.resync.unref()
  }

  stop(): void {
    this.stopped = true
    this.unsubscribe?.()
    clearInterval(this.resync)
    for (const { timer } of this.retries.values()) clearTimeout(timer)
    this.retries.clear()
  }

  private async enqueueAll(ctx: ControllerContext): Promise<void> {
    const store = apiServices(ctx.registry)
    if (!store) return
    try {
      for (const o of (await store.list()).items) if (obj(o.spec).service) this.enqueue(ctx, o.metadata.name ?? '')
    } catch (err) {
      ctx.log(2, `apiservice availability: ${(err as Error).message}`)
    }
  }

  private async enqueueFor(ctx: ControllerContext, namespace: string, serviceName: string): Promise<void> {
    const store = apiServices(ctx.registry)
    if (!store) return
    for (const o of (await store.list()).items) {
      const service = obj(obj(o.spec).service)
      if (service.namespace === namespace && service.name === serviceName) this.enqueue(ctx, o.metadata.name ?? '')
    }
  }

  /** One check at a time per APIService; a change during a check asks for one more. */
  private enqueue(ctx: ControllerContext, name: string): void {
    if (this.stopped || name === '') return
    if (this.running.has(name)) {
      this.again.add(name)
      return
    }
    const run = this.sync(ctx, name)
      .then(
        () => this.forget(name),
        (err: Error) => {
          ctx.log(2, `${name} failed with: ${err.message}`)
          this.retryLater(ctx, name)
        },
      )
      .finally(() => {
        this.running.delete(name)
        if (this.again.delete(name)) this.enqueue(ctx, name)
      })
    this.running.set(name, run)
  }

  private forget(name: string): void {
    const retry = this.retries.get(name)
    if (retry) clearTimeout(retry.timer)
    this.retries.delete(name)
  }

  /** The reference's rate limiter: 5 ms doubled per failure, at most 30 s. */
  private retryLater(ctx: ControllerContext, name: string): void {
    const attempt = (this.retries.get(name)?.attempt ?? 0) + 1
    const previous = this.retries.get(name)
    if (previous) clearTimeout(previous.timer)
    const timer = setTimeout(() => this.enqueue(ctx, name), Math.min(5 * 2 ** attempt, MAX_BACKOFF_MS))
    timer.unref()
    this.retries.set(name, { timer, attempt })
  }

  /** Checks one APIService and writes its condition; rejects (to be tried again) when the discovery check failed. */
  private async sync(ctx: ControllerContext, name: string): Promise<void> {
    const store = apiServices(ctx.registry)
    if (!store) return
    let apiService: KubeObject
    try {
      apiService = await store.get(undefined, name)
    } catch {
      return
    }
    const spec = obj(apiService.spec)
    const service = spec.service ? obj(spec.service) : undefined
    // Local APIServices are the local controller's: always available.
    if (!service) return
    const { condition, retry } = await this.check(ctx.registry, name, spec, service)
    await writeCondition(ctx, name, condition)
    if (retry) throw new Error(condition.message)
  }

  private async check(registry: Registry, name: string, spec: Json, ref: Json): Promise<{ condition: Condition; retry?: boolean }> {
    const namespace = String(ref.namespace ?? '')
    const serviceName = String(ref.name ?? '')
    const port = Number(ref.port ?? 443)
    const unavailable = (reason: string, message: string): { condition: Condition } => ({ condition: { type: 'Available', status: 'False', reason, message } })
    const service = await getService(registry, namespace, serviceName)
    if (!service) return unavailable('ServiceNotFound', `service/${serviceName} in ${JSON.stringify(namespace)} is not present`)
    const serviceSpec = obj(service.spec)
    if ((serviceSpec.type ?? 'ClusterIP') === 'ClusterIP') {
      const servicePort = (Array.isArray(serviceSpec.ports) ? serviceSpec.ports : []).map(obj).find((p) => p.port === port)
      if (!servicePort) return unavailable('ServicePortError', `service/${serviceName} in ${JSON.stringify(namespace)} is not listening on port ${port}`)
      const portName = String(servicePort.name ?? '')
      const { found, addresses } = await endpointAddresses(registry, namespace, serviceName, portName)
      if (!found) return unavailable('EndpointsNotFound', `cannot find endpointslices for service/${serviceName} in ${JSON.stringify(namespace)}`)
      if (!addresses.some((a) => a.ready)) return unavailable('MissingEndpoints', `endpointslices for service/${serviceName} in ${JSON.stringify(namespace)} have no addresses with port name ${JSON.stringify(portName)}`)
    }
    // The discovery GET the extension server is required to answer.
    const path = name === 'v1.' ? `/api/${String(spec.version ?? '')}` : `/apis/${String(spec.group ?? '')}/${String(spec.version ?? '')}`
    let failure: string | undefined
    try {
      const endpoint = await this.deps.resolver(registry, namespace, serviceName, port)
      try {
        const reply = await extensionGet(endpoint, path, extensionServerTls(spec, this.deps.client), { timeoutMs: DISCOVERY_TIMEOUT_MS, ...(this.deps.dialer ? { dialer: this.deps.dialer } : {}) })
        const url = endpointUrl(endpoint, path)
        if (reply.status < 200 || reply.status >= 300) failure = `failing or missing response from ${url}: bad status from ${url}: ${reply.status}`
      } catch (err) {
        failure = `failing or missing response from ${endpointUrl(endpoint, path)}: ${(err as Error).message}`
      }
    } catch (err) {
      if (!(err instanceof ResolveError)) throw err
      failure = err.message
    }
    if (failure !== undefined) return { ...unavailable('FailedDiscoveryCheck', failure), retry: true }
    return { condition: { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' } }
  }
}

/** The service a Service, Endpoints or EndpointSlice change is about. */
function serviceNameOf(group: string, resource: string, object: KubeObject): string | undefined {
  if (group === '' && (resource === 'services' || resource === 'endpoints')) return object.metadata.name
  if (group === 'discovery.k8s.io' && resource === 'endpointslices') return object.metadata.labels?.['kubernetes.io/service-name']
  return undefined
}

/** SetAPIServiceCondition through the status subresource, only when the condition changed (its transition time kept otherwise). */
async function writeCondition(ctx: ControllerContext, name: string, condition: Condition): Promise<void> {
  const store = apiServices(ctx.registry)
  if (!store) return
  const current = await store.get(undefined, name)
  const conditions = (Array.isArray(obj(current.status).conditions) ? (obj(current.status).conditions as Json[]) : []).map(obj)
  const existing = conditions.find((c) => c.type === 'Available')
  if (existing && existing.status === condition.status && existing.reason === condition.reason && existing.message === condition.message) return
  if (!existing || existing.status !== condition.status) ctx.log(2, `changing APIService availability name=${JSON.stringify(name)} oldStatus=${JSON.stringify(existing?.status ?? 'Unknown')} newStatus=${JSON.stringify(condition.status)} message=${JSON.stringify(condition.message)} reason=${JSON.stringify(condition.reason)}`)
  await store.update(
    undefined,
    name,
    (o) => {
      const status = obj(o.status)
      const list = (Array.isArray(status.conditions) ? (status.conditions as Json[]) : []).map(obj)
      const before = list.find((c) => c.type === 'Available')
      const lastTransitionTime = before && before.status === condition.status ? before.lastTransitionTime : new Date().toISOString().replace(/\.\d+Z$/, 'Z')
      o.status = { ...status, conditions: [...list.filter((c) => c.type !== 'Available'), { type: condition.type, status: condition.status, lastTransitionTime, reason: condition.reason, message: condition.message }] }
      return o
    },
    { subresource: 'status' },
  )
}

const apiServices = (registry: Registry) => registry.lookup('apiregistration.k8s.io', 'v1', 'apiservices')
