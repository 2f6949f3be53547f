import assert from 'node:assert/strict'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import type tls from 'node:tls'
import { type Connection, resolveConnection } from '../../../src/core/client/connection.js'
import { UnreachableError } from '../../../src/core/client/errors.js'
import { RestClient } from '../../../src/core/client/rest-client.js'
import { type HealthTransport, probe } from '../../../src/core/health/probe.js'
import { type Pki, isolatedEnv, kubeconfigText, removeTmpDirs, testPki, tmpDir, write } from './support.js'

interface Seen {
  rawHeaders: string[]
  servername: string | false | null | undefined
  clientCn?: string
  method?: string
}

interface TestServer {
  url: string
  port: number
  seen: Seen[]
  connections: number
  openSockets(): number
  close(): Promise<void>
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, connectionRequests: number) => void

const ok: Handler = (_req, res) => {
  res.end('ok')
}

async function listen(server: http.Server | https.Server, scheme: 'http' | 'https', seen: Seen[]): Promise<TestServer> {
  const sockets = new Set<net.Socket>()
  let connections = 0
  server.on('connection', (s: net.Socket) => {
    connections++
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  server.on('tlsClientError', () => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    seen,
    get connections() {
      return connections
    },
    openSockets: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

function track(handler: Handler, seen: Seen[]): http.RequestListener {
  const perSocket = new WeakMap<net.Socket, number>()
  return (req, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1
    perSocket.set(req.socket, n)
    const socket = req.socket as tls.TLSSocket
    const peer = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined
    const cn = peer?.subject?.CN
    seen.push({ rawHeaders: req.rawHeaders, servername: socket.servername, clientCn: Array.isArray(cn) ? cn[0] : cn, method: req.method })
    handler(req, res, n)
  }
}

async function httpsServer(options: https.ServerOptions, handler: Handler = ok): Promise<TestServer> {
  const seen: Seen[] = []
  return listen(https.createServer(options, track(handler, seen)), 'https', seen)
}

async function httpServer(handler: Handler = ok): Promise<TestServer> {
  const seen: Seen[] = []
  return listen(http.createServer(track(handler, seen)), 'http', seen)
}

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
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

function headerLines(raw: string[], name: string): string[] {
  const out: string[] = []
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === name.toLowerCase()) out.push(raw[i + 1])
  return out
}

describe('core/client: REST client against real servers', function () {
  this.timeout(20_000)
  let pki: Pki
  const servers: TestServer[] = []
  const clients: RestClient[] = []

  const serve = async (s: Promise<TestServer>) => {
    const server = await s
    servers.push(server)
    return server
  }
  const client = (conn: Partial<Connection> & { server: string }) => {
    const c = new RestClient({
      namespace: 'default',
      tls: { insecureSkipVerify: false },
      headers: {},
      timeoutMs: 0,
      compression: true,
      userAgent: 'client/test (linux/amd64)',
      warnings: [],
      origin: { context: '', cluster: '', user: '', files: [] },
      ...conn,
    })
    clients.push(c)
    return c
  }

  before(async () => {
    pki = await testPki()
  })
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close()
    for (const s of servers.splice(0)) await s.close()
  })
  after(removeTmpDirs)

  describe('server certificate verification', () => {
    it('succeeds with the CA that signed the server certificate', async () => {
      const server = await serve(httpsServer({ cert: pki.server.certPem, key: pki.server.keyPem }))
      const res = await client({ server: server.url, tls: { ca: Buffer.from(pki.ca.certPem), insecureSkipVerify: false } }).get('/readyz')
      assert.equal(res.status, 200)
      assert.equal(res.body, 'ok')
    })

    it('fails on an unknown authority with kubectl\'s message', async () => {
      const server = await serve(httpsServer({ cert: pki.server.certPem, key: pki.server.keyPem }))
      for (const ca of [Buffer.from(pki.otherCa.certPem), undefined]) {
        const err = await rejection(client({ server: server.url, tls: { ca, insecureSkipVerify: false } }).get('/readyz'))
        assert.equal(err.kind, 'tls')
        assert.equal(err.message, 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority')
        assert.equal(err.url, `${server.url}/readyz`)
        assert.ok(err.cause, 'the Node error is kept as the cause')
      }
      assert.equal(server.seen.length, 0)
    })

    it('skips verification with insecureSkipVerify', async () => {
      const server = await serve(httpsServer({ cert: pki.server.certPem, key: pki.server.keyPem }))
      const res = await client({ server: server.url, tls: { insecureSkipVerify: true } }).get('/livez')
      assert.equal(res.body, 'ok')
    })

    it('verifies against --tls-server-name, sent as SNI, instead of the host', async () => {
      const server = await serve(httpsServer({ cert: pki.named.certPem, key: pki.named.keyPem }))
      const ca = Buffer.from(pki.ca.certPem)
      const byIp = await rejection(client({ server: server.url, tls: { ca, insecureSkipVerify: false } }).get('/readyz'))
      assert.equal(byIp.kind, 'tls')
      assert.equal(byIp.message, "Unable to connect to the server: tls: failed to verify certificate: x509: cannot validate certificate for 127.0.0.1 because it doesn't contain any IP SANs")
      const wrong = await rejection(client({ server: server.url, tls: { ca, insecureSkipVerify: false, serverName: 'other.example.test' } }).get('/readyz'))
      assert.equal(wrong.message, 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate is valid for api.example.test, not other.example.test')
      const res = await client({ server: server.url, tls: { ca, insecureSkipVerify: false, serverName: 'api.example.test' } }).get('/readyz')
      assert.equal(res.status, 200)
      assert.equal(server.seen.at(-1)!.servername, 'api.example.test')
    })

    it('reports an HTTP server behind an https:// URL as Go does', async () => {
      const server = await serve(httpServer())
      const err = await rejection(client({ server: server.url.replace('http:', 'https:'), tls: { insecureSkipVerify: true } }).get('/readyz'))
      assert.equal(err.kind, 'tls')
      assert.equal(err.message, 'Unable to connect to the server: http: server gave HTTP response to HTTPS client')
    })
  })

  describe('client certificates', () => {
    const requireClientCert = (): https.ServerOptions => ({
      cert: pki.server.certPem,
      key: pki.server.keyPem,
      requestCert: true,
      rejectUnauthorized: true,
      ca: pki.clientCa.certPem,
    })

    it('presents the client certificate and key', async () => {
      const server = await serve(httpsServer(requireClientCert()))
      const res = await client({
        server: server.url,
        tls: { ca: Buffer.from(pki.ca.certPem), cert: Buffer.from(pki.client.certPem), key: Buffer.from(pki.client.keyPem), insecureSkipVerify: false },
      }).get('/readyz')
      assert.equal(res.status, 200)
      assert.equal(server.seen[0].clientCn, 'admin')
    })

    it('fails when the server requires a certificate and none is given, with the server\'s alert', async () => {
      const tls13 = await serve(httpsServer(requireClientCert()))
      const conn = { tls: { ca: Buffer.from(pki.ca.certPem), insecureSkipVerify: false } }
      const err = await rejection(client({ server: tls13.url, ...conn }).get('/readyz'))
      assert.equal(err.kind, 'tls')
      assert.equal(err.message, 'Unable to connect to the server: remote error: tls: certificate required')
      const tls12 = await serve(httpsServer({ ...requireClientCert(), maxVersion: 'TLSv1.2' }))
      const old = await rejection(client({ server: tls12.url, ...conn }).get('/readyz'))
      assert.equal(old.kind, 'tls')
      assert.equal(old.message, 'Unable to connect to the server: remote error: tls: handshake failure')
      assert.equal(tls13.seen.length + tls12.seen.length, 0)
    })

    it('end to end: kubeconfig, flags and the server agree', async () => {
      const server = await serve(httpsServer(requireClientCert()))
      const dir = tmpDir()
      write(dir, 'ca.crt', pki.ca.certPem)
      write(dir, 'admin.crt', pki.client.certPem)
      write(dir, 'admin.key', pki.client.keyPem)
      const kubeconfig = write(
        dir,
        'config',
        kubeconfigText({
          'current-context': 'test',
          clusters: [{ name: 'test', cluster: { server: 'https://203.0.113.1:1', 'certificate-authority': 'ca.crt' } }],
          users: [{ name: 'admin', user: { 'client-certificate': 'admin.crt', 'client-key': 'admin.key', token: 'tok' } }],
          contexts: [{ name: 'test', context: { cluster: 'test', user: 'admin' } }],
        }),
      )
      const conn = resolveConnection({ kubeconfig, server: server.url, as: 'alice', asGroup: ['devs', 'ops'], asUserExtra: ['acme.com/team=a', 'acme.com/team=b'] }, isolatedEnv(), { version: '1.0.0' })
      const rest = new RestClient(conn)
      clients.push(rest)
      assert.equal((await rest.get('/readyz')).status, 200)
      const seen = server.seen[0]
      assert.equal(seen.clientCn, 'admin')
      assert.deepEqual(headerLines(seen.rawHeaders, 'authorization'), ['Bearer tok'])
      assert.deepEqual(headerLines(seen.rawHeaders, 'impersonate-user'), ['alice'])
      // One header line per group and per extra value, as client-go sends them.
      assert.deepEqual(headerLines(seen.rawHeaders, 'impersonate-group'), ['devs', 'ops'])
      assert.deepEqual(headerLines(seen.rawHeaders, 'impersonate-extra-acme.com%2Fteam'), ['a', 'b'])
      assert.match(headerLines(seen.rawHeaders, 'user-agent')[0], /^client\/1\.0\.0 \(/)
      assert.deepEqual(headerLines(seen.rawHeaders, 'accept-encoding'), ['gzip'])
    })
  })

  describe('connection failures', () => {
    it('reports a refused connection as kubectl does', async () => {
      const port = await freePort()
      const err = await rejection(client({ server: `https://127.0.0.1:${port}` }).get('/readyz'))
      assert.equal(err.kind, 'refused')
      assert.equal(err.message, `The connection to the server 127.0.0.1:${port} was refused - did you specify the right host or port?`)
      assert.equal(err.detail, `dial tcp 127.0.0.1:${port}: connect: connection refused`)
    })

    it('times out waiting for headers with kubectl\'s message', async () => {
      const server = await serve(httpsServer({ cert: pki.server.certPem, key: pki.server.keyPem }, () => {}))
      const started = Date.now()
      const err = await rejection(client({ server: server.url, tls: { insecureSkipVerify: true }, timeoutMs: 200 }).get('/readyz'))
      assert.equal(err.kind, 'timeout')
      assert.equal(err.message, 'Unable to connect to the server: net/http: request canceled (Client.Timeout exceeded while awaiting headers)')
      assert.ok(Date.now() - started < 5000)
    })

    it('times out reading a body that never ends', async () => {
      const server = await serve(httpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.write('partial')
      }))
      const err = await rejection(client({ server: server.url, timeoutMs: 200 }).get('/watch'))
      assert.equal(err.kind, 'timeout')
      assert.equal(err.message, 'Unable to connect to the server: context deadline exceeded (Client.Timeout exceeded while reading body)')
    })

    it('reports a connection closed before the answer as EOF', async () => {
      const server = await serve(httpServer((req) => req.socket.destroy()))
      const err = await rejection(client({ server: server.url }).get('/readyz'))
      assert.equal(err.kind, 'reset')
      assert.equal(err.message, 'Unable to connect to the server: EOF')
    })
  })

  describe('as the health probe transport', () => {
    it('serves `client health` probes: healthy on 200, unreachable with kubectl\'s message', async () => {
      const server = await serve(httpsServer({ cert: pki.server.certPem, key: pki.server.keyPem }, (req, res) => {
        res.end(req.url === '/readyz?verbose' ? '[+]ping ok\nreadyz check passed\n' : 'unexpected')
      }))
      const transport: HealthTransport = client({ server: server.url, tls: { ca: Buffer.from(pki.ca.certPem), insecureSkipVerify: false } })
      const report = await probe(transport, { endpoint: 'readyz' })
      assert.equal(report.verdict, 'healthy')
      assert.deepEqual(report.checks, [{ name: 'ping', state: 'ok' }])
      const port = await freePort()
      const down = await probe(client({ server: `https://127.0.0.1:${port}` }), { endpoint: 'livez' })
      assert.equal(down.verdict, 'unreachable')
      assert.equal(down.error, `The connection to the server 127.0.0.1:${port} was refused - did you specify the right host or port?`)
    })
  })

  describe('connections', () => {
    it('keeps one connection alive across requests and closes it on close()', async () => {
      const server = await serve(httpsServer({ cert: pki.server.certPem, key: pki.server.keyPem }))
      const rest = client({ server: server.url, tls: { ca: Buffer.from(pki.ca.certPem), insecureSkipVerify: false } })
      for (let i = 0; i < 3; i++) assert.equal((await rest.get('/readyz')).status, 200)
      assert.equal(server.connections, 1)
      assert.equal(server.openSockets(), 1)
      rest.close()
      const deadline = Date.now() + 2000
      while (server.openSockets() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
      assert.equal(server.openSockets(), 0)
    })

    it('resends an idempotent request once when a kept-alive connection was closed under it (Go does)', async () => {
      // The second request on any connection is dropped without an answer.
      const server = await serve(httpServer((req, res, n) => (n >= 2 ? req.socket.destroy() : res.end(`answer on ${req.method}`))))
      const rest = client({ server: server.url })
      assert.equal((await rest.get('/a')).body, 'answer on GET')
      assert.equal((await rest.get('/b')).body, 'answer on GET')
      assert.equal(server.connections, 2)
      // Not a POST: it may have been processed.
      const err = await rejection(rest.request('POST', '/c', { body: '{}' }))
      assert.equal(err.kind, 'reset')
      assert.equal(err.message, 'Unable to connect to the server: EOF')
    })
  })
})
