import assert from 'node:assert/strict'
import { register as globalRegistry } from 'prom-client'
import { chain } from '../../../src/server/http/chain.js'
import { Mux } from '../../../src/server/http/mux.js'
import { resolveRequestInfo } from '../../../src/server/http/request-info.js'
import type { Request, RequestContext } from '../../../src/server/http/types.js'
import {
  REQUEST_DURATION_BUCKETS,
  ServerMetrics,
  metricsHandler,
  requestLabels,
  withMetrics,
} from '../../../src/server/paths/metrics.js'
import { send, serve, sleep, type TestServer } from './harness.js'

function labelsFor(method: string, path: string, headers: Record<string, string> = {}) {
  const url = new URL(path, 'http://x')
  const ctx = { receivedAt: 0, auditId: '', url, info: resolveRequestInfo(method, url) } as RequestContext
  return requestLabels({ method, headers } as unknown as Request, ctx)
}

function line(body: string, prefix: string): string | undefined {
  return body.split('\n').find((l) => l.startsWith(prefix))
}

describe('server paths: metrics', () => {
  describe('request labels (the reference verb and scope)', () => {
    const cases: Array<[string, string, Record<string, string>, Record<string, string>]> = [
      ['GET', '/apis/apps/v1/namespaces/ns/deployments', {}, { verb: 'LIST', group: 'apps', version: 'v1', resource: 'deployments', subresource: '', scope: 'namespace' }],
      ['GET', '/api/v1/pods', {}, { verb: 'LIST', group: '', version: 'v1', resource: 'pods', scope: 'cluster' }],
      ['GET', '/api/v1/namespaces/ns/pods/p/status', {}, { verb: 'GET', resource: 'pods', subresource: 'status', scope: 'resource' }],
      ['HEAD', '/api/v1/namespaces/ns/pods/p', {}, { verb: 'GET', scope: 'resource' }],
      ['GET', '/api/v1/namespaces/ns/pods?watch=true', {}, { verb: 'WATCH', scope: 'namespace' }],
      ['GET', '/api/v1/watch/namespaces/ns/pods', {}, { verb: 'WATCH', scope: 'namespace' }],
      ['GET', '/api/v1/namespaces/ns/pods?watch=false', {}, { verb: 'LIST' }],
      ['GET', '/api/v1/namespaces/ns/pods/p?watch=1', {}, { verb: 'WATCH', scope: 'resource' }],
      ['POST', '/api/v1/namespaces/ns/pods', {}, { verb: 'POST', scope: 'resource' }],
      ['PUT', '/api/v1/namespaces/ns/pods/p', {}, { verb: 'PUT', scope: 'resource' }],
      ['PATCH', '/api/v1/namespaces/ns/pods/p', { 'content-type': 'application/merge-patch+json' }, { verb: 'PATCH' }],
      ['PATCH', '/api/v1/namespaces/ns/pods/p', { 'content-type': 'application/apply-patch+yaml' }, { verb: 'APPLY' }],
      ['DELETE', '/api/v1/namespaces/ns/pods', {}, { verb: 'DELETE', scope: 'namespace' }],
      ['GET', '/healthz?watch=true', {}, { verb: 'GET', group: '', version: '', resource: '', subresource: '', scope: '' }],
      ['OPTIONS', '/version', {}, { verb: 'other', scope: '' }],
    ]
    for (const [method, path, headers, expected] of cases) {
      it(`${method} ${path}${headers['content-type'] ? ` (${headers['content-type']})` : ''}`, () => {
        const got = labelsFor(method, path, headers)
        for (const [k, v] of Object.entries(expected)) assert.equal(got[k as keyof typeof got], v, k)
        assert.equal(got.component, 'apiserver')
      })
    }
  })

  describe('over HTTP', () => {
    let metrics: ServerMetrics
    let server: TestServer
    let release: (() => void) | undefined

    beforeEach(async () => {
      metrics = new ServerMetrics()
      const mux = new Mux()
      mux.handle('/metrics', metricsHandler(metrics, { allowReset: true }))
      mux.handlePrefix('/apis/', (req, res) => {
        res.statusCode = req.method === 'POST' ? 201 : 200
        res.end('{}')
      })
      mux.handle('/slow', (_req, res) => {
        release = () => res.end('done')
      })
      mux.handle('/never', () => {})
      server = await serve(chain([withMetrics(metrics)], mux.serve))
    })
    afterEach(() => server.close())

    const get = (path: string, method = 'GET') => send(path, { port: server.port, method })

    it('serves the registry in the Prometheus text format with its content type', async () => {
      const reply = await get('/metrics')
      assert.equal(reply.status, 200)
      assert.equal(reply.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
      assert.match(reply.text, /^# HELP apiserver_request_total \[STABLE\] /m)
      assert.match(reply.text, /^# TYPE apiserver_request_total counter$/m)
      assert.match(reply.text, /^# TYPE apiserver_request_duration_seconds histogram$/m)
      assert.match(reply.text, /^# TYPE apiserver_current_inflight_requests gauge$/m)
      assert.match(reply.text, /^# TYPE kubernetes_healthcheck gauge$/m)
      assert.match(reply.text, /^# TYPE kubernetes_healthchecks_total counter$/m)
      // prom-client's process metrics, on this registry.
      assert.match(reply.text, /^process_cpu_user_seconds_total \d/m)
      assert.match(reply.text, /^nodejs_heap_size_used_bytes \d/m)
    })

    it('keeps its series off prom-client\'s global registry', () => {
      assert.equal(globalRegistry.getSingleMetric('apiserver_request_total'), undefined)
      assert.notEqual(metrics.registry, globalRegistry)
    })

    it('counts requests with the exact label sets and code, and their latency', async () => {
      assert.equal((await get('/apis/apps/v1/namespaces/default/deployments')).status, 200)
      assert.equal((await get('/apis/apps/v1/namespaces/default/deployments')).status, 200)
      assert.equal((await get('/apis/apps/v1/namespaces/default/deployments', 'POST')).status, 201)
      assert.equal((await get('/nothing-here')).status, 404)
      const text = (await get('/metrics')).text
      assert.equal(
        line(text, 'apiserver_request_total{verb="LIST",group="apps",version="v1",resource="deployments",subresource="",scope="namespace",component="apiserver",code="200"}'),
        'apiserver_request_total{verb="LIST",group="apps",version="v1",resource="deployments",subresource="",scope="namespace",component="apiserver",code="200"} 2',
      )
      assert.equal(
        line(text, 'apiserver_request_total{verb="POST",'),
        'apiserver_request_total{verb="POST",group="apps",version="v1",resource="deployments",subresource="",scope="resource",component="apiserver",code="201"} 1',
      )
      assert.equal(
        line(text, 'apiserver_request_total{verb="GET",group="",version="",resource="",subresource="",scope="",component="apiserver",code="404"}'),
        'apiserver_request_total{verb="GET",group="",version="",resource="",subresource="",scope="",component="apiserver",code="404"} 1',
      )
      assert.equal(
        line(text, 'apiserver_request_duration_seconds_count{verb="LIST",group="apps",version="v1",resource="deployments",subresource="",scope="namespace",component="apiserver"}'),
        'apiserver_request_duration_seconds_count{verb="LIST",group="apps",version="v1",resource="deployments",subresource="",scope="namespace",component="apiserver"} 2',
      )
      const buckets = text
        .split('\n')
        .filter((l) => l.startsWith('apiserver_request_duration_seconds_bucket{') && l.includes(',verb="LIST",group="apps",'))
        .map((l) => /le="([^"]+)"/.exec(l)?.[1])
      assert.deepEqual(buckets, [...REQUEST_DURATION_BUCKETS.map(String), '+Inf'])
      assert.equal(REQUEST_DURATION_BUCKETS[0], 0.005)
      assert.equal(REQUEST_DURATION_BUCKETS.at(-1), 60)
    })

    it('measures latency from when the request arrived', async () => {
      const pending = get('/slow', 'PUT')
      await sleep(300)
      release?.()
      assert.equal((await pending).text, 'done')
      const text = (await get('/metrics')).text
      const sum = line(text, 'apiserver_request_duration_seconds_sum{verb="PUT"')
      assert.ok(sum, 'a PUT latency sum')
      assert.ok(Number(sum.split(' ').at(-1)) >= 0.25, sum)
      assert.match(text, /^apiserver_request_duration_seconds_bucket\{le="0\.2",verb="PUT",[^}]*\} 0$/m)
      assert.match(text, /^apiserver_request_duration_seconds_bucket\{le="60",verb="PUT",[^}]*\} 1$/m)
    })

    it('reports the in-flight watermark per request kind since the previous scrape', async () => {
      const pending = get('/slow', 'POST')
      await sleep(100)
      const during = (await get('/metrics')).text
      assert.equal(line(during, 'apiserver_current_inflight_requests{request_kind="mutating"}'), 'apiserver_current_inflight_requests{request_kind="mutating"} 1')
      // The scrape itself is a read in flight.
      assert.equal(line(during, 'apiserver_current_inflight_requests{request_kind="readOnly"}'), 'apiserver_current_inflight_requests{request_kind="readOnly"} 1')
      release?.()
      await pending
      const after = (await get('/metrics')).text
      assert.equal(line(after, 'apiserver_current_inflight_requests{request_kind="mutating"}'), 'apiserver_current_inflight_requests{request_kind="mutating"} 1', 'the peak since the last scrape')
      const later = (await get('/metrics')).text
      assert.equal(line(later, 'apiserver_current_inflight_requests{request_kind="mutating"}'), 'apiserver_current_inflight_requests{request_kind="mutating"} 0')
    })

    it('does not count long-running requests in flight', async () => {
      const done = metrics.requestStarted('readOnly')
      done()
      const m = new ServerMetrics({ defaultMetrics: false })
      const mux = new Mux().handle('/metrics', metricsHandler(m))
      let hold: (() => void) | undefined
      mux.handlePrefix('/api/', (_req, res) => {
        hold = () => res.end()
      })
      const s = await serve(chain([withMetrics(m)], mux.serve))
      try {
        const watch = send('/api/v1/pods?watch=true', { port: s.port })
        await sleep(100)
        const text = (await send('/metrics', { port: s.port })).text
        assert.equal(line(text, 'apiserver_current_inflight_requests{request_kind="readOnly"}'), 'apiserver_current_inflight_requests{request_kind="readOnly"} 1', 'only the scrape')
        hold?.()
        await watch
        const after = (await send('/metrics', { port: s.port })).text
        assert.ok(line(after, 'apiserver_request_total{verb="WATCH",group="",version="v1",resource="pods",subresource="",scope="cluster",component="apiserver",code="200"} 1'))
      } finally {
        await s.close()
      }
    })

    it('records a request whose client went away before any response with code 0', async () => {
      const controller = new AbortController()
      const pending = send('/never', { port: server.port, signal: controller.signal }).catch(() => undefined)
      await sleep(100)
      controller.abort()
      await pending
      await sleep(100)
      const text = (await get('/metrics')).text
      assert.equal(
        line(text, 'apiserver_request_total{verb="GET",group="",version="",resource="",subresource="",scope="",component="apiserver",code="0"}'),
        'apiserver_request_total{verb="GET",group="",version="",resource="",subresource="",scope="",component="apiserver",code="0"} 1',
      )
    })

    it('records health checks as the reference does', async () => {
      metrics.recordHealthCheck('etcd', 'readyz', false)
      metrics.recordHealthCheck('etcd', 'readyz', true)
      metrics.recordHealthCheck('etcd', 'readyz', true)
      metrics.recordHealthCheck('ping', 'livez', false)
      const text = (await get('/metrics')).text
      assert.equal(line(text, 'kubernetes_healthcheck{name="etcd",type="readyz"}'), 'kubernetes_healthcheck{name="etcd",type="readyz"} 1')
      assert.equal(line(text, 'kubernetes_healthcheck{name="ping",type="livez"}'), 'kubernetes_healthcheck{name="ping",type="livez"} 0')
      assert.equal(line(text, 'kubernetes_healthchecks_total{name="etcd",type="readyz",status="success"}'), 'kubernetes_healthchecks_total{name="etcd",type="readyz",status="success"} 2')
      assert.equal(line(text, 'kubernetes_healthchecks_total{name="etcd",type="readyz",status="error"}'), 'kubernetes_healthchecks_total{name="etcd",type="readyz",status="error"} 1')
      assert.equal(line(text, 'kubernetes_healthchecks_total{name="ping",type="livez",status="error"}'), 'kubernetes_healthchecks_total{name="ping",type="livez",status="error"} 1')
    })

    it('resets the server series on DELETE when allowed, and only then', async () => {
      await get('/apis/apps/v1/deployments')
      const reset = await get('/metrics', 'DELETE')
      assert.equal(reset.status, 200)
      assert.equal(reset.text, 'metrics reset\n')
      const text = (await get('/metrics')).text
      assert.equal(line(text, 'apiserver_request_total{verb="LIST"'), undefined)

      const m = new ServerMetrics({ defaultMetrics: false })
      m.observeRequest({ verb: 'GET', group: '', version: '', resource: '', subresource: '', scope: '', component: 'apiserver' }, 200, 0.1)
      const s = await serve(metricsHandler(m))
      try {
        const reply = await send('/metrics', { port: s.port, method: 'DELETE' })
        assert.equal(reply.status, 200)
        assert.match(reply.text, /^apiserver_request_total\{verb="GET",[^}]*\} 1$/m)
      } finally {
        await s.close()
      }
    })
  })
})
