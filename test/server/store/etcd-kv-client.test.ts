import assert from 'node:assert/strict'
import http2 from 'node:http2'
import type { AddressInfo } from 'node:net'
import { Etcd3, GRPCDeadlineExceededError, GRPCInternalError, GRPCOutOfRangeError, GRPCUnavailableError } from 'etcd3'
import { EtcdKvClient } from '../../../src/server/store/etcd-kv-client.js'
import { encodeRangeMessage } from '../../../src/server/store/etcd-wire.js'
import { EtcdServer, requireEtcd } from '../../support/etcd.js'

// A stand-in gRPC server on node:http2 for what a real etcd will not do on demand (stall,
// answer garbage, send GOAWAY), and a real etcd for what it does.
type Handler = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, body: Buffer) => void

async function fakeServer(handler: Handler): Promise<{ url: string; sessions: () => number; close: () => Promise<void> }> {
  const server = http2.createServer()
  let sessions = 0
  const open = new Set<http2.ServerHttp2Session>()
  server.on('session', session => {
    sessions++
    open.add(session)
    session.on('close', () => open.delete(session))
  })
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = []
    stream.on('data', (c: Buffer) => chunks.push(c))
    stream.on('end', () => handler(stream, headers, Buffer.concat(chunks)))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sessions: () => sessions,
    close: () =>
      new Promise<void>(resolve => {
        for (const s of open) s.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A gRPC answer: one message in its frame, then the OK trailers. */
function answer(stream: http2.ServerHttp2Stream, message: Buffer): void {
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true })
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }))
  const frame = Buffer.alloc(5 + message.length)
  frame.writeUInt32BE(message.length, 1)
  message.copy(frame, 5)
  stream.end(frame)
}

// A RangeResponse with header.revision = 9 and no kvs (field 1: header, its field 3: revision).
const REVISION_9 = Buffer.from([0x0a, 0x02, 0x18, 0x09])

