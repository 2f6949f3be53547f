/**
 * --max-connection-bytes-per-sec: a long-running response (here a watch replaying stored
 * objects) is paced to the rate, so its bytes cannot arrive sooner than bytes / rate seconds
 * (the first tenth of a second's worth goes at once). Only that lower bound is asserted: a
 * loaded machine makes things later, never earlier. A plain GET is not paced.
 */
import assert from 'node:assert/strict'
import { request as httpsRequest } from 'node:https'
import { ApiServer } from '../../support/api-server.js'

const RATE = 4000

/** Reads a watch until `events` events have arrived; the bytes read and when the last came. */
function readWatch(port: number, path: string, tls: { cert?: string; key?: string }, events: number): Promise<{ bytes: number; elapsedMs: number }> {
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, method: 'GET', rejectUnauthorized: false, agent: false, ...tls }, (res) => {
      let bytes = 0
      let lines = 0
      res.on('data', (d: Buffer) => {
        bytes += d.length
        for (const b of d) if (b === 0x0a) lines++
        if (lines >= events) {
          resolve({ bytes, elapsedMs: Date.now() - started })
          req.destroy()
        }
      })
      res.on('error', () => undefined)
    })
    req.on('error', (err) => (err.message.includes('aborted') ? undefined : reject(err)))
    req.end()
  })
}

describe('server: --max-connection-bytes-per-sec (end to end)', function () {
  this.timeout(120_000)
  let server: ApiServer

  before(async () => {
    server = await ApiServer.start({ admin: true, waitFor: 'ready', args: [`--max-connection-bytes-per-sec=${RATE}`] })
    for (let i = 0; i < 6; i++) {
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}` }, data: { blob: 'x'.repeat(4000) } })
      const reply = await server.get('/api/v1/namespaces/default/configmaps', { 'Content-Type': 'application/json' }, 'POST', body)
      assert.equal(reply.status, 201, reply.body)
    }
  })
  after(async () => {
    await server?.stop()
  })

  it('paces a watch to the rate', async () => {
    const { bytes, elapsedMs } = await readWatch(server.port, '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0', server.tlsClient(), 6)
    assert.ok(bytes > 24_000, `${bytes} bytes`)
    const notBeforeMs = (bytes / RATE - 0.1) * 1000 - 50
    assert.ok(elapsedMs >= notBeforeMs, `${bytes} bytes arrived in ${elapsedMs} ms, faster than ${RATE} bytes/s`)
  })

  it('does not pace a list', async () => {
    const reply = await server.get('/api/v1/namespaces/default/configmaps')
    assert.equal(reply.status, 200)
    assert.equal((JSON.parse(reply.body) as { items: unknown[] }).items.length, 6)
  })
})
