/**
 * The node agent's `/portForward/<namespace>/<pod>` (the kubelet's streaming server): the
 * upgrade is answered in the protocol the client asked for:
 * - WebSocket with `SPDY/3.1+portforward.k8s.io` (kubectl ≥ 1.31): SPDY/3.1 inside the
 *   WebSocket's binary messages, which the reference's API server would produce by tunnelling
 *   the kubelet's SPDY (here the API server relays the upgrade unchanged);
 * - WebSocket with `v4.channel.k8s.io`, `v4.base64.channel.k8s.io` or none (the Python client):
 *   the kubelet's channel protocol, for the ports of the `port` query;
 * - `Upgrade: SPDY/3.1` (kubectl's fallback, older clients): SPDY/3.1 on the connection.
 * Errors are the kubelet's: `error forwarding port <port> to pod <sandbox ID>, uid : <runtime's message>`.
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { WebSocket, WebSocketServer } from 'ws'
import { type ForwardPod, sandboxId } from './pod-port-forwarder.js'
import { serveChannelPortForward } from './port-forward-channels.js'
import { portForwardStreams } from './port-forward-streams.js'
import { SpdyServerSession } from './spdy-session.js'

export interface PodForwarding {
  pod(namespace: string, name: string): Promise<ForwardPod | undefined>
  forward(pod: ForwardPod, port: number, stream: Duplex): Promise<void>
}

const TUNNEL_PROTOCOL = 'SPDY/3.1+portforward.k8s.io'
const CHANNEL_PROTOCOLS = ['v4.channel.k8s.io', 'v4.base64.channel.k8s.io']

let sockets: WebSocketServer | undefined
let tunnels: WebSocketServer | undefined

function refuse(socket: Duplex, status: string, message: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(message)}\r\nConnection: close\r\n\r\n${message}`)
}

/** The kubelet's V4Options: every `port` value, comma-separated lists too. */
function queryPorts(url: URL): number[] | string {
  const values = url.searchParams.getAll('port')
  if (values.length === 0) return 'query parameter "port" is required'
  const ports: number[] = []
  for (const value of values) {
    if (value === '') return 'query parameter "port" cannot be empty'
    for (const p of value.split(',')) {
      const port = /^\d+$/.test(p) ? Number(p) : NaN
      if (!(port <= 65535)) return `unable to parse "${value}" as a port: strconv.ParseUint: parsing "${p}": invalid syntax`
      if (port < 1) return `port "${value}" must be > 0`
      ports.push(port)
    }
  }
  return ports
}

/** Serves a SPDY/3.1 port-forward connection whose bytes come and go through `write` and `feed`. */
function spdySession(write: (data: Buffer) => void, end: () => void, forward: (port: number, stream: Duplex) => Promise<void>, errorMessage: (port: number, err: Error) => string): SpdyServerSession {
  return new SpdyServerSession({ write, onStream: portForwardStreams(forward, errorMessage), onClose: end })
}

export async function handlePortForwardUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, namespace: string, name: string, forwarding: PodForwarding): Promise<void> {
  const pod = await forwarding.pod(namespace, name)
  if (!pod) return refuse(socket, '404 Not Found', 'pod does not exist')
  const forward = (port: number, stream: Duplex) => forwarding.forward(pod, port, stream)
  const errorMessage = (port: number, err: Error) => `error forwarding port ${port} to pod ${sandboxId(pod.uid)}, uid : ${err.message}`
  const upgrade = String(req.headers.upgrade ?? '').toLowerCase()
  if (upgrade === 'websocket') {
    const offered = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
    const tunnelled = offered.includes(TUNNEL_PROTOCOL)
    const ports = tunnelled ? [] : queryPorts(new URL(req.url ?? '/', 'https://agent'))
    if (typeof ports === 'string') return refuse(socket, '400 Bad Request', ports)
    const { WebSocketServer } = await import('ws')
    if (tunnelled) {
      // `SPDY/3.1+portforward.k8s.io` is no RFC 7230 token (its `/`), which ws refuses to parse:
      // the request goes through without it, and the answer names it.
      delete req.headers['sec-websocket-protocol']
      if (!tunnels) {
        tunnels = new WebSocketServer({ noServer: true })
        tunnels.on('headers', (headers: string[]) => headers.push(`Sec-WebSocket-Protocol: ${TUNNEL_PROTOCOL}`))
      }
      tunnels.handleUpgrade(req, socket, head, (ws: WebSocket) => {
        ws.on('error', () => ws.terminate())
        const session = spdySession(
          (data) => ws.readyState === ws.OPEN && ws.send(data),
          () => ws.readyState === ws.OPEN && ws.close(1000),
          forward,
          errorMessage,
        )
        ws.on('message', (data: Buffer) => session.receive(data))
        ws.on('close', () => session.close())
      })
      return
    }
    sockets ??= new WebSocketServer({ noServer: true, handleProtocols: (p) => CHANNEL_PROTOCOLS.find((x) => p.has(x)) ?? false })
    sockets.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      ws.on('error', () => ws.terminate())
      serveChannelPortForward(ws, socket, ports, forward, errorMessage, ws.protocol === 'v4.base64.channel.k8s.io')
    })
    return
  }
  if (!upgrade.startsWith('spdy/3.1')) return refuse(socket, '400 Bad Request', 'unable to upgrade: missing upgrade headers in request')
  socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: portforward.k8s.io\r\n\r\n')
  const session = spdySession(
    (data) => !socket.destroyed && socket.write(data),
    () => socket.end(),
    forward,
    errorMessage,
  )
  socket.on('data', (data: Buffer) => session.receive(data))
  socket.on('close', () => session.close())
  socket.on('error', () => session.close())
  if (head.length > 0) session.receive(head)
}
