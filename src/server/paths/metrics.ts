/**
 * The server's Prometheus metrics at /metrics, on a registry of its own (never prom-client's
 * global one): the reference's request count, request latency, in-flight and health-check
 * series with the reference's names, labels and buckets, plus prom-client's process metrics.
 *
 * Labels follow the reference's request instrumentation: the verb is the upper-case method
 * made canonical (GET on a collection is LIST, a watch is WATCH, a server-side apply PATCH is
 * APPLY, anything unknown is `other`) and the scope is `resource`, `namespace`, `cluster`,
 * or empty for non-resource requests. The reference's `dry_run` label is not carried.
 */
import { Counter, Gauge, Histogram, collectDefaultMetrics } from 'prom-client'
import { BINARY_VERSION } from '../../core/flags/context.js'
import { httpError } from '../http/respond.js'
import { onSettled } from '../http/settled.js'
import type { Filter, Handler, Request, RequestContext, RequestInfo, Response } from '../http/types.js'
import { type MetricsPolicy, NO_METRICS_POLICY, PolicedRegistry } from './metrics-policy.js'

export const COMPONENT = 'apiserver'

/** The reference's apiserver_request_duration_seconds buckets. */
export const REQUEST_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
]

const REQUEST_LABELS = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const
type RequestLabelName = (typeof REQUEST_LABELS)[number]
type RequestLabels = Record<RequestLabelName, string>

/** One label set's request count per code and latency histogram (buckets not cumulative). */
export interface RequestSeries {
  readonly labels: RequestLabels
  readonly codes: Map<string, number>
  readonly buckets: number[]
  sum: number
  count: number
}

/** prom-client's own entry of a histogram series (filled in at scrape time). */
interface HistogramEntry {
  labels: object
  bucketValues: Record<number, number>
  sum: number
  count: number
}

function seriesKey(labels: RequestLabels): string {
  return `${labels.verb}\u0000${labels.group}\u0000${labels.version}\u0000${labels.resource}\u0000${labels.subresource}\u0000${labels.scope}`
}

function recordRequest(series: RequestSeries, code: number | string, seconds: number): void {
  const c = typeof code === 'string' ? code : String(code)
  series.codes.set(c, (series.codes.get(c) ?? 0) + 1)
  // A loop, not findIndex: its callback closed over `seconds`, a closure per request.
  for (let i = 0; i < REQUEST_DURATION_BUCKETS.length; i++) {
    if (seconds <= REQUEST_DURATION_BUCKETS[i]!) {
      series.buckets[i]!++
      break
    }
  }
  series.sum += seconds
  series.count++
}

type RequestKind = 'readOnly' | 'mutating'
type HealthCheckType = 'healthz' | 'livez' | 'readyz'

/** The verbs the reference reports as they are; any other becomes `other` (bounded cardinality). */
const VALID_VERBS = new Set([
  'APPLY', 'CONNECT', 'CREATE', 'DELETE', 'DELETECOLLECTION', 'GET', 'LIST', 'PATCH', 'POST', 'PROXY', 'PUT', 'UPDATE', 'WATCH', 'WATCHLIST',
])
const APPLY_PATCH_TYPE = 'application/apply-patch+yaml'
const READ_ONLY_VERBS = new Set(['get', 'list', 'watch'])

/** What the health subsystem records of each check (see health/results.ts). */
interface HealthCheckResult {
  word: HealthCheckType
  name: string
  ok: boolean
  successes: number
  failures: number
}

interface ServerMetricsOptions {
  /** Register prom-client's default process and Node.js metrics (default true). */
  defaultMetrics?: boolean
  /** --disabled-metrics, --show-hidden-metrics-for-version, --allow-metric-labels(-manifest). */
  policy?: MetricsPolicy
}

export class ServerMetrics {
  readonly registry: PolicedRegistry
  readonly requestTotal: Counter<RequestLabelName | 'code'>
  readonly requestDuration: Histogram<RequestLabelName>
  readonly inflightRequests: Gauge<'request_kind'>
  readonly healthcheck: Gauge<'name' | 'type'>
  readonly healthchecksTotal: Counter<'name' | 'type' | 'status'>

