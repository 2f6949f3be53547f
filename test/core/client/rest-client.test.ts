import assert from 'node:assert/strict'
import zlib from 'node:zlib'
import type { Connection } from '../../../src/core/client/connection.js'
import { UnreachableError } from '../../../src/core/client/errors.js'
import { RestClient } from '../../../src/core/client/rest-client.js'

type Nock = typeof import('nock')

const BASE = 'https://api.example.test:6443'

function connection(overrides: Partial<Connection> = {}): Connection {
  return {
    server: BASE,
    namespace: 'default',
    tls: { insecureSkipVerify: false },
    headers: {},
    timeoutMs: 0,
    compression: true,
    userAgent: 'client/9.9.9 (linux/amd64)',
    warnings: [],
    origin: { context: '', cluster: '', user: '', files: [] },
    ...overrides,
  }
}

async function rejection(promise: Promise<unknown>): Promise<UnreachableError> {
  try {
    await promise
  } catch (err) {
    assert.ok(err instanceof UnreachableError, `expected an UnreachableError, got ${String(err)}`)
    return err
  }
  assert.fail('expected the request to fail')
}

describe('core/client: REST client (nock)', () => {
  let nock: Nock
  const clients: RestClient[] = []
  const client = (overrides: Partial<Connection> = {}) => {
    const c = new RestClient(connection(overrides))
    clients.push(c)
    return c
  }

  before(async () => {
    // Loaded here, and restored after, so the real-server tests never go through nock.
    nock = (await import('nock')).default
    if (!nock.isActive()) nock.activate()
    nock.disableNetConnect()
  })
  afterEach(() => {
    for (const c of clients.splice(0)) c.close()
    const pending = nock.pendingMocks()
    nock.cleanAll()
    assert.deepEqual(pending, [], 'every mocked request must have been made')
  })
  after(() => {
    nock.enableNetConnect()
    nock.restore()
  })

  it('sends the connection headers, User-Agent, Accept and Accept-Encoding: gzip', async () => {
    let seen: Record<string, string | string[] | undefined> = {}
    nock(BASE)
      .get('/readyz')
      .query(true)
      .reply(function () {
        seen = this.req.headers
        return [200, 'ok']
      })
    const res = await client({
      headers: { Authorization: 'Bearer t0k', 'Impersonate-User': 'alice', 'Impersonate-Uid': '42', 'Impersonate-Extra-scopes': ['view'] },
    }).get('/readyz?verbose')
    assert.equal(res.status, 200)
    assert.equal(res.body, 'ok')
    assert.equal(seen.authorization, 'Bearer t0k')
    assert.equal(seen['impersonate-user'], 'alice')
    assert.equal(seen['impersonate-uid'], '42')
    assert.equal(seen['impersonate-extra-scopes'], 'view')
    assert.equal(seen['user-agent'], 'client/9.9.9 (linux/amd64)')
    assert.equal(seen.accept, 'application/json, */*')
    assert.equal(seen['accept-encoding'], 'gzip')
  })

  it('sends no Accept-Encoding with compression off, and lets request headers replace the defaults', async () => {
    let seen: Record<string, string | string[] | undefined> = {}
    nock(BASE)
      .post('/api/v1/namespaces/default/configmaps', '{"a":1}')
      .reply(function () {
        seen = this.req.headers
        return [201, '{}']
      })
    const res = await client({ compression: false }).request('post', '/api/v1/namespaces/default/configmaps', {
      body: '{"a":1}',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
    })
    assert.equal(res.status, 201)
    assert.equal(seen['accept-encoding'], undefined)
    assert.equal(seen['content-type'], 'application/json')
    assert.equal(seen.accept, 'application/json')
  })

  it('decompresses a gzip answer', async () => {
    nock(BASE).get('/version').reply(200, zlib.gzipSync('{"major":"1"}'), { 'content-encoding': 'gzip' })
    assert.equal((await client().get('/version')).body, '{"major":"1"}')
  })

  it('parses Warning headers, repeated ones included', async () => {
    nock(BASE)
      .patch('/apis/apps/v1/namespaces/default/deployments/web')
      .reply(200, '{}', { Warning: ['299 - "unknown field \\"spec.foo\\""', '299 - "a, b", 299 - "c"', '199 - "ignored"'] })
    const res = await client().request('PATCH', '/apis/apps/v1/namespaces/default/deployments/web', { body: '{}' })
    assert.deepEqual(res.warnings, ['unknown field "spec.foo"', 'a, b', 'c'])
  })

  it('returns error statuses and redirects as responses, with headers and latency', async () => {
    nock(BASE).get('/readyz').reply(500, '[-]store failed\nreadyz check failed\n', { 'content-type': 'text/plain' })
    nock(BASE).get('/moved').reply(302, '', { location: 'https://elsewhere.example.test/' })
    const c = client()
    const failed = await c.get('/readyz')
    assert.equal(failed.status, 500)
    assert.equal(failed.body, '[-]store failed\nreadyz check failed\n')
    assert.equal(failed.headers['content-type'], 'text/plain')
    assert.ok(failed.latencyMs >= 0 && Number.isFinite(failed.latencyMs))
    const moved = await c.get('/moved')
    assert.equal(moved.status, 302)
    assert.equal(moved.headers.location, 'https://elsewhere.example.test/')
  })

  it('puts requests under the server path prefix', async () => {
    nock(BASE).get('/k8s/clusters/c-1/livez').reply(200, 'ok')
    assert.equal((await client({ server: `${BASE}/k8s/clusters/c-1` }).get('/livez')).body, 'ok')
  })

  it('times out after the connection timeout, with kubectl\'s text', async () => {
    nock(BASE).get('/slow').delay(2000).reply(200, 'late')
    const err = await rejection(client({ timeoutMs: 100 }).get('/slow'))
    assert.equal(err.kind, 'timeout')
    assert.match(err.message, /^Unable to connect to the server: net\/http: request canceled( while waiting for connection)? \(Client\.Timeout exceeded while awaiting headers\)$/)
  })

  it('lets one request override the timeout', async () => {
    nock(BASE).get('/slow').delay(2000).reply(200, 'late')
    nock(BASE).get('/patient').delay(150).reply(200, 'done')
    const c = client({ timeoutMs: 5000 })
    assert.equal((await rejection(c.get('/slow', { timeoutMs: 100 }))).kind, 'timeout')
    const slowServer = client({ timeoutMs: 50 })
    assert.equal((await slowServer.get('/patient', { timeoutMs: 0 })).body, 'done')
  })

  it('rejects paths that are not absolute, and requests after close()', async () => {
    const c = client()
    await assert.rejects(c.get('readyz'), /request path must start with "\/"/)
    c.close()
    await assert.rejects(c.get('/readyz'), /closed/)
  })
})
