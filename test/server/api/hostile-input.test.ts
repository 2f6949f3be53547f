/**
 * The reference's answers to hostile and careless input, end to end over the built server:
 * size limits (413, over HTTP/2 too), nesting and aliasing, JSON patch operations, query
 * integers and booleans, dot segments and trailing slashes, metadata-only answers, Warning
 * headers that are not Latin-1, and concurrent patches without a resourceVersion (both stores).
 */
import assert from 'node:assert/strict'
import { connect as http2Connect } from 'node:http2'
import { ApiServer, type Reply } from '../../support/api-server.js'
import { describeEachStore } from '../../support/stores.js'
import { crontabCrd } from '../../support/crontab-crd.js'
import { aliasBomb } from '../fuzz/hostile-requests.js'

const NS = 'hostile'
const CM = `/api/v1/namespaces/${NS}/configmaps`
const CR = `/apis/stable.example.com/v1/namespaces/${NS}/crontabs`
const JSON_TYPE = { 'Content-Type': 'application/json' }

function status(reply: Reply): { code: number; reason: string; message: string } {
  return JSON.parse(reply.body) as { code: number; reason: string; message: string }
}

function h2Request(server: ApiServer, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; headers: Record<string, unknown>; body: string; rstCode?: number }> {
  return new Promise((resolve, reject) => {
    // As the administrator: under Node,RBAC an anonymous user may not write.
    const session = http2Connect(`https://127.0.0.1:${server.port}`, { rejectUnauthorized: false, ...server.tlsClient() })
    session.on('error', reject)
    const stream = session.request({ ':method': method, ':path': path, ...headers })
    let code = 0
    let got: Record<string, unknown> = {}
    const chunks: Buffer[] = []
    stream.on('response', (h) => {
      code = Number(h[':status'])
      got = h
    })
    stream.on('data', (d: Buffer) => chunks.push(d))
    stream.on('error', () => undefined)
    stream.on('close', () => {
      session.close()
      resolve({ status: code, headers: got, body: Buffer.concat(chunks).toString('utf8'), rstCode: stream.rstCode })
    })
    stream.end(body)
  })
}