  /** Requests now in flight, and the most in flight since the previous scrape, per kind. */
  private readonly inflight: Record<RequestKind, { current: number; max: number }> = {
    readOnly: { current: 0, max: 0 },
    mutating: { current: 0, max: 0 },
  }

  /**
   * The request count and latency per label set, kept here and handed to prom-client only
   * when scraped: prom-client validates and hashes the labels on every call, which the
   * request path would pay twice per request. A request finds its series by one string key.
   */
  private readonly series = new Map<string, RequestSeries>()

  constructor(options: ServerMetricsOptions = {}) {
    this.registry = new PolicedRegistry(options.policy ?? NO_METRICS_POLICY, BINARY_VERSION)
    const registers = [this.registry]
    const series = this.series
    this.requestTotal = new Counter({
      name: 'apiserver_request_total',
      help: '[STABLE] Counter of apiserver requests broken out for each verb, group, version, resource, scope, component, and HTTP response code.',
      labelNames: [...REQUEST_LABELS, 'code'],
      registers,
      collect() {
        this.reset()
        for (const one of series.values()) for (const [code, n] of one.codes) this.inc({ ...one.labels, code }, n)
      },
    })
    this.requestDuration = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: '[STABLE] Response latency distribution in seconds for each verb, group, version, resource, subresource, scope and component.',
      labelNames: [...REQUEST_LABELS],
      buckets: [...REQUEST_DURATION_BUCKETS],
      registers,
      collect() {
        this.reset()
        for (const one of series.values()) this.zero(one.labels)
        // zero() made one entry per series holding that very labels object; fill it in.
        const byLabels = new Map([...series.values()].map((one) => [one.labels, one]))
        for (const entry of Object.values((this as unknown as { hashMap: Record<string, HistogramEntry> }).hashMap)) {
          const one = byLabels.get(entry.labels as RequestLabels)
          if (!one) continue
          REQUEST_DURATION_BUCKETS.forEach((bound, i) => (entry.bucketValues[bound] = one.buckets[i]!))
          entry.sum = one.sum
          entry.count = one.count
        }
      },
    })
    const inflight = this.inflight
    this.inflightRequests = new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: '[STABLE] Maximal number of requests in flight (long-running requests excluded) per request kind since the previous scrape.',
      labelNames: ['request_kind'],
      registers,
      // A watermark, as the reference reports, rather than the instant value: the most seen
      // since the previous scrape, which then starts again from what is in flight now.
      collect() {
        for (const kind of ['readOnly', 'mutating'] as const) {
          const slot = inflight[kind]
          this.set({ request_kind: kind }, slot.max)
          slot.max = slot.current
        }
      },
    })
    this.healthcheck = new Gauge({
      name: 'kubernetes_healthcheck',
      help: '[STABLE] This metric records the result of a single healthcheck.',
      labelNames: ['name', 'type'],
      registers,
    })
    this.healthchecksTotal = new Counter({
      name: 'kubernetes_healthchecks_total',
      help: '[STABLE] This metric records the results of all healthcheck.',
      labelNames: ['name', 'type', 'status'],
      registers,
    })
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry })
  }

  get contentType(): string {
    return this.registry.contentType
  }

  metrics(): Promise<string> {
    return this.registry.metrics()
  }

  observeRequest(labels: RequestLabels, code: number | string, seconds: number): void {
    recordRequest(this.seriesFor(labels), code, seconds)
  }

  /** The series of a label set, made on first use; callers keep it (a pre-bound label set). */
  seriesFor(labels: RequestLabels, key: string = seriesKey(labels)): RequestSeries {
    let one = this.series.get(key)
    if (!one) this.series.set(key, (one = { labels: { ...labels }, codes: new Map(), buckets: REQUEST_DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 }))
    return one
  }

  /** The series of a label set by its key (`seriesKey`), if it has been made. */
  seriesByKey(key: string): RequestSeries | undefined {
    return this.series.get(key)
  }

  /** Counts a request in flight; call the returned function once when it is over. */
  requestStarted(kind: RequestKind): () => void {
    const slot = this.inflight[kind]
    slot.current++
    if (slot.current > slot.max) slot.max = slot.current
    let done = false
    return () => {
      if (done) return
      done = true
      slot.current--
    }
  }

  /**
   * Reads the health checks' results when scraped, rather than on every check run: probes
   * run many checks per request and must stay cheap.
   */
  reportHealthChecks(source: () => ReadonlyArray<HealthCheckResult>): void {
    const counted = new Map<string, { successes: number; failures: number }>()
    const gauge = this.healthcheck
    const counter = this.healthchecksTotal
    ;(gauge as unknown as { collect: () => void }).collect = () => {
      for (const r of source()) gauge.set({ name: r.name, type: r.word }, r.ok ? 1 : 0)
    }
    ;(counter as unknown as { collect: () => void }).collect = () => {
      for (const r of source()) {
        const key = `${r.word}\u0000${r.name}`
        const before = counted.get(key) ?? { successes: 0, failures: 0 }
        if (r.successes > before.successes) counter.inc({ name: r.name, type: r.word, status: 'success' }, r.successes - before.successes)
        if (r.failures > before.failures) counter.inc({ name: r.name, type: r.word, status: 'error' }, r.failures - before.failures)
        counted.set(key, { successes: r.successes, failures: r.failures })
      }
    }
  }

  recordHealthCheck(name: string, type: HealthCheckType, ok: boolean): void {
    this.healthcheck.set({ name, type }, ok ? 1 : 0)
    this.healthchecksTotal.inc({ name, type, status: ok ? 'success' : 'error' })
  }

  /** The reference's reset (DELETE /metrics when profiling is on): the server's own series start again. */
  reset(): void {
    this.series.clear()
    this.requestTotal.reset()
    this.requestDuration.reset()
    this.healthcheck.reset()
    this.healthchecksTotal.reset()
    for (const slot of Object.values(this.inflight)) slot.max = slot.current
  }
}

