import assert from 'node:assert/strict'
import { connect, createSecureServer, type Http2SecureServer } from 'node:http2'
import type { AddressInfo } from 'node:net'
import tls from 'node:tls'
import { applyHttp2Timeouts } from '../../../src/server/http/timeouts.js'
import { testTls } from '../../support/oidc-issuer.js'

describe('http: the HTTP/2 connection timeouts (client preface, idle connection)', function () {
  this.timeout(20_000)
  let server: Http2SecureServer
  let port: number
  let ca: string

  before(async () => {
    const material = await testTls('h2-timeouts')
    ca = material.caPem
    server = createSecureServer({ cert: material.certPem, key: material.keyPem })
    server.on('stream', (stream, headers) => {
      // /slow answers after a while: its connection is not idle meanwhile.
      const delay = headers[':path'] === '/slow' ? 1500 : 0
      setTimeout(() => {
        if (stream.destroyed) return
        stream.respond({ ':status': 200 })
        stream.end('ok')
      }, delay)
    })
    applyHttp2Timeouts(server, 300, 500)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  it('closes a connection that never sends the client preface', async () => {
    const closed = await new Promise<boolean>((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port, ca, ALPNProtocols: ['h2'] })
      socket.on('error', () => {})
      // Read (nothing comes): the end of the stream is seen only by a reader.
      socket.resume()
      socket.once('close', () => resolve(true))
      setTimeout(() => resolve(false), 5000).unref()
    })
    assert.equal(closed, true)
  })

  it('sends GOAWAY to a connection without open streams after the idle timeout, never while a request runs', async () => {
    const client = connect(`https://127.0.0.1:${port}`, { ca })
    client.on('error', () => {})
    let respondedAt: number | undefined
    const goaway = new Promise<{ code: number; afterResponse: boolean }>((resolve) => client.once('goaway', (code: number) => resolve({ code, afterResponse: respondedAt !== undefined })))
    // A request longer than the idle timeout keeps the connection.
    const answered = await new Promise<number>((resolve, reject) => {
      const req = client.request({ ':path': '/slow' })
      req.on('response', (h) => {
        respondedAt = Date.now()
        resolve(Number(h[':status']))
      })
      req.on('error', reject)
      req.resume()
    })
    assert.equal(answered, 200)
    // Then, idle, it is told to go away (NO_ERROR) and closed.
    assert.deepEqual(await goaway, { code: 0, afterResponse: true })
    await new Promise<void>((resolve) => (client.closed ? resolve() : client.once('close', () => resolve())))
    assert.ok(client.closed || client.destroyed)
  })
})
