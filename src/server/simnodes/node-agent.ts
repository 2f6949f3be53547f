/**
 * The simulated nodes' agent: one HTTPS server on the loopback address, which every simulated
 * Node names as its InternalIP and `daemonEndpoints.kubeletEndpoint.Port`, so that the API
 * server's node-agent paths (src/server/nodeagent/: `kubectl logs`, `exec`, `attach`) reach it
 * as they would a kubelet. There is no container behind it, so it answers with simulated output:
 * - `GET /containerLogs/<ns>/<pod>/<container>`: one line naming the container, its image and
 *   its node (404 for a pod or container that does not exist, with the kubelet's wording).
 * - `/exec/<ns>/<pod>/<container>?command=...` (WebSocket, v5/v4.channel.k8s.io): `echo`
 *   writes its arguments, `hostname` the pod's name, `cat` echoes stdin, `true` and `false`
 *   exit 0 and 1; anything else writes `<command>: command not found` to stderr and exits 127.
 * - `/attach/...`: one line on stdout, then success.
 */
import { createServer, type Server } from 'node:https'
import type { IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import { createCaCertificate, createLeafCertificate, generateKey, privateKeyPem } from '../tls/generate.js'

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

  static async start(lookup: ContainerLookup, now: () => number = Date.now): Promise<SimulatedNodeAgent> {
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
      const [, kind, , pod = '', container = ''] = u.pathname.split('/').map(decodeURIComponent)
      if (kind !== 'exec' && kind !== 'attach') {
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n')
        return
      }
      void import('ws').then(({ WebSocketServer }) => {
        sockets ??= new WebSocketServer({ noServer: true, handleProtocols: (p) => ['v5.channel.k8s.io', 'v4.channel.k8s.io'].find((x) => p.has(x)) ?? false })
        sockets.handleUpgrade(req, socket, head, (ws) => runCommand(ws, kind === 'attach' ? ['echo', `attached to simulated container ${container}`] : u.searchParams.getAll('command'), pod))
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

/** One simulated command on the exec stream, ending with its Status on channel 3 as the kubelet's. */
function runCommand(ws: WebSocket, command: string[], pod: string): void {
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
  } else if (name === 'hostname') {
    send(STDOUT, `${pod}\n`)
    finish(0)
  } else if (name === 'true' || name === 'false') {
    finish(name === 'true' ? 0 : 1)
  } else if (name === 'cat' && args.length === 0) {
    ws.on('message', (data: Buffer) => {
      if (data[0] === STDIN && data.length > 1) send(STDOUT, data.subarray(1))
      else if (data[0] === CLOSE && data[1] === STDIN) finish(0)
    })
  } else {
    send(STDERR, `${name ?? ''}: command not found\n`)
    finish(127)
  }
}
