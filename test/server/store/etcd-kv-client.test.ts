import assert from 'node:assert/strict'
import http2 from 'node:http2'
import type { AddressInfo } from 'node:net'
import { Etcd3, GRPCDeadlineExceededError, GRPCInternalError, GRPCOutOfRangeError, GRPCUnavailableError } from 'etcd3'
import { createRequire } from 'node:module'
import path from 'node:path'
import protobuf from 'protobufjs'
import { EtcdKvClient } from '../../../src/server/store/etcd-kv-client.js'
import { type WatchResponse, encodeRangeMessage, encodeWatchCreate } from '../../../src/server/store/etcd-wire.js'
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

  describe('watch streams', () => {
    // WatchResponses written by protobufjs from etcd's own .proto (the copy etcd3 ships).
    const protoDir = path.join(path.dirname(createRequire(import.meta.url).resolve('etcd3/package.json')), 'proto')
    const WatchResponseType = new protobuf.Root().loadSync(path.join(protoDir, 'rpc.proto'), { keepCase: true }).lookupType('etcdserverpb.WatchResponse')
    const framed = (o: Record<string, unknown>): Buffer => {
      const message = Buffer.from(WatchResponseType.encode(WatchResponseType.fromObject(o)).finish())
      const frame = Buffer.alloc(5 + message.length)
      frame.writeUInt32BE(message.length, 1)
      message.copy(frame, 5)
      return frame
    }

    /** A server whose streams stay open: `onStream` gets each with the first request bytes. */
    async function watchServer(onStream: (stream: http2.ServerHttp2Stream, first: Buffer) => void): Promise<string> {
      const server = http2.createServer()
      const open = new Set<http2.ServerHttp2Session>()
      server.on('session', session => {
        open.add(session)
        session.on('close', () => open.delete(session))
      })
      server.on('stream', stream => stream.once('data', (first: Buffer) => onStream(stream, first)))
      await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
      closers.push(() => new Promise<void>(resolve => {
        for (const s of open) s.destroy()
        server.close(() => resolve())
      }))
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    }

    it('sends the create request and reassembles messages split across and packed into DATA frames; a clean end is null', async () => {
      let request: Buffer | undefined
      const url = await watchServer((stream, first) => {
        request = first
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true })
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }))
        const created = framed({ header: { revision: 10 }, created: true })
        const put = framed({ header: { revision: 11 }, events: [{ type: 'Put', kv: { key: Buffer.from('/w/a'), create_revision: 11, mod_revision: 11, version: 1, value: Buffer.from('x'.repeat(3000)) } }] })
        const progress = framed({ header: { revision: 12 } })
        const del = framed({ header: { revision: 13 }, events: [{ type: 'Delete', kv: { key: Buffer.from('/w/a'), mod_revision: 13 }, prev_kv: { key: Buffer.from('/w/a'), create_revision: 11, mod_revision: 11, value: Buffer.from('x') } }] })
        // created alone; the put in three pieces (the first shorter than a frame's prefix); then two messages in one write.
        const pieces = [created, put.subarray(0, 3), put.subarray(3, 1000), put.subarray(1000), Buffer.concat([progress, del])]
        const next = (): void => {
          const piece = pieces.shift()
          if (!piece) return void stream.end()
          stream.write(piece, () => setTimeout(next, 5))
        }
        next()
      })
      const client = new EtcdKvClient({ servers: [url] })
      closers.push(() => client.close())
      const messages: WatchResponse[] = []
      const ended = await new Promise<Error | null>(resolve => {
        const call = client.watch({ message: m => messages.push(m), failed: resolve })
        call.send(encodeWatchCreate({ key: Buffer.from('/w/'), rangeEnd: Buffer.from('/w0'), startRevision: 5, prevKv: true, progressNotify: true }))
      })
      assert.equal(ended, null)
      assert.deepEqual(request, encodeWatchCreate({ key: Buffer.from('/w/'), rangeEnd: Buffer.from('/w0'), startRevision: 5, prevKv: true, progressNotify: true }))
      assert.deepEqual(messages.map(m => [m.revision, m.created, m.events.map(e => [e.type, e.kv.key.toString(), e.kv.value.length, e.prevKv?.value.toString()])]), [
        [10, true, []],
        [11, false, [['put', '/w/a', 3000, undefined]]],
        [12, false, []],
        [13, false, [['delete', '/w/a', 0, 'x']]],
      ])
    })

    it('ends with the error etcd3 would raise for a status, and says nothing after cancel', async () => {
      let cancelled: Promise<number> | undefined
      const url = await watchServer((stream, first) => {
        if (first.length > 0 && first.includes(Buffer.from('/refused'))) {
          stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '11', 'grpc-message': 'etcdserver:%20mvcc:%20required%20revision%20is%20a%20future%20revision' }, { endStream: true })
          return
        }
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' })
        stream.write(framed({ header: { revision: 3 }, created: true }))
        cancelled = new Promise(resolve => stream.on('close', () => resolve(stream.rstCode)))
      })
      const client = new EtcdKvClient({ servers: [url] })
      closers.push(() => client.close())
      const err = await new Promise<Error | null>(resolve => {
        client.watch({ message: () => assert.fail('no message expected'), failed: resolve }).send(encodeWatchCreate({ key: Buffer.from('/refused'), startRevision: 0, prevKv: false, progressNotify: false }))
      })
      assert.ok(err instanceof GRPCOutOfRangeError, String(err))
      assert.match(err.message, /required revision is a future revision/)

      const calls: string[] = []
      const call = client.watch({ message: () => calls.push('message'), failed: () => calls.push('failed') })
      call.send(encodeWatchCreate({ key: Buffer.from('/open'), startRevision: 0, prevKv: false, progressNotify: false }))
      while (calls.length === 0) await new Promise(resolve => setTimeout(resolve, 5))
      call.cancel()
      assert.equal(await cancelled, http2.constants.NGHTTP2_CANCEL)
      await new Promise(resolve => setTimeout(resolve, 50))
      assert.deepEqual(calls, ['message'])
    })
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

    it('watches what etcd3 writes: created, then puts and deletes with their previous values', async () => {
      const raw = new Etcd3({ hosts: etcd!.clientUrl })
      const client = new EtcdKvClient({ servers: [etcd!.clientUrl] })
      try {
        const messages: WatchResponse[] = []
        let failed: Error | null | undefined
        const call = client.watch({ message: m => messages.push(m), failed: e => (failed = e) })
        call.send(encodeWatchCreate({ key: Buffer.from('/watched/'), rangeEnd: Buffer.from('/watched0'), startRevision: 0, prevKv: true, progressNotify: false }))
        const events = () => messages.flatMap(m => m.events)
        while (!messages.some(m => m.created)) await new Promise(resolve => setTimeout(resolve, 10))
        await raw.put('/watched/a').value('one')
        await raw.put('/watched/a').value('two')
        await raw.put('/elsewhere').value('not watched')
        await raw.delete().key('/watched/a')
        const deadline = Date.now() + 5_000
        while (events().length < 3 && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 10))
        call.cancel()
        assert.equal(failed, undefined)
        const current = await raw.get('/elsewhere').exec()
        assert.deepEqual(
          events().map(e => [e.type, e.kv.key.toString(), e.kv.value.toString(), e.prevKv?.value.toString()]),
          [
            ['put', '/watched/a', 'one', undefined],
            ['put', '/watched/a', 'two', 'one'],
            ['delete', '/watched/a', '', 'two'],
          ],
        )
        assert.equal(events()[2]!.kv.modRevision, Number(current.header.revision), 'the delete is the latest revision')
      } finally {
        client.close()
        raw.close()
      }
    })
  })
})