describe('etcd kv client (gRPC over node:http2)', function () {
  this.timeout(20_000)
  const closers: Array<() => unknown> = []
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close()
  })

  it('sends the request gRPC frames it and decodes the answer', async () => {
    let seen: { headers: http2.IncomingHttpHeaders; body: Buffer } | undefined
    const server = await fakeServer((stream, headers, body) => {
      seen = { headers, body }
      answer(stream, REVISION_9)
    })
    closers.push(server.close)
    const client = new EtcdKvClient({ servers: [server.url] })
    closers.push(() => client.close())
    const res = await client.range({ key: Buffer.from('/k') }, Date.now() + 5_000)
    assert.deepEqual(res, { revision: 9, kvs: [], more: false, count: 0 })
    assert.equal(seen!.headers[':path'], '/etcdserverpb.KV/Range')
    assert.equal(seen!.headers['content-type'], 'application/grpc')
    assert.equal(seen!.headers.te, 'trailers')
    assert.match(String(seen!.headers['grpc-timeout']), /^\d{1,8}m$/)
    assert.deepEqual(seen!.body.subarray(5), encodeRangeMessage({ key: Buffer.from('/k') }))
  })

  it('raises etcd\'s status as the error etcd3 would (trailers-only answer, percent-encoded message)', async () => {
    const server = await fakeServer(stream => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '11', 'grpc-message': 'etcdserver:%20mvcc:%20required%20revision%20is%20a%20future%20revision' }, { endStream: true })
    })
    closers.push(server.close)
    const client = new EtcdKvClient({ servers: [server.url] })
    closers.push(() => client.close())
    const err = await client.range({ key: Buffer.from('/k'), revision: 99 }, Date.now() + 5_000).then(
      () => assert.fail('the call succeeded'),
      (e: unknown) => e as Error,
    )
    assert.ok(err instanceof GRPCOutOfRangeError, String(err))
    assert.equal(err.message, '11 OUT_OF_RANGE: etcdserver: mvcc: required revision is a future revision')
  })

  it('fails a call at its deadline, and many deadlines at once keep a connection that answers pings', async () => {
    const server = await fakeServer(() => {
      // Never answers.
    })
    closers.push(server.close)
    const client = new EtcdKvClient({ servers: [server.url], keepaliveTimeoutMs: 300 })
    closers.push(() => client.close())
    const started = Date.now()
    const errors = await Promise.all(
      Array.from({ length: 20 }, () => client.range({ key: Buffer.from('/k') }, Date.now() + 200).then(() => undefined, (e: unknown) => e)),
    )
    for (const err of errors) {
      assert.ok(err instanceof GRPCDeadlineExceededError, String(err))
    }
    assert.ok(Date.now() - started < 5_000)
    // Past the ping timeout: the connection answered its ping and is still the one in use.
    await new Promise(resolve => setTimeout(resolve, 600))
    await client.range({ key: Buffer.from('/k') }, Date.now() + 100).catch(() => undefined)
    assert.equal(server.sessions(), 1)
  })

  it('refuses a malformed or compressed answer as INTERNAL instead of decoding it', async () => {
    let compressed = false
    const server = await fakeServer(stream => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true })
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }))
      stream.end(compressed ? Buffer.from([1, 0, 0, 0, 1, 0]) : Buffer.from([0, 0, 0, 0, 9, 1]))
    })
    closers.push(server.close)
    const client = new EtcdKvClient({ servers: [server.url] })
    closers.push(() => client.close())
    for (const expected of [/malformed response message/, /compressed response not asked for/]) {
      const err = await client.range({ key: Buffer.from('/k') }, Date.now() + 5_000).then(() => undefined, (e: unknown) => e)
      assert.ok(err instanceof GRPCInternalError, String(err))
      assert.match((err as Error).message, expected)
      compressed = true
    }
  })

  it('opens a new connection after the server sends GOAWAY, and reports a refused connection as never sent', async () => {
    let calls = 0
    const server = await fakeServer(stream => {
      calls++
      answer(stream, REVISION_9)
      if (calls === 1) stream.session?.goaway()
    })
    closers.push(server.close)
    const client = new EtcdKvClient({ servers: [server.url] })
    closers.push(() => client.close())
    await client.range({ key: Buffer.from('/k') }, Date.now() + 5_000)
    await new Promise(resolve => setTimeout(resolve, 100))
    assert.equal((await client.range({ key: Buffer.from('/k') }, Date.now() + 5_000)).revision, 9)
    assert.equal(server.sessions(), 2)

    await server.close()
    // Once the client saw the connection go, a call connects anew and is refused.
    await new Promise(resolve => setTimeout(resolve, 100))
    const err = await client.range({ key: Buffer.from('/k') }, Date.now() + 5_000).then(() => undefined, (e: unknown) => e)
    assert.ok(err instanceof GRPCUnavailableError, String(err))
    assert.match((err as Error).message, /No connection established.*ECONNREFUSED/)
  })

  describe('against a real etcd', () => {
    let etcd: EtcdServer | undefined
    before(async function () {
      requireEtcd(this)
      etcd = await EtcdServer.start()
    })
    after(async () => {
      await etcd?.destroy()
    })

    it('reads what etcd3 wrote and writes what etcd3 reads, revisions included', async () => {
      const raw = new Etcd3({ hosts: etcd!.clientUrl })
      const client = new EtcdKvClient({ servers: [etcd!.clientUrl] })
      try {
        await raw.put('/lean/a').value('from etcd3')
        const read = await client.range({ key: Buffer.from('/lean/a') }, Date.now() + 5_000)
        const [kv] = read.kvs
        assert.equal(kv?.value.toString(), 'from etcd3')
        const expected = await raw.get('/lean/a').exec()
        assert.equal(kv?.modRevision, Number(expected.kvs[0]!.mod_revision))
        assert.equal(read.revision, Number(expected.header.revision))

        const key = Buffer.from('/lean/b')
        const created = await client.txn({ compare: [{ key, modRevision: 0 }], success: [{ put: { key, value: Buffer.from('lean') } }], failure: [] }, Date.now() + 5_000)
        assert.equal(created.succeeded, true)
        assert.equal(await raw.get('/lean/b').string(), 'lean')
        const again = await client.txn({ compare: [{ key, modRevision: 0 }], success: [{ put: { key, value: Buffer.from('twice') } }], failure: [] }, Date.now() + 5_000)
        assert.equal(again.succeeded, false, 'create-if-absent does not overwrite')
        assert.equal(await raw.get('/lean/b').string(), 'lean')
      } finally {
        client.close()
        raw.close()
      }
    })
  })
})
