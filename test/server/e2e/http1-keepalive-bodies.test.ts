/**
 * HTTP/1.1 keep-alive with request bodies: many 20-500 KiB bodies, sent one after another on
 * one kept-alive connection, each get the server's own answer (a Status for the errors), never
 * a transport-level 400 from Node's HTTP parser ("HPE_PAUSED") nor a dropped connection.
 */
import assert from 'node:assert/strict'
import { Agent, request as httpsRequest } from 'node:https'
import { ApiServer, type Reply } from '../../support/api-server.js'

const KIB = 1024
const COUNT = Number(process.env.KEEPALIVE_BODIES_COUNT ?? 240)
const CM = '/api/v1/namespaces/default/configmaps'

interface Case {
  what: string
  method: string
  path: string
  contentType: string
  body: Buffer
  status: number
  kind: string
}

/** Deterministic sizes, so a failure can be replayed. */
function* sizes(): Generator<number> {
  let x = 12345
  for (;;) {
    x = (x * 1103515245 + 12345) % 2 ** 31
    yield 20 * KIB + (x % (480 * KIB))
  }
}

function makeCase(i: number, size: number): Case {
  switch (i % 5) {
    case 0: {
      const data = 'a'.repeat(size)
      return { what: 'created', method: 'POST', path: CM, contentType: 'application/json', body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'big-' }, data: { a: data } })), status: 201, kind: 'ConfigMap' }
    }
    case 1: {
      // A YAML document nested past the decoder's depth limit, padded by a comment to `size`.
      const depth = 1001 + (size % 5000)
      const doc = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: deep-\ndata:\n  a: ${'['.repeat(depth)}${']'.repeat(depth)}\n`
      return { what: 'deep yaml', method: 'POST', path: CM, contentType: 'application/yaml', body: Buffer.from(`# ${'x'.repeat(Math.max(0, size - doc.length))}\n${doc}`), status: 400, kind: 'Status' }
    }
    case 2: {
      // Malformed JSON: the body is read whole, then refused.
      return { what: 'malformed json', method: 'POST', path: CM, contentType: 'application/json', body: Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"${'b'.repeat(size)}"`), status: 400, kind: 'Status' }
    }
    case 3: {
      // A JSON patch of too many operations: 413.
      const n = 10_001 + (size % 200)
      const ops = Array.from({ length: n }, () => '{"op":"test","path":"/kind","value":"ConfigMap"}').join(',')
      return { what: 'too many patch ops', method: 'PATCH', path: `${CM}/target`, contentType: 'application/json-patch+json', body: Buffer.from(`[${ops}]`), status: 413, kind: 'Status' }
    }
    default: {
      // A body to an endpoint that does not take one: answered without reading it.
      return { what: 'unread body', method: 'POST', path: `${CM}/target`, contentType: 'application/json', body: Buffer.alloc(size, 0x20), status: 405, kind: 'Status' }
    }
  }
}

function send(server: ApiServer, agent: Agent, c: Case): Promise<Reply & { reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port: server.port, path: c.path, method: c.method, headers: { 'Content-Type': c.contentType, 'Content-Length': c.body.length, Accept: 'application/json' }, rejectUnauthorized: false, ...server.tlsClient(), agent },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (d: Buffer) => chunks.push(d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), reused: req.reusedSocket }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(c.body)
  })
}

describe('HTTP/1.1 keep-alive request bodies', function () {
  this.timeout(300_000)
  let server: ApiServer
  let agent: Agent

  before(async function () {
    this.timeout(60_000)
    server = await ApiServer.start({ waitFor: 'ready' })
    const r = await server.get(CM, { 'Content-Type': 'application/json' }, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data: { a: 'b' } }))
    assert.equal(r.status, 201, r.body)
    agent = new Agent({ keepAlive: true, maxSockets: 1 })
  })

  after(async () => {
    agent?.destroy()
    await server?.stop()
  })

  it(`answers ${COUNT} bodies of 20-500 KiB on one kept-alive connection, errors included, each with its own answer`, async () => {
    const problems: string[] = []
    const size = sizes()
    let reused = 0
    for (let i = 0; i < COUNT; i++) {
      const c = makeCase(i, size.next().value as number)
      let reply: Reply & { reused: boolean }
      try {
        reply = await send(server, agent, c)
      } catch (err) {
        problems.push(`#${i} ${c.what} (${c.body.length} B): ${(err as Error).message}`)
        continue
      }
      if (reply.reused) reused++
      let kind: unknown
      try {
        kind = (JSON.parse(reply.body) as { kind?: unknown }).kind
      } catch {
        kind = undefined
      }
      if (reply.status !== c.status || kind !== c.kind) {
        problems.push(`#${i} ${c.what} (${c.body.length} B): ${reply.status} ${JSON.stringify(reply.headers)} ${reply.body.slice(0, 200)}`)
      }
    }
    assert.deepEqual(problems, [], `${problems.length} of ${COUNT} requests`)
    // The requests were indeed sent on kept-alive connections.
    assert.ok(reused > COUNT / 2, `only ${reused} requests reused a connection`)
  })
})
