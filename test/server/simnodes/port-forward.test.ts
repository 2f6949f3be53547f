/**
 * The simulated node agent's `/portForward/<ns>/<pod>`, spoken to as kubectl and the Python
 * client speak to a kubelet: SPDY/3.1 (a client built here on Node's zlib, primed with SPDY/3's
 * dictionary, opening an error and a data stream per connection with `streamtype`, `port` and
 * `requestid`) and the v4 WebSocket channel protocol. What answers: the nginx image's page on
 * port 80, containerd's refusal elsewhere, and kwok's PortForward (target, command-less routes)
 * and ClusterPortForward rules with kwok's choice and error text.
 */
import assert from 'node:assert/strict'
import { type Server, createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { type TLSSocket, connect as tlsConnect } from 'node:tls'
import { type Deflate, type Inflate, constants as zlibConstants, createDeflate, createInflate } from 'node:zlib'
import { WebSocket } from 'ws'
import { SimulatedNodeAgent } from '../../../src/server/simnodes/node-agent.js'
import { PodPortForwarder, type ForwardPod } from '../../../src/server/simnodes/pod-port-forwarder.js'
import { findForward, parsePortForwardRules } from '../../../src/server/simnodes/port-forward-rules.js'
import { SPDY3_DICTIONARY, SPDY3_DICTIONARY_ADLER32 } from '../../../src/server/simnodes/spdy-dictionary.js'

const PODS: Record<string, ForwardPod> = {
  'default/web': { namespace: 'default', name: 'web', uid: 'uid-web', images: ['nginx'] },
  'default/tools': { namespace: 'default', name: 'tools', uid: 'uid-tools', images: ['busybox:1.36'] },
  'other/app': { namespace: 'other', name: 'app', uid: 'uid-app', images: ['docker.io/library/nginx:1.27'] },
}

/** A SPDY/3.1 client connection as client-go's (spdystream): odd stream IDs, zlib header blocks. */
class SpdyClient {
  private buffer = Buffer.alloc(0)
  private nextId = 1
  private readonly deflate: Deflate = createDeflate({ dictionary: SPDY3_DICTIONARY })
  private readonly inflate: Inflate = createInflate({ dictionary: SPDY3_DICTIONARY })
  readonly data = new Map<number, Buffer>()
  readonly fin = new Set<number>()
  readonly replied = new Set<number>()
  private waiters: Array<() => void> = []
  private queue = Promise.resolve()

  constructor(private readonly write: (b: Buffer) => void) {}

  receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk])
    while (this.buffer.length >= 8) {
      const length = this.buffer.readUInt32BE(4) & 0xffffff
      if (this.buffer.length < 8 + length) break
      const frame = this.buffer.subarray(0, 8 + length)
      this.buffer = this.buffer.subarray(8 + length)
      this.queue = this.queue.then(() => this.handle(frame))
    }
  }

  private async handle(frame: Buffer): Promise<void> {
    if ((frame[0]! & 0x80) === 0) {
      const id = frame.readUInt32BE(0)
      this.data.set(id, Buffer.concat([this.data.get(id) ?? Buffer.alloc(0), frame.subarray(8)]))
      if (frame[4]! & 1) this.fin.add(id)
    } else if (frame.readUInt16BE(2) === 2) {
      // SYN_REPLY: its header block must inflate with the dictionary (an empty block here).
      const block = await this.zlib(this.inflate, frame.subarray(12))
      assert.equal(block.readUInt32BE(0), 0)
      this.replied.add(frame.readUInt32BE(8) & 0x7fffffff)
    }
    for (const w of this.waiters.splice(0)) w()
  }

  private zlib(stream: Deflate | Inflate, input: Buffer): Promise<Buffer> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = []
      const onData = (c: Buffer) => chunks.push(c)
      stream.on('data', onData)
      stream.write(input)
      stream.flush(zlibConstants.Z_SYNC_FLUSH, () => {
        stream.off('data', onData)
        resolve(Buffer.concat(chunks))
      })
    })
  }

  async open(headers: Record<string, string>): Promise<number> {
    const id = this.nextId
    this.nextId += 2
    const pairs: Buffer[] = [u32(Object.keys(headers).length)]
    for (const [k, v] of Object.entries(headers)) pairs.push(u32(k.length), Buffer.from(k), u32(v.length), Buffer.from(v))
    const block = await this.zlib(this.deflate, Buffer.concat(pairs))
    const body = Buffer.concat([u32(id), u32(0), Buffer.from([0, 0]), block])
    this.write(Buffer.concat([Buffer.from([0x80, 3, 0, 1]), u32(body.length), body]))
    await this.until(() => this.replied.has(id))
    return id
  }

  send(id: number, data: Buffer, fin = false): void {
    this.write(Buffer.concat([u32(id), u32(((fin ? 1 : 0) << 24) | data.length), data]))
  }

  until(done: () => boolean, ms = 5000): Promise<void> {
    if (done()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for the agent')), ms)
      const check = () => {
        if (done()) {
          clearTimeout(timer)
          resolve()
        } else this.waiters.push(check)
      }
      this.waiters.push(check)
    })
  }

  /** kubectl's handleConnection: an error stream (closed at once), a data stream with `request`, until the data stream's FIN. */
  async forward(port: number, requestId: number, request: Buffer): Promise<{ data: string; error: string }> {
    const headers = { streamtype: 'error', port: String(port), requestid: String(requestId) }
    const errorId = await this.open(headers)
    this.send(errorId, Buffer.alloc(0), true)
    const dataId = await this.open({ ...headers, streamtype: 'data' })
    this.send(dataId, request)
    await this.until(() => this.fin.has(dataId) && this.fin.has(errorId))
    return { data: (this.data.get(dataId) ?? Buffer.alloc(0)).toString(), error: (this.data.get(errorId) ?? Buffer.alloc(0)).toString() }
  }
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n >>> 0, 0)
  return b
}