describe('api: hostile input (end to end)', function () {
  this.timeout(90_000)
  let server: ApiServer

  before(async function () {
    this.timeout(60_000)
    server = await ApiServer.start({ waitFor: 'ready' })
    const post = async (path: string, body: unknown) => {
      const r = await server.get(path, JSON_TYPE, 'POST', JSON.stringify(body))
      assert.equal(r.status, 201, r.body)
    }
    await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })
    const crd = crontabCrd({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true })
    await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: crd.metadata, spec: crd.spec })
    await server.waitUntil('/apis/stable.example.com/v1', 200)
    await post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target', labels: { a: 'b' } }, data: { k: 'v' } })
    await post('/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'elsewhere' }, stringData: { k: 'v' } })
  })
  after(async () => {
    await server?.stop()
  })

  describe('sizes', () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 10, 0x61)

    it('a body over 3 MiB is 413 RequestEntityTooLarge with the reference\'s text, over HTTP/1.1', async () => {
      const r = await server.get(CM, JSON_TYPE, 'POST', big.toString('latin1'))
      assert.equal(r.status, 413)
      assert.deepEqual([status(r).reason, status(r).message], ['RequestEntityTooLarge', 'Request entity too large: limit is 3145728'])
      // The connection was kept: the server read the rest and the next request works.
      assert.equal((await server.get('/livez')).status, 200)
    })

    it('and over HTTP/2 the stream ends with the answer (a body far past the limit is reset, not left hanging)', async () => {
      const r = await h2Request(server, 'POST', CM, { 'content-type': 'application/json' }, big)
      assert.equal(r.status, 413)
      assert.equal(status({ status: r.status, headers: {}, body: r.body }).reason, 'RequestEntityTooLarge')
      const huge = await h2Request(server, 'PUT', `${CM}/target`, { 'content-type': 'application/json' }, Buffer.alloc(13 * 1024 * 1024, 0x61))
      assert.equal(huge.status, 413)
    })

    it('a JSON patch with more than 10,000 operations is 413 with the reference\'s text', async () => {
      const ops = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }))
      const r = await server.get(`${CM}/target`, { 'Content-Type': 'application/json-patch+json' }, 'PATCH', JSON.stringify(ops))
      assert.equal(r.status, 413)
      assert.equal(status(r).message, 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001')
      const ok = await server.get(`${CM}/target`, { 'Content-Type': 'application/json-patch+json' }, 'PATCH', JSON.stringify(ops.slice(0, 10_000)))
      assert.equal(ok.status, 200, ok.body)
    })
  })

  describe('nesting and aliasing', () => {
    it('a YAML alias bomb for a custom resource keeping unknown fields is 400 at once, its body not echoed', async () => {
      const body = `apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: bomb\nspec:\n${aliasBomb(9, 9, '  ')}\n`
      const started = Date.now()
      const r = await server.get(CR, { 'Content-Type': 'application/yaml' }, 'POST', body)
      assert.equal(r.status, 400)
      assert.match(status(r).message, /^the object provided is unrecognized \(must be of type CronTab\): error converting YAML to JSON: yaml: document contains excessive aliasing \([0-9a-f]+ \.\.\.\)$/)
      assert.ok(Date.now() - started < 5000)
      const apply = await server.get(`${CR}/bomb?fieldManager=t`, { 'Content-Type': 'application/apply-patch+yaml' }, 'PATCH', body)
      assert.equal(apply.status, 400)
      assert.equal(status(apply).message, 'error decoding YAML: yaml: document contains excessive aliasing')
      assert.equal((await server.get(`${CR}/bomb`)).status, 404)
    })

    it('JSON bodies and merge and strategic patches nested 10,000 deep are 400, not a stack overflow', async () => {
      const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`
      const create = await server.get(CR, JSON_TYPE, 'POST', `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"deep"},"spec":${deep(10_000)}}`)
      assert.equal(create.status, 400)
      assert.equal(status(create).message, "couldn't get version/kind; json parse error: exceeded max depth")
      for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
        const r = await server.get(`${CM}/target`, { 'Content-Type': type }, 'PATCH', `{"data":${deep(10_000)}}`)
        assert.equal(r.status, 400, type)
        assert.equal(status(r).message, 'error decoding patch: exceeded max depth')
      }
    })

    it('a custom resource nested just under the bound is stored and read back', async () => {
      const nest = (n: number): unknown => (n === 0 ? 1 : { a: nest(n - 1) })
      const body = { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'deep-ok' }, spec: nest(990) }
      const r = await server.get(CR, JSON_TYPE, 'POST', JSON.stringify(body))
      assert.equal(r.status, 201, r.body.slice(0, 300))
      const patched = await server.get(`${CR}/deep-ok`, { 'Content-Type': 'application/merge-patch+json' }, 'PATCH', JSON.stringify({ spec: nest(900) }))
      assert.equal(patched.status, 200, patched.body.slice(0, 300))
    })
  })

  describe('query parameters', () => {
    it('integers past int64 are 400 with strconv\'s text; a resourceVersion past uint64 is invalid', async () => {
      const limit = await server.get(`${CM}?limit=99999999999999999999`)
      assert.equal(limit.status, 400)
      assert.equal(status(limit).message, 'strconv.ParseInt: parsing "99999999999999999999": value out of range')
      assert.equal((await server.get(`${CM}?limit=9223372036854775807`)).status, 200)
      const rv = await server.get(`${CM}?resourceVersion=${'9'.repeat(40)}`)
      assert.equal(rv.status, 400)
      assert.equal(status(rv).message, `invalid resourceVersion: ${'9'.repeat(40)}`)
      const future = await server.get(`${CM}?resourceVersion=99999999999999999999&resourceVersionMatch=Exact`)
      assert.notEqual(future.status, 500, future.body)
    })

    it('watch=True streams (the official Python client\'s spelling)', async () => {
      const r = await server.get(`${CM}?watch=True&timeoutSeconds=1`)
      assert.equal(r.status, 200)
      const first = JSON.parse(r.body.split('\n')[0]!) as { type: string; object: { metadata: { name: string } } }
      assert.equal(first.type, 'ADDED')
    })
  })

  describe('paths', () => {
    it('%2e%2e as a namespace lists nothing instead of every namespace\'s secrets', async () => {
      for (const path of ['/api/v1/namespaces/%2e%2e/secrets', '/api/v1/namespaces/%2E%2E/secrets', '/api/v1/namespaces/./secrets']) {
        const r = await server.get(path)
        assert.equal(r.status, 200, path)
        assert.deepEqual((JSON.parse(r.body) as { items: unknown[] }).items, [], path)
      }
      assert.ok((JSON.parse((await server.get('/api/v1/secrets')).body) as { items: unknown[] }).items.length > 0)
    })

    it('a name of . or .. is the reference\'s 400 (its key would be another)', async () => {
      const r = await server.get(`${CM}/%2e%2e`)
      assert.equal(r.status, 400)
      assert.equal(status(r).message, `Name parameter invalid: "..": may not be '..'`)
    })

    it('trailing slashes answer as without them', async () => {
      const version = await server.get('/version/')
      assert.equal(version.status, 200)
      assert.ok('gitVersion' in (JSON.parse(version.body) as object))
      assert.equal((JSON.parse((await server.get('/api/v1/')).body) as { kind: string }).kind, 'APIResourceList')
      assert.equal((JSON.parse((await server.get('/apis/apps/v1/')).body) as { kind: string }).kind, 'APIResourceList')
    })

    it('a malformed escape is Go\'s plain 400', async () => {
      const r = await server.get('/api/v1/namespaces/%zz/configmaps')
      assert.equal(r.status, 400)
    })
  })

  describe('metadata-only answers', () => {
    const accept = (as: string, media = 'application/json') => ({ Accept: `${media};as=${as};g=meta.k8s.io;v=v1` })

    it('lists as PartialObjectMetadataList and gets as PartialObjectMetadata, built-in and custom', async () => {
      const list = await server.get(CM, accept('PartialObjectMetadataList'))
      assert.equal(list.status, 200, list.body)
      const body = JSON.parse(list.body) as { kind: string; apiVersion: string; items: Array<{ kind: string; apiVersion: string; metadata: { name: string }; data?: unknown }> }
      assert.equal(body.kind, 'PartialObjectMetadataList')
      assert.equal(body.apiVersion, 'meta.k8s.io/v1')
      const item = body.items.find((i) => i.metadata.name === 'target')!
      assert.deepEqual([item.kind, item.apiVersion, item.data], ['PartialObjectMetadata', 'meta.k8s.io/v1', undefined])
      const one = JSON.parse((await server.get(`${CM}/target`, accept('PartialObjectMetadata'))).body) as { kind: string; metadata: { labels: unknown } }
      assert.equal(one.kind, 'PartialObjectMetadata')
      assert.deepEqual(one.metadata.labels, { a: 'b' })
      assert.equal((await server.get(CR, accept('PartialObjectMetadataList'))).status, 200)
    })

    it('in protobuf too, and a list/object mismatch is the reference\'s 406', async () => {
      const pb = await server.get(CM, accept('PartialObjectMetadataList', 'application/vnd.kubernetes.protobuf'))
      assert.equal(pb.status, 200)
      assert.equal(pb.headers['content-type'], 'application/vnd.kubernetes.protobuf')
      const mismatch = await server.get(CM, accept('PartialObjectMetadata'))
      assert.equal(mismatch.status, 406)
      assert.equal(status(mismatch).message, 'you requested PartialObjectMetadata, but the requested object is a list (ConfigMapList)')
    })

    it('on watches, each object as its PartialObjectMetadata', async () => {
      const r = await server.get(`${CM}?watch=1&timeoutSeconds=1`, accept('PartialObjectMetadata'))
      assert.equal(r.status, 200)
      const ev = JSON.parse(r.body.split('\n')[0]!) as { type: string; object: { kind: string; data?: unknown } }
      assert.deepEqual([ev.type, ev.object.kind, ev.object.data], ['ADDED', 'PartialObjectMetadata', undefined])
    })
  })

  describe('Warning headers that are not Latin-1', () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'warn-' }, data: {}, ключ: 1 })
    const expected = '299 - "unknown field \\"ключ\\""'

    it('over HTTP/1.1: 201 with the field\'s UTF-8 bytes in the header', async () => {
      const r = await server.get(CM, JSON_TYPE, 'POST', body)
      assert.equal(r.status, 201, r.body)
      assert.equal(Buffer.from(String(r.headers.warning), 'latin1').toString('utf8'), expected)
    })

    it('over HTTP/2: 201 and the created object in the answer (no reset after the write)', async () => {
      const r = await h2Request(server, 'POST', CM, { 'content-type': 'application/json' }, Buffer.from(body))
      assert.equal(r.status, 201, r.body)
      assert.equal(Buffer.from(String(r.headers.warning), 'latin1').toString('utf8'), expected)
      assert.match((JSON.parse(r.body) as { metadata: { name: string } }).metadata.name, /^warn-/)
    })
  })
})

describeEachStore('api: concurrent patches and objects too large for the store', 'concurrent-patches', function (store) {
  this.timeout(90_000)
  let server: ApiServer
  before(async function () {
    this.timeout(60_000)
    server = await ApiServer.start({ args: store.args, waitFor: 'ready' })
  })
  after(async () => {
    await server?.stop()
  })

  it('16 concurrent merge patches of one object all apply, none answers 409', async () => {
    const created = await server.get('/api/v1/namespaces/default/configmaps', JSON_TYPE, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'contended' }, data: {} }))
    assert.equal(created.status, 201)
    for (let round = 0; round < 3; round++) {
      const replies = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          server.get('/api/v1/namespaces/default/configmaps/contended', { 'Content-Type': 'application/merge-patch+json' }, 'PATCH', JSON.stringify({ data: { [`k${round}-${i}`]: 'v' } })),
        ),
      )
      assert.deepEqual(
        replies.map((r) => r.status),
        Array(16).fill(200),
        replies.find((r) => r.status !== 200)?.body,
      )
    }
    const final = JSON.parse((await server.get('/api/v1/namespaces/default/configmaps/contended')).body) as { data: Record<string, string> }
    assert.equal(Object.keys(final.data).length, 48)
  })

  it('an object over etcd\'s 1.5 MiB request limit is 413 with etcd\'s words, never a 500 (the embedded store takes it)', async () => {
    // A core Event: its message has no size rule (a ConfigMap or Secret over 1 MiB is a 422 of
    // validation, before any store sees it).
    const event = (name: string, size: number) =>
      JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Big', message: 'x'.repeat(size) })
    const body = event('large', 1700 * 1024)
    const r = await server.get('/api/v1/namespaces/default/events', JSON_TYPE, 'POST', body)
    if (store.name === 'etcd') {
      assert.equal(r.status, 413, r.body.slice(0, 300))
      assert.deepEqual([status(r).reason, status(r).message], ['RequestEntityTooLarge', 'Request entity too large: etcdserver: request is too large'])
    } else assert.equal(r.status, 201, r.body.slice(0, 300))
    if (store.name === 'etcd') {
      // Past gRPC's own message limit (2 MiB) as well.
      const bigger = event('larger', 2500 * 1024)
      const r2 = await server.get('/api/v1/namespaces/default/events', JSON_TYPE, 'POST', bigger)
      assert.equal(r2.status, 413, r2.body.slice(0, 300))
      assert.match(status(r2).message, /^Request entity too large: grpc: received message larger than max/)
    }
  })
})
