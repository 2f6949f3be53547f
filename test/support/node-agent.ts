/**
 * A test node agent: an HTTPS server on 127.0.0.1 with a certificate of its own CA, serving
 * what the API server forwards to a node's agent:
 * - `GET /containerLogs/<ns>/<pod>/<container>`: the text set in `logs` for that container
 *   (404 otherwise); with `follow=true` the stream stays open `followMs` more, then ends with
 *   `followTail`.
 * - `/exec/<ns>/<pod>/<container>?command=...` over WebSocket (`v5.channel.k8s.io`, then
 *   `v4.channel.k8s.io`): each message is a channel byte and its data (0 stdin, 1 stdout,
 *   2 stderr, 3 the final Status, 4 resize, 255 close of a stream in v5). A fixed set of
 *   commands: `echo <args>` writes its arguments, `cat` echoes stdin until it closes,
 *   `stderr <args>` writes to stderr, `exit <n>` ends with exit code n.
 * - any method on `/echo/...`: a JSON object of the method, path, query and body it received.
 * - `/attach/<ns>/<pod>/<container>` over WebSocket: `attached to <container>` on stdout, then
 *   success.
 * Every request is recorded with its path, query, headers and the client certificate's CN.
 */
import { createServer, type Server } from 'node:https'
import type { IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import type { TLSSocket } from 'node:tls'
import { WebSocketServer, type WebSocket } from 'ws'
import { createCaCertificate, createLeafCertificate, generateKey, privateKeyPem } from '../../src/server/tls/generate.js'

export interface AgentRequest {
  method: string
  path: string
  query: URLSearchParams
  headers: IncomingMessage['headers']
  /** The CN of the certificate the API server presented, '' when none. */
  clientCommonName: string
}

const STDIN = 0
const STDOUT = 1
const STDERR = 2
const ERROR = 3
const CLOSE = 255

export class TestNodeAgent {
  readonly requests: AgentRequest[] = []
  /** `<ns>/<pod>/<container>` to its log text. */
  readonly logs = new Map<string, string>()
  /** How long a followed log stays open after its text, and what it writes last before it ends. */
  followMs = 300
  followTail = 'written later\n'

  private constructor(
    private readonly server: Server,
    readonly port: number,
    readonly caPem: string,
  ) {}

  static async start(): Promise<TestNodeAgent> {
    const now = Date.now()
    const notBefore = new Date(now - 3_600_000)
    const notAfter = new Date(now + 86_400_000)
    const caKey = await generateKey('ecdsa')
    const caPem = await createCaCertificate({ key: caKey, commonName: 'node-agent-ca', notBefore, notAfter })
    const key = await generateKey('ecdsa')
    const certPem = await createLeafCertificate({
      ca: { certPem: caPem, privateKey: caKey.privateKey },
      publicKey: key.publicKey,
      commonName: 'node-agent',
      dns: ['localhost'],
      ips: ['127.0.0.1'],
      notBefore,
      notAfter,
    })
    let self: TestNodeAgent | undefined
    const server = createServer({ cert: certPem, key: privateKeyPem(key.privateKey), requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const request = self!.record(req)
      const parts = request.path.split('/')
      if (parts[1] === 'containerLogs' && req.method === 'GET') {
        const text = self!.logs.get(parts.slice(2).join('/'))
        if (text === undefined) {
          res.writeHead(404, { 'Content-Type': 'text/plain' })
          res.end('container not found')
          return
        }
        res.writeHead(200, { 'Content-Type': 'text/plain' })
        res.write(text)
        if (request.query.get('follow') === 'true') setTimeout(() => res.end(self!.followTail), self!.followMs)
        else res.end()
        return
      }
      if (parts[1] === 'echo') {
        const chunks: Buffer[] = []
        req.on('data', (c: Buffer) => chunks.push(c))
        req.on('end', () => {
          res.writeHead(200, { 'Content-Type': 'application/json' })
          res.end(JSON.stringify({ method: req.method, path: request.path, query: url(req).search, body: Buffer.concat(chunks).toString('utf8') }))
        })
        return
      }
      res.writeHead(404)
      res.end('not found')
    })
    const sockets = new WebSocketServer({
      noServer: true,
      handleProtocols: (protocols) => ['v5.channel.k8s.io', 'v4.channel.k8s.io'].find((p) => protocols.has(p)) ?? false,
    })
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const request = self!.record(req)
      if (request.path.startsWith('/attach/')) {
        // Attaching to the container's running process: it prints one line and exits.
        sockets.handleUpgrade(req, socket, head, (ws) => runCommand(ws, ['echo', `attached to ${request.path.split('/')[4] ?? ''}`]))
        return
      }
      if (!request.path.startsWith('/exec/')) {
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n')
        return
      }
      sockets.handleUpgrade(req, socket, head, (ws) => runCommand(ws, request.query.getAll('command')))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    self = new TestNodeAgent(server, (server.address() as AddressInfo).port, caPem)
    return self
  }

  private record(req: IncomingMessage): AgentRequest {
    const parsed = url(req)
    const peer = (req.socket as TLSSocket).getPeerCertificate?.()
    const request = { method: req.method ?? '', path: parsed.pathname, query: parsed.searchParams, headers: req.headers, clientCommonName: String(peer?.subject?.CN ?? '') }
    this.requests.push(request)
    return request
  }

  /** The Node object whose agent this is: InternalIP 127.0.0.1 and this port (plus `extra` addresses first). */
  node(name: string, extraAddresses: Array<{ type: string; address: string }> = []): Record<string, unknown> {
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name },
      status: {
        addresses: [...extraAddresses, { type: 'InternalIP', address: '127.0.0.1' }],
        daemonEndpoints: { kubeletEndpoint: { Port: this.port } },
      },
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

function url(req: IncomingMessage): URL {
  return new URL(req.url ?? '/', 'https://agent')
}

/** Runs one of the fixed commands on the exec stream and sends its Status on channel 3. */
function runCommand(ws: WebSocket, command: string[]): void {
  const send = (channel: number, data: string | Buffer) => ws.send(Buffer.concat([Buffer.from([channel]), Buffer.from(data)]))
  const finish = (code: number) => {
    const status =
      code === 0
        ? { metadata: {}, status: 'Success' }
        : {
            metadata: {},
            status: 'Failure',
            message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`,
            reason: 'NonZeroExitCode',
            details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
          }
    send(ERROR, JSON.stringify(status))
    ws.close(1000)
  }
  const [name, ...args] = command
  if (name === 'echo') {
    send(STDOUT, `${args.join(' ')}\n`)
    finish(0)
  } else if (name === 'stderr') {
    send(STDERR, `${args.join(' ')}\n`)
    finish(0)
  } else if (name === 'exit') {
    finish(Number(args[0] ?? '1'))
  } else if (name === 'cat') {
    ws.on('message', (data: Buffer) => {
      if (data[0] === STDIN && data.length > 1) send(STDOUT, data.subarray(1))
      else if (data[0] === CLOSE && data[1] === STDIN) finish(0)
    })
    ws.on('close', () => undefined)
  } else {
    send(STDERR, `${name ?? ''}: command not found\n`)
    finish(127)
  }
}