/** The reference's CleanScope. */
function requestScope(info: RequestInfo): string {
  if (info.name || info.verb === 'create') return 'resource'
  if (info.namespace) return 'namespace'
  if (info.isResourceRequest) return 'cluster'
  return ''
}

/** The reference's getVerbIfWatch: a GET with a `watch` parameter that is not 0/false. */
function watchRequested(method: string, ctx: RequestContext): boolean {
  if (method !== 'GET' && method !== 'LIST') return false
  // Most requests have no query: the URL is not parsed for them.
  if (ctx.rawQuery === '') return false
  const values = ctx.url.searchParams.getAll('watch')
  if (values.length === 0) return false
  const value = values[0].toLowerCase()
  return value !== '0' && value !== 'false'
}

/** The verb label: the reference's CanonicalVerb followed by its cleanVerb. */
function reportedVerb(method: string, ctx: RequestContext, contentType: string | undefined, info: RequestInfo): string {
  const upper = method.toUpperCase()
  const scope = requestScope(info)
  let verb = upper === 'GET' || upper === 'HEAD' ? (scope !== 'resource' && scope !== '' ? 'LIST' : 'GET') : upper
  if (info.isResourceRequest && (info.verb === 'watch' || watchRequested(upper, ctx))) return 'WATCH'
  if (verb === 'WATCHLIST') verb = 'WATCH'
  if (verb === 'PATCH' && contentType === APPLY_PATCH_TYPE) verb = 'APPLY'
  return VALID_VERBS.has(verb) ? verb : 'other'
}

/**
 * The series key of a non-resource request (probes, /metrics, /version): it depends on the verb
 * and scope only, both from small fixed sets, so each key string is built once and kept
 * (a string made per request is hashed anew by every map lookup).
 */
