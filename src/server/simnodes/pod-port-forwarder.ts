/**
 * What a port-forward to a simulated pod reaches (the kubelet's PortForwarder, answered as
 * kwok answers it, then as the container would): the pod's kwok PortForward or a
 * ClusterPortForward (port-forward-rules.ts: a target address dialled, a command on the
 * stream's stdin and stdout, fixed HTTP routes); without one, the server of a well-known image
 * (simulated-endpoints.ts); else nothing listens, and the forward fails as containerd's
 * portForward does when the dial to the pod's port is refused. The failure's message is the
 * runtime's; the protocol handlers wrap it as the kubelet does (`error forwarding port ...`).
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { connect } from 'node:net'
import type { Duplex } from 'node:stream'
import { type HttpHandler, serveHttpOn } from './http-over-stream.js'
import { type Forward, type HttpRoute, type PortForwardRules, findForward } from './port-forward-rules.js'
import { simulatedEndpoint } from './simulated-endpoints.js'

/** The pod as the forwarder needs it. */
export interface ForwardPod {
  namespace: string
  name: string
  uid: string
  images: string[]
}

/** The pod sandbox's ID as containerd reports it: stable for a pod, 64 hex digits. */
export function sandboxId(podUid: string): string {
  return createHash('sha256').update(`sandbox/${podUid}`).digest('hex')
}

/** The CNI network namespace of the sandbox (`/var/run/netns/cni-<uuid>`). */
function netnsPath(podUid: string): string {
  const h = createHash('sha256').update(`netns/${podUid}`).digest('hex')
  return `/var/run/netns/cni-${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

/** Go's net error text for a refused dial (`dial tcp4 127.0.0.1:80: connect: connection refused`). */
function dialError(network: string, address: string, err: NodeJS.ErrnoException): string {
  const cause = err.code === 'ECONNREFUSED' ? 'connect: connection refused' : err.code === 'ETIMEDOUT' ? 'i/o timeout' : err.message
  return `dial ${network} ${address}: ${cause}`
}

export class PodPortForwarder {
  constructor(private readonly rules: () => PortForwardRules) {}

  /** Forwards `stream` to `port` of `pod`; settles when the forward ends, rejects with the runtime's message. */
  async forward(pod: ForwardPod, port: number, stream: Duplex): Promise<void> {
    const answer = findForward(this.rules(), pod.name, pod.namespace, port)
    if (answer && 'error' in answer) throw new Error(answer.error)
    if (answer) return runForward(answer.forward, stream)
    const endpoint = simulatedEndpoint(pod.images, port)
    if (endpoint) return serveHttpOn(stream, endpoint)
    // containerd's portForward: localhost in the sandbox's namespace, IPv4 then IPv6, both refused.
    const id = sandboxId(pod.uid)
    throw new Error(
      `failed to execute portforward in network namespace "${netnsPath(pod.uid)}": failed to connect to localhost:${port} inside namespace "${id}", ` +
        `IPv4: dial tcp4 127.0.0.1:${port}: connect: connection refused IPv6 dial tcp6 [::1]:${port}: connect: connection refused `,
    )
  }
}

/** kwok's PortForward: a command first, then a target, then HTTP routes. */
function runForward(forward: Forward, stream: Duplex): Promise<void> {
  if (forward.command && forward.command.length > 0) return runCommand(forward.command, stream)
  if (forward.target) return tunnel(forward.target, stream)
  if (forward.httpRoutes && forward.httpRoutes.length > 0) return serveHttpOn(stream, routes(forward.httpRoutes))
  return Promise.reject(new Error('no target or command'))
}

function tunnel(target: { port: number; address: string }, stream: Duplex): Promise<void> {
  const address = `${target.address}:${target.port}`
  return new Promise((resolve, reject) => {
    const socket = connect({ host: target.address, port: target.port })
    socket.once('error', (err: NodeJS.ErrnoException) => reject(new Error(`failed to dial ${address}: ${dialError('tcp', address, err)}`)))
    socket.once('connect', () => {
      socket.removeAllListeners('error')
      socket.on('error', () => stream.destroy())
      stream.on('error', () => socket.destroy())
      stream.pipe(socket)
      socket.pipe(stream)
      let pending = 2
      const done = () => {
        if (--pending === 0) resolve()
      }
      socket.once('close', () => {
        stream.end()
        done()
      })
      stream.once('close', () => {
        socket.destroy()
        done()
      })
    })
  })
}

function runCommand(command: string[], stream: Duplex): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'pipe', 'ignore'] })
    stream.pipe(child.stdin)
    child.stdin.on('error', () => {})
    child.stdout.pipe(stream)
    stream.once('close', () => child.kill())
    child.once('error', (err) => reject(new Error(`exec: ${JSON.stringify(command[0])}: ${err.message}`)))
    child.once('close', (code) => (code === 0 || code === null ? resolve() : reject(new Error(`exit status ${code}`))))
  })
}

/** kwok's httpRoutes: the route whose location is the request's path, else Go's NotFound. */
function routes(list: HttpRoute[]): HttpHandler {
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://pod').pathname
    const route = list.find((r) => r.location === path)
    if (!route) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': 19 })
      res.end('404 page not found\n')
      return
    }
    for (const h of route.headers) res.setHeader(h.name, h.value)
    // Go's ResponseWriter sends a small body whole, with its length.
    res.setHeader('Content-Length', Buffer.byteLength(route.body))
    res.writeHead(route.code)
    res.end(route.body)
  }
}
