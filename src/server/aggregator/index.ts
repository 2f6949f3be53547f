/**
 * The aggregation layer (the reference's kube-aggregator in front of the local API): it follows
 * the APIServices (its `apiservice-registration-controller` post-start hook starts that), and for
 * each one backed by a service keeps a proxy (proxy.ts) and, once it is available, the
 * extension server's discovery (its APIResourceList) and OpenAPI v2 and v3 documents, fetched again every
 * 30 s and whenever the APIService changes, for discovery and /openapi to merge.
 */
import type { AggregatedApis } from '../api/aggregated-apis.js'
import type { Registry } from '../api/registry/registry.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Strategy } from '../api/registry/strategy.js'
import type { ServerConfig } from '../config.js'
import type { EgressDialer } from '../egress/dialer.js'
import { INSTALLED_DIALER } from '../egress/installed.js'
import type { Handler } from '../http/types.js'
import { extensionGet } from './extension-get.js'
import { type FrontProxyHeaders, frontProxyHeaders, proxyHandler } from './proxy.js'
import { type ResolvedEndpoint, type ServiceResolver, serviceResolver } from './service-resolver.js'
import { ExtensionServerAgent, type ProxyClientCertificate, connectExtensionServer, extensionServerTls, loadProxyClientCertificate } from './transport.js'

type Json = Record<string, unknown>
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' ? (v as Json) : {})
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])

const REFRESH_MS = 30_000
const FETCH_TIMEOUT_MS = 5_000

interface RemoteApiService {
  name: string
  group: string
  version: string
  handler: Handler
  agent: ExtensionServerAgent
  spec: Json
  available: boolean
  kinds: Strategy[]
  openApiV2?: Json
  openApiV3?: Json
  /** The resolution, until a Service, Endpoints or EndpointSlice changes. */
  endpoint?: Promise<ResolvedEndpoint>
}

export class Aggregator implements AggregatedApis {
  private readonly byGroupVersion = new Map<string, RemoteApiService>()
  private registry: Registry | undefined
  private unsubscribe: (() => void) | undefined
  private refresh: NodeJS.Timeout | undefined
  private readonly resolver: ServiceResolver
  private readonly client: ProxyClientCertificate | undefined
  private readonly headers: FrontProxyHeaders
  /** Counts the changes of the extension servers' documents. */
  private revision = 0

  constructor(
    private readonly config: ServerConfig,
    private readonly log: (level: number, message: string) => void,
    private readonly dialer: EgressDialer = INSTALLED_DIALER,
  ) {
    this.resolver = serviceResolver(config.enableAggregatorRouting)
    this.client = loadProxyClientCertificate(config)
    this.headers = frontProxyHeaders(config)
  }

  /** Follows the registry's APIServices (and the services they name); resolves once they are read. */
  async follow(registry: Registry): Promise<void> {
    if (this.registry === registry) return
    this.stop()
    this.registry = registry
    this.unsubscribe = registry.onChange((change) => {
      const { group, resource } = change.strategy
      if (group === 'apiregistration.k8s.io' && resource === 'apiservices') {
        if (change.type === 'deleted') this.forget(change.object)
        else this.upsert(change.object)
      } else if ((group === '' && (resource === 'services' || resource === 'endpoints')) || (group === 'discovery.k8s.io' && resource === 'endpointslices')) {
        for (const remote of this.byGroupVersion.values()) delete remote.endpoint
      }
    })
    const store = registry.lookup('apiregistration.k8s.io', 'v1', 'apiservices')
    for (const o of (await store?.list())?.items ?? []) this.upsert(o)
    this.refresh = setInterval(() => {
      for (const remote of this.byGroupVersion.values()) void this.fetchDocuments(remote)
    }, REFRESH_MS)
    this.refresh.unref()
  }

  stop(): void {
    this.unsubscribe?.()
    clearInterval(this.refresh)
    for (const remote of this.byGroupVersion.values()) remote.agent.destroy()
    this.byGroupVersion.clear()
  }

  remote(group: string, version: string): Handler | undefined {
    return this.byGroupVersion.get(`${group}/${version}`)?.handler
  }

  discoveredKinds(): readonly Strategy[] {
    return [...this.byGroupVersion.values()].filter((r) => r.available).flatMap((r) => r.kinds)
  }

  openApiV3Documents(): ReadonlyMap<string, Json> {
    return new Map([...this.byGroupVersion.values()].filter((r) => r.available && r.openApiV3).map((r) => [`apis/${r.group}/${r.version}`, r.openApiV3!]))
  }

  openApiRevision(): number {
    return this.revision
  }

  openApiV2Documents(): readonly Json[] {
    return [...this.byGroupVersion.values()].filter((r) => r.available && r.openApiV2).map((r) => r.openApiV2!)
  }