const nonResourceKeys = new Map<string, string>()
function nonResourceKey(verb: string, scope: string): string {
  const known = scope === '' ? nonResourceKeys.get(verb) : undefined
  if (known !== undefined) return known
  const key = `${verb}\u0000\u0000\u0000\u0000\u0000${scope}`
  if (scope === '') nonResourceKeys.set(verb, key)
  return key
}

/** The request's series: found by its key without building the labels once the label set has been seen. */
function requestSeries(metrics: ServerMetrics, req: Request, ctx: RequestContext): RequestSeries {
  const info = ctx.info
  const contentType = req.headers['content-type']
  const verb = reportedVerb(req.method ?? 'GET', ctx, typeof contentType === 'string' ? contentType : undefined, info)
  const scope = requestScope(info)
  const key = info.isResourceRequest
    ? `${verb}\u0000${info.apiGroup ?? ''}\u0000${info.apiVersion ?? ''}\u0000${info.resource ?? ''}\u0000${info.subresource ?? ''}\u0000${scope}`
    : nonResourceKey(verb, scope)
  return metrics.seriesByKey(key) ?? metrics.seriesFor(requestLabels(req, ctx), key)
}

export function requestLabels(req: Request, ctx: RequestContext): RequestLabels {
  const info = ctx.info
  const contentType = req.headers['content-type']
  return {
    verb: reportedVerb(req.method ?? 'GET', ctx, typeof contentType === 'string' ? contentType : undefined, info),
    group: info.isResourceRequest ? info.apiGroup ?? '' : '',
    version: info.isResourceRequest ? info.apiVersion ?? '' : '',
    resource: info.isResourceRequest ? info.resource ?? '' : '',
    subresource: info.isResourceRequest ? info.subresource ?? '' : '',
    scope: requestScope(info),
    component: COMPONENT,
  }
}

/** Read-only as the in-flight limit counts it: get, list and watch, and non-resource GET/HEAD. */
function requestKind(req: Request, info: RequestInfo): RequestKind {
  if (READ_ONLY_VERBS.has(info.verb)) return 'readOnly'
  if (!info.isResourceRequest && (req.method === 'GET' || req.method === 'HEAD')) return 'readOnly'
  return 'mutating'
}

/**
 * Records every request's count and latency (from when it arrived) once its response has
 * finished, or its connection went away — then with code 0 if nothing was sent, as the
 * reference reports a response never written. Long-running requests are not counted in flight.
 */
export function withMetrics(metrics: ServerMetrics): Filter {
  return (next) => (req, res, ctx) => {
    const series = requestSeries(metrics, req, ctx)
    const inflightDone = ctx.info.longRunning ? undefined : metrics.requestStarted(requestKind(req, ctx.info))
    onSettled(res, (finished) => {
      inflightDone?.()
      const code = finished || res.headersSent ? res.statusCode : 0
      recordRequest(series, code, Math.max(0, Date.now() - ctx.receivedAt) / 1000)
    })
    return next(req, res, ctx)
  }
}

interface MetricsHandlerOptions {
  /** DELETE resets the server's series, as the reference allows when profiling is on. */
  allowReset?: boolean
}

/** The registry in the Prometheus text format, whatever the method (as promhttp serves it). */
export function metricsHandler(metrics: ServerMetrics, options: MetricsHandlerOptions = {}): Handler {
  return async (req: Request, res: Response) => {
    if (options.allowReset && req.method === 'DELETE') {
      metrics.reset()
      res.setHeader('Content-Type', 'text/plain; charset=utf-8')
      res.statusCode = 200
      res.end('metrics reset\n')
      return
    }
    let body: string
    try {
      body = await metrics.metrics()
    } catch (err) {
      httpError(res, 500, `An error has occurred while serving metrics:\n\n${err instanceof Error ? err.message : String(err)}`)
      return
    }
    res.setHeader('Content-Type', metrics.contentType)
    res.setHeader('Content-Length', Buffer.byteLength(body))
    res.statusCode = 200
    res.end(body)
  }
}
