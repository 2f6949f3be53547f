/**
 * HTTP/1.1 keep-alive with large answers: LISTs of 500 ConfigMaps asked as protobuf, several
 * on each kept-alive connection, all complete with their whole body. A change of how HTTP/1.1
 * connections are read (the sixth round's lazy switch to stream reads, reverted) stalled such
 * connections while a large response was still being written; this guards the request path's
 * connection handling (src/server/http/) against that.
 */
import assert from 'node:assert/strict'
import { Agent, request as httpsRequest } from 'node:https'
import { ApiServer } from '../../support/api-server.js'

const CM = '/api/v1/namespaces/default/configmaps'
const OBJECTS = 500
const LISTS = 20
const CONNECTIONS = 4
const PROTOBUF = 'application/vnd.kubernetes.protobuf'
/** The magic of every protobuf answer (k8s\0), then the Unknown envelope. */
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00])

function list(server: ApiServer, agent: Agent): Promise<{ status: number; type: string; body: Buffer; socket: object }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port: server.port, path: CM, headers: { Accept: PROTOBUF }, rejectUnauthorized: false, ...server.tlsClient(), agent }, (res) => {
      const chunks: Buffer[] = []
      const socket = res.socket
      assert.ok(socket, 'no socket')
      res.on('data', (d: Buffer) => chunks.push(d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks), socket }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

describe('HTTP/1.1 keep-alive protobuf LISTs', function () {
  this.timeout(120_000)
  let server: ApiServer
  let agent: Agent

  before(async function () {
    this.timeout(120_000)
    server = await ApiServer.start({ waitFor: 'ready' })
    let next = 0
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < OBJECTS) {
          const name = `c${String(next++).padStart(4, '0')}`
          const r = await server.get(CM, { 'Content-Type': 'application/json' }, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload: 'x'.repeat(900) } }))
          assert.equal(r.status, 201, r.body)
        }
      }),
    )
    agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  })

  after(async () => {
    agent?.destroy()
    await server?.stop()
  })

  it(`answers ${LISTS} LISTs of ${OBJECTS} as protobuf on ${CONNECTIONS} kept-alive connections, each whole, within 20 s`, async function () {
    // Generous: the idle machine does this in well under a second; a stalled connection never ends.
    this.timeout(20_000)
    const replies = await Promise.all(Array.from({ length: LISTS }, () => list(server, agent)))
    for (const [i, r] of replies.entries()) {
      assert.equal(r.status, 200, `#${i}`)
      assert.equal(r.type, PROTOBUF, `#${i}`)
      assert.deepEqual(r.body.subarray(0, 4), MAGIC, `#${i}`)
      // Every object's name is in the body (each about 1 KiB): the whole list arrived.
      assert.ok(r.body.length > OBJECTS * 900, `#${i}: ${r.body.length} bytes`)
      assert.ok(r.body.includes('c0499') && r.body.includes('c0000'), `#${i}: first or last object missing`)
    }
    // The LISTs shared the agent's few kept-alive connections (queued ones go out as a connection frees).
    assert.ok(new Set(replies.map((r) => r.socket)).size <= CONNECTIONS, 'the LISTs were not sent on kept-alive connections')
  })
})
