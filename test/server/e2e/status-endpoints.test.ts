import assert from 'node:assert/strict'
import { ApiServer } from '../../support/api-server.js'
import { SPEC_CHECKS } from '../../support/spec-checks.js'

const CHECKS = SPEC_CHECKS

const report = (checks: readonly string[], last = 'healthz check passed') => `${checks.map((c) => `[+]${c} ok\n`).join('')}${last}\n`
const TEXT = 'text/plain; charset=utf-8'

describe('server: status endpoints (end to end)', function () {
  this.timeout(60_000)
  let server: ApiServer

  before(async () => {
    server = await ApiServer.start({ waitFor: 'ready' })
  })
  after(async () => {
    await server?.stop()
  })

  it('/readyz?verbose lists every check of the spec in order, shutdown last', async () => {
    const reply = await server.get('/readyz?verbose')
    assert.equal(reply.status, 200)
    assert.equal(reply.body, report([...CHECKS, 'shutdown']))
    assert.equal(reply.headers['content-type'], TEXT)
    assert.equal(reply.headers['x-content-type-options'], 'nosniff')
  })

  it('/livez and /healthz: ok, and the same list without shutdown', async () => {
    for (const word of ['livez', 'healthz']) {
      assert.deepEqual((await server.get(`/${word}`)).body, 'ok')
      assert.equal((await server.get(`/${word}?verbose`)).body, report(CHECKS))
    }
  })

  it('answers over HTTP/2 and HTTP/1.1', async () => {
    const h2 = await server.get2('/livez')
    assert.equal(h2.alpn, 'h2')
    assert.equal(h2.status, 200)
    assert.equal(h2.body, 'ok')
  })

  it('individual checks: ok without nosniff, 404 for checks of other endpoints', async () => {
    const store = await server.get('/readyz/store')
    assert.equal(store.status, 200)
    assert.equal(store.body, 'ok')
    assert.equal(store.headers['x-content-type-options'], undefined)
    assert.equal((await server.get('/readyz/poststarthook/rbac/bootstrap-roles')).body, 'ok')
    for (const path of ['/livez/shutdown', '/readyz/', '/readyz/does-not-exist', '/healthz/store-readiness']) {
      const reply = await server.get(path)
      assert.equal(reply.status, 404, path)
      assert.equal(reply.body, '404 page not found\n')
    }
  })

  it('a failing store check fails /readyz and /livez with the reason withheld, and recovers', async () => {
    server.setFaults(['store=fail:connection refused'])
    try {
      // The check probes at most once per half timeout; wait for a fresh probe.
      const failed = await server.waitUntil('/readyz', 500, 5000)
      assert.match(failed.body, /\[-\]store failed: reason withheld\n/)
      assert.match(failed.body, /readyz check failed\n$/)
      assert.doesNotMatch(failed.body, /connection refused/)
      const individual = await server.waitUntil('/livez/store', 500, 5000)
      assert.equal(individual.body, 'internal server error: error getting data from store: connection refused\n')
      assert.equal((await server.get('/readyz?exclude=store')).body, 'ok')
    } finally {
      server.setFaults([])
    }
    await server.waitUntil('/readyz', 200, 5000)
  })

  it('a blocked logger fails the log check', async () => {
    server.setFaults(['log=fail:logging blocked'])
    try {
      const reply = await server.get('/livez?verbose')
      assert.equal(reply.status, 500)
      assert.match(reply.body, /\[-\]log failed: reason withheld\n/)
    } finally {
      server.setFaults([])
    }
  })

  it('/readyz?timeout=abc is a 400 Status; a hanging check gives 504 at the timeout', async () => {
    const bad = await server.get('/readyz?timeout=abc')
    assert.equal(bad.status, 400)
    assert.equal(bad.headers['content-type'], 'application/json')
    assert.equal(
      bad.body,
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid timeout specified in the request URL - time: invalid duration \\"abc\\"","reason":"BadRequest","code":400}\n',
    )
    server.setFaults(['log=hang'])
    try {
      // The log check hangs for ever: only the request's timeout can answer, and its 504 says so.
      const reply = await server.get('/readyz?timeout=1s')
      assert.equal(reply.status, 504)
      assert.equal(
        reply.body,
        '{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n',
      )
    } finally {
      server.setFaults([])
    }
  })

  it('/version reports the emulated reference version', async () => {
    const reply = await server.get('/version')
    const info = JSON.parse(reply.body)
    assert.equal(info.major, '1')
    assert.equal(info.minor, '35')
    assert.equal(info.gitVersion, 'v1.35.0')
  })

  it('/metrics is Prometheus text with request counts', async () => {
    await server.get('/livez')
    const reply = await server.get('/metrics')
    assert.equal(reply.status, 200)
    assert.match(reply.body, /# TYPE apiserver_request_total counter/)
    assert.match(reply.body, /apiserver_request_total\{[^}]*code="200"[^}]*\} \d+/)
  })

  it('every response carries Audit-Id and Cache-Control', async () => {
    const reply = await server.get('/livez', { 'Audit-ID': 'test-audit-id' })
    assert.equal(reply.headers['audit-id'], 'test-audit-id')
    assert.equal(reply.headers['cache-control'], 'no-cache, private')
  })
})