  /** The endpoint of a remote APIService's service, resolved once until something changes. */
  private resolve(remote: RemoteApiService): Promise<ResolvedEndpoint> {
    const registry = this.registry
    if (!registry) return Promise.reject(new Error('the APIServices are not followed yet'))
    const service = obj(remote.spec.service)
    const resolved = (remote.endpoint ??= this.resolver(registry, String(service.namespace ?? ''), String(service.name ?? ''), Number(service.port ?? 443)))
    resolved.catch(() => {
      if (remote.endpoint === resolved) delete remote.endpoint
    })
    return resolved
  }

  private upsert(apiService: KubeObject): void {
    const spec = obj(apiService.spec)
    const key = `${String(spec.group ?? '')}/${String(spec.version ?? '')}`
    const existing = this.byGroupVersion.get(key)
    if (!spec.service) {
      if (existing) this.forget(apiService)
      return
    }
    const available = arr(obj(apiService.status).conditions).map(obj).some((c) => c.type === 'Available' && c.status === 'True')
    if (existing && JSON.stringify(existing.spec) === JSON.stringify(spec)) {
      const becameAvailable = available && !existing.available
      if (available !== existing.available) this.revision++
      existing.available = available
      if (becameAvailable) void this.fetchDocuments(existing)
      return
    }
    existing?.agent.destroy()
    const agent = new ExtensionServerAgent(extensionServerTls(spec, this.client), this.dialer)
    const remote: RemoteApiService = { name: apiService.metadata.name ?? '', group: String(spec.group ?? ''), version: String(spec.version ?? ''), spec, available, agent, kinds: [], handler: () => undefined }
    const tls = extensionServerTls(spec, this.client)
    remote.handler = proxyHandler(
      { get available() { return remote.available }, resolve: () => this.resolve(remote), agent, connect: (endpoint) => connectExtensionServer(endpoint.host, endpoint.port, tls, this.dialer) },
      { headers: this.headers, rejectForwardingRedirects: this.config.aggregatorRejectForwardingRedirect, log: this.log },
    )
    this.byGroupVersion.set(key, remote)
    if (available) void this.fetchDocuments(remote)
  }

  private forget(apiService: KubeObject): void {
    const spec = obj(apiService.spec)
    const key = `${String(spec.group ?? '')}/${String(spec.version ?? '')}`
    const remote = this.byGroupVersion.get(key)
    if (remote && remote.name === apiService.metadata.name) {
      this.revision++
      remote.agent.destroy()
      this.byGroupVersion.delete(key)
    }
  }

  /** The extension server's APIResourceList of its group version and its OpenAPI v2 document. */
  private async fetchDocuments(remote: RemoteApiService): Promise<void> {
    if (!remote.available) return
    try {
      const endpoint = await this.resolve(remote)
      const tls = extensionServerTls(remote.spec, this.client)
      const list = await extensionGet(endpoint, `/apis/${remote.group}/${remote.version}`, tls, { timeoutMs: FETCH_TIMEOUT_MS, dialer: this.dialer })
      if (list.status === 200) remote.kinds = kindsOf(remote.group, remote.version, JSON.parse(list.body.toString('utf8')) as Json)
      const v2 = await extensionGet(endpoint, '/openapi/v2', tls, { timeoutMs: FETCH_TIMEOUT_MS, dialer: this.dialer })
      const v3 = await extensionGet(endpoint, `/openapi/v3/apis/${remote.group}/${remote.version}`, tls, { timeoutMs: FETCH_TIMEOUT_MS, dialer: this.dialer })
      const before = JSON.stringify([remote.openApiV2, remote.openApiV3])
      if (v2.status === 200) remote.openApiV2 = JSON.parse(v2.body.toString('utf8')) as Json
      if (v3.status === 200) remote.openApiV3 = JSON.parse(v3.body.toString('utf8')) as Json
      if (JSON.stringify([remote.openApiV2, remote.openApiV3]) !== before) this.revision++
    } catch (err) {
      this.log(2, `fetching the discovery of ${remote.name}: ${(err as Error).message}`)
    }
  }
}

/** An APIResourceList as the kinds discovery lists (subresources folded into their resource). */
export function kindsOf(group: string, version: string, list: Json): Strategy[] {
  const resources = arr(list.resources).map(obj)
  const main = resources.filter((r) => !String(r.name ?? '').includes('/'))
  return main.map((r) => {
    const name = String(r.name ?? '')
    const subresources = resources.map((s) => String(s.name ?? '')).filter((s) => s.startsWith(`${name}/`)).map((s) => s.slice(name.length + 1))
    const kind = {
      group,
      version,
      resource: name,
      kind: String(r.kind ?? ''),
      singular: String(r.singularName ?? ''),
      namespaced: r.namespaced === true,
      verbs: arr(r.verbs).map(String),
      shortNames: arr(r.shortNames).map(String),
      categories: arr(r.categories).map(String),
      subresources,
      // Listed as the custom kinds are: by its fields, not by identity.
      customResource: true,
    }
    return kind as unknown as Strategy
  })
}
