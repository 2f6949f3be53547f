/**
 * The simulated nodes' agent: one HTTPS server on the loopback address, which every simulated
 * Node names as its InternalIP and `daemonEndpoints.kubeletEndpoint.Port`, so that the API
 * server's node-agent paths (src/server/nodeagent/: `kubectl logs`, `exec`, `attach`) reach it
 * as they would a kubelet. There is no container behind it, so it answers with simulated output:
 * - `GET /containerLogs/<ns>/<pod>/<container>`: one line naming the container, its image and
 *   its node (404 for a pod or container that does not exist, with the kubelet's wording).
 * - `/exec/<ns>/<pod>/<container>?command=...` (WebSocket, v5/v4.channel.k8s.io): the command
 *   run by a small simulated shell (simulated-shell.ts: echo, date, seq, for loops, `sh -c`,
 *   an interactive `sh` on stdin, `cat`, `exit n`, ...); an unknown command prints busybox sh's
 *   `sh: <name>: not found` and exits 127.
 * - `/attach/...`: one line on stdout, then success.
 * - `/portForward/<ns>/<pod>` (WebSocket or SPDY): port-forward-upgrade.ts.
 */
import { createServer, type Server } from 'node:https'
import type { IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import { createCaCertificate, createLeafCertificate, generateKey, privateKeyPem } from '../tls/generate.js'
import type { PodForwarding } from './port-forward-upgrade.js'
import { SimulatedShell } from './simulated-shell.js'

const STDIN = 0
const STDOUT = 1
const STDERR = 2
const ERROR = 3
const CLOSE = 255

/** A pod's container as the agent sees it: its image and node, or undefined when absent. */
export type ContainerLookup = (namespace: string, pod: string, container: string) => Promise<{ image: string; node: string } | undefined>

export class SimulatedNodeAgent {
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(lookup: ContainerLookup, now: () => number = Date.now, forwarding?: PodForwarding): Promise<SimulatedNodeAgent> {
    const start = now()
    const [notBefore, notAfter] = [new Date(start - 3_600_000), new Date(start + 365 * 86_400_000)]
    const caKey = await generateKey('ecdsa')
    const caPem = await createCaCertificate({ key: caKey, commonName: 'simulated-node-agent-ca', notBefore, notAfter })
    const key = await generateKey('ecdsa')
    const cert = await createLeafCertificate({ ca: { certPem: caPem, privateKey: caKey.privateKey }, publicKey: key.publicKey, commonName: 'simulated-node-agent', dns: ['localhost'], ips: ['127.0.0.1'], notBefore, notAfter })
    const server = createServer({ cert, key: privateKeyPem(key.privateKey), requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const parts = url(req).pathname.split('/').map(decodeURIComponent)
      if (parts[1] !== 'containerLogs' || req.method !== 'GET' || parts.length !== 5) {
        res.writeHead(404, { 'Content-Type': 'text/plain' })
        res.end('404 page not found\n')
        return
      }
      const [, , namespace, pod, container] = parts as [string, string, string, string, string]
      void lookup(namespace, pod, container).then(
        (found) => {
          if (!found) {
            res.writeHead(404, { 'Content-Type': 'text/plain' })
            res.end(`container "${container}" in pod "${pod}" is not available`)
            return
          }
          res.writeHead(200, { 'Content-Type': 'text/plain' })
          res.end(`simulated container ${container} of pod ${namespace}/${pod} (image ${found.image}) on node ${found.node}: no real process runs here\n`)
        },
        (err: Error) => {
          res.writeHead(500, { 'Content-Type': 'text/plain' })
          res.end(err.message)
        },
      )
    })
    let sockets: import('ws').WebSocketServer | undefined
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const u = url(req)
      const [, kind, namespace = '', pod = '', container = ''] = u.pathname.split('/').map(decodeURIComponent)
      if (kind === 'portForward' && forwarding) {
        // Loaded on the first port-forward: start-up does not pay for SPDY and zlib.
        import('./port-forward-upgrade.js')
          .then(({ handlePortForwardUpgrade }) => handlePortForwardUpgrade(req, socket, head, namespace, pod, forwarding))
          .catch(() => socket.destroy())
        return
      }
      if (kind !== 'exec' && kind !== 'attach') {
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n')
        return
      }
      void import('ws').then(({ WebSocketServer }) => {
        sockets ??= new WebSocketServer({ noServer: true, handleProtocols: (p) => ['v5.channel.k8s.io', 'v4.channel.k8s.io'].find((x) => p.has(x)) ?? false })
        sockets.handleUpgrade(req, socket, head, (ws) => runCommand(ws, socket, kind === 'attach' ? ['echo', `attached to simulated container ${container}`] : u.searchParams.getAll('command'), pod))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return new SimulatedNodeAgent(server, (server.address() as AddressInfo).port)
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

function url(req: IncomingMessage): URL {
  return new URL(req.url ?? '/', 'https://agent')
}

/** One simulated command on the exec stream (simulated-shell.ts), ending with its Status on channel 3 as the kubelet's. */
function runCommand(ws: WebSocket, socket: Duplex, command: string[], pod: string): void {
  const send = (channel: number, data: string | Buffer) => ws.send(Buffer.concat([Buffer.from([channel]), Buffer.from(data)]))
  let finished = false
  const finish = (code: number) => {
    if (finished) return
    finished = true
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
    // As the kubelet's WebSocket (golang.org/x/net/websocket) does: the close frame, then the
    // connection closes, without waiting for the client's close frame. A client that polls
    // its socket (the Python client) sees the end even when the Status and the close frame
    // reached it in one TLS record.
    socket.end()
  }
  const shell = new SimulatedShell({ out: (d) => send(STDOUT, d), err: (d) => send(STDERR, d), hostname: pod, now: Date.now })
  const fail = (err: Error) => {
    send(STDERR, `${err.message}\n`)
    finish(1)
  }
  const onStdin = (handle: (data: Buffer) => void, closed: () => void) => {
    ws.on('message', (data: Buffer) => {
      if (data[0] === STDIN && data.length > 1) handle(data.subarray(1))
      else if (data[0] === CLOSE && data[1] === STDIN) closed()
    })
  }
  const [name = '', ...args] = command
  const program = name.replace(/^\/(usr\/)?bin\//, '')
  if ((program === 'sh' || program === 'bash') && args[0] === '-c') {
    if (args[1]?.trim() === 'cat') return onStdin((d) => send(STDOUT, d), () => finish(0))
    void shell.run(args[1] ?? '').then(({ status }) => finish(status), fail)
  } else if (program === 'sh' || program === 'bash') {
    // An interactive shell: each line of stdin is run; `exit` or the end of stdin ends it.
    let pending = ''
    let last = 0
    let queue = Promise.resolve()
    onStdin(
      (data) => {
        pending += data.toString('utf8')
        const lines = pending.split('\n')
        pending = lines.pop() ?? ''
        for (const line of lines) {
          queue = queue.then(async () => {
            if (finished) return
            const { status, exited } = await shell.run(line)
            last = status
            if (exited) finish(status)
          }, fail)
        }
      },
      () => void queue.then(() => finish(last)),
    )
  } else if (program === 'cat' && args.length === 0) {
    onStdin((d) => send(STDOUT, d), () => finish(0))
  } else {
    void shell.runArgv(command).then(({ status }) => finish(status), fail)
  }
}