const GET_CLOSE = Buffer.from('GET / HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n')

describe('simulated node agent: port-forward', function () {
  this.timeout(20_000)
  let agent: SimulatedNodeAgent
  let echo: Server
  let echoPort: number
  const sockets: TLSSocket[] = []

  before(async () => {
    echo = createServer((s) => s.pipe(s))
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve))
    echoPort = (echo.address() as AddressInfo).port
    const rules = parsePortForwardRules([
      `apiVersion: kwok.x-k8s.io/v1alpha1
kind: PortForward
metadata: {name: web, namespace: default}
spec:
  forwards:
  - ports: [8080]
    target: {port: ${echoPort}, address: 127.0.0.1}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterPortForward
metadata: {name: routes}
spec:
  selector: {matchNamespaces: [default]}
  forwards:
  - ports: [8080]
    httpRoutes:
    - location: /healthz
      code: 200
      headers: [{name: Content-Type, value: text/plain}]
      body: ok
`,
    ])
    const forwarder = new PodPortForwarder(() => rules)
    agent = await SimulatedNodeAgent.start(async () => undefined, Date.now, {
      pod: async (ns, name) => PODS[`${ns}/${name}`],
      forward: (pod, port, stream) => forwarder.forward(pod, port, stream),
    })
  })
  after(async () => {
    for (const s of sockets) s.destroy()
    await agent.close()
    await new Promise<void>((resolve) => echo.close(() => resolve()))
  })

  /** A SPDY/3.1 connection to the agent's /portForward/<ns>/<pod>, upgraded as kubectl's fallback dialer does. */
  async function spdy(ns: string, pod: string): Promise<SpdyClient> {
    const socket = tlsConnect({ host: '127.0.0.1', port: agent.port, rejectUnauthorized: false })
    sockets.push(socket)
    const client = new SpdyClient((b) => socket.write(b))
    let head = Buffer.alloc(0)
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject)
      const onData = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk])
        const end = head.indexOf('\r\n\r\n')
        if (end < 0) return
        socket.off('data', onData)
        const status = head.subarray(0, end).toString()
        if (!status.startsWith('HTTP/1.1 101')) return reject(new Error(status))
        assert.match(status, /\r\nX-Stream-Protocol-Version: portforward\.k8s\.io/i)
        socket.on('data', (d: Buffer) => client.receive(d))
        if (head.length > end + 4) client.receive(head.subarray(end + 4))
        resolve()
      }
      socket.on('data', onData)
      socket.write(`POST /portForward/${ns}/${pod} HTTP/1.1\r\nHost: agent\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: portforward.k8s.io\r\n\r\n`)
    })
    return client
  }

  it("names SPDY/3's header dictionary by the Adler-32 kubectl's header stream opens with", () => {
    // kubectl 1.35's first SYN_STREAM carries zlib's header 78 f9 then DICTID e3 c6 a7 c2.
    assert.equal(SPDY3_DICTIONARY.length, 1423)
    assert.equal(SPDY3_DICTIONARY_ADLER32, 0xe3c6a7c2)
  })

  it("SPDY: nginx's port 80 answers its default page, keep-alive connections one after another", async () => {
    const client = await spdy('other', 'app')
    for (const requestId of [0, 1]) {
      const { data, error } = await client.forward(80, requestId, GET_CLOSE)
      assert.equal(error, '')
      assert.match(data, /^HTTP\/1\.1 200 OK\r\n/)
      assert.match(data, /\r\nContent-Length: 615\r\n/)
      assert.ok(data.includes('<h1>Welcome to nginx!</h1>'))
    }
  })

  it("SPDY: a port nothing listens on gets the kubelet's error with containerd's connection refused, and the data stream closes empty", async () => {
    const client = await spdy('default', 'tools')
    const { data, error } = await client.forward(80, 0, GET_CLOSE)
    assert.equal(data, '')
    assert.match(
      error,
      /^error forwarding port 80 to pod [0-9a-f]{64}, uid : failed to execute portforward in network namespace "\/var\/run\/netns\/cni-[0-9a-f-]{36}": failed to connect to localhost:80 inside namespace "[0-9a-f]{64}", IPv4: dial tcp4 127\.0\.0\.1:80: connect: connection refused IPv6 dial tcp6 \[::1\]:80: connect: connection refused $/,
    )
  })

  it("kwok's PortForward: the pod's forward for the port dials its target; a port it does not list is kwok's error, even when a ClusterPortForward would match", async () => {
    const client = await spdy('default', 'web')
    const request = Buffer.from('ping through the target\n')
    const errorId = await client.open({ streamtype: 'error', port: '8080', requestid: '0' })
    const dataId = await client.open({ streamtype: 'data', port: '8080', requestid: '0' })
    client.send(dataId, request)
    await client.until(() => (client.data.get(dataId)?.length ?? 0) >= request.length)
    assert.equal(client.data.get(dataId)!.toString(), request.toString())
    client.send(dataId, Buffer.alloc(0), true)
    await client.until(() => client.fin.has(dataId) && client.fin.has(errorId))
    assert.equal(client.data.get(errorId)?.toString() ?? '', '')
    // Port 80 too: the pod's own PortForward decides, whatever its image (kwok's getPodsForward).
    for (const [port, id] of [[9090, 1], [80, 2]] as const) {
      const other = await client.forward(port, id, GET_CLOSE)
      assert.match(other.error, new RegExp(`: forward not found for port ${port} in pod "default/web"$`))
    }
  })

  it("kwok's ClusterPortForward: httpRoutes answer the route's code, headers and body, Go's 404 elsewhere; its selector limits it to its namespaces", async () => {
    const client = await spdy('default', 'tools')
    const ok = await client.forward(8080, 0, Buffer.from('GET /healthz HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n'))
    assert.match(ok.data, /^HTTP\/1\.1 200 OK\r\n/)
    assert.match(ok.data, /\r\nContent-Type: text\/plain\r\n/)
    assert.match(ok.data, /\r\nContent-Length: 2\r\n[^]*\r\n\r\nok$/)
    const missing = await client.forward(8080, 1, GET_CLOSE)
    assert.match(missing.data, /^HTTP\/1\.1 404 Not Found\r\n[^]*\r\n\r\n404 page not found\n$/)
    // `other/app` is outside the selector: its nginx answers port 80, nothing listens on 8080.
    const outside = await (await spdy('other', 'app')).forward(8080, 0, GET_CLOSE)
    assert.match(outside.error, /connect: connection refused/)
  })

  it('the v4 WebSocket channel protocol (the Python client): port bytes first, then the data channel, then the connection closes', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${agent.port}/portForward/other/app?port=80`, ['v4.channel.k8s.io'], { rejectUnauthorized: false })
    const messages: Buffer[] = []
    const closed = new Promise<void>((resolve) => ws.on('close', () => resolve()))
    ws.on('message', (m: Buffer) => messages.push(m))
    await new Promise<void>((resolve, reject) => {
      ws.once('open', resolve)
      ws.once('error', reject)
    })
    assert.equal(ws.protocol, 'v4.channel.k8s.io')
    ws.send(Buffer.concat([Buffer.from([0]), GET_CLOSE]))
    await closed
    // Each channel opens with its port, little-endian (kubelet's websocket.go).
    assert.deepEqual(messages.slice(0, 2).map((m) => [...m]), [
      [0, 80, 0],
      [1, 80, 0],
    ])
    const data = Buffer.concat(messages.slice(2).filter((m) => m[0] === 0).map((m) => m.subarray(1))).toString()
    assert.match(data, /^HTTP\/1\.1 200 OK\r\n/)
    assert.ok(data.includes('<h1>Welcome to nginx!</h1>'))
    assert.equal(messages.filter((m) => m[0] === 1).length, 1, 'nothing on the error channel after its port')
  })

  it('the v4 base64 WebSocket: text messages, the channel as a digit then base64 data', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${agent.port}/portForward/other/app?port=80`, ['v4.base64.channel.k8s.io'], { rejectUnauthorized: false })
    const messages: string[] = []
    const closed = new Promise<void>((resolve) => ws.on('close', () => resolve()))
    ws.on('message', (m: Buffer, isBinary: boolean) => {
      assert.equal(isBinary, false)
      messages.push(m.toString())
    })
    await new Promise<void>((resolve, reject) => {
      ws.once('open', resolve)
      ws.once('error', reject)
    })
    ws.send('0' + GET_CLOSE.toString('base64'))
    await closed
    // Port 80 as two little-endian bytes (50 00), base64.
    assert.deepEqual(messages.slice(0, 2), ['0UAA=', '1UAA='])
    const data = Buffer.concat(messages.slice(2).filter((m) => m[0] === '0').map((m) => Buffer.from(m.slice(1), 'base64'))).toString()
    assert.match(data, /^HTTP\/1\.1 200 OK\r\n/)
  })

  it('the v4 WebSocket without a port: the kubelet refuses with its message', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${agent.port}/portForward/default/web`, ['v4.channel.k8s.io'], { rejectUnauthorized: false })
    const status = await new Promise<number>((resolve) => ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)))
    assert.equal(status, 400)
  })
})

describe('kwok port-forward rules', () => {
  const rules = parsePortForwardRules([
    `kind: ClusterPortForward
apiVersion: kwok.x-k8s.io/v1alpha1
metadata: {name: all}
spec:
  forwards:
  - target: {port: 1, address: a}
  - ports: [81]
    target: {port: 2, address: b}
`,
  ])
  it('picks the forward naming the port, else the first one without ports (kwok findPortInForwards)', () => {
    assert.deepEqual(findForward(rules, 'x', 'y', 81), { forward: { ports: [81], target: { port: 2, address: 'b' } } })
    assert.deepEqual(findForward(rules, 'x', 'y', 82), { forward: { ports: [], target: { port: 1, address: 'a' } } })
    assert.equal(findForward(parsePortForwardRules([]), 'x', 'y', 80), undefined)
  })
})
