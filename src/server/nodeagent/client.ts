/**
 * The client of node agents (the reference's pkg/kubelet/client): where a node's agent listens,
 * found from its Node object (the first address of the preferred types, the port its
 * `daemonEndpoints` report or 10250), and the one function that connects to it: a stream from
 * the egress dialer's `cluster` selection with TLS around it, verified against
 * --nodeagent-certificate-authority (none: not verified, as the reference's transport is
 * insecure without a CA), presenting --nodeagent-client-certificate/-key, within
 * --nodeagent-timeout.
 */
import { readFileSync } from 'node:fs'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { type ConnectionOptions, connect as tlsConnect, type TLSSocket } from 'node:tls'
import type { EgressDialer } from '../egress/dialer.js'
import type { Registry } from '../api/registry/registry.js'
import { errors } from '../api/status-errors.js'
import { backendError } from './backend-error.js'

/** The reference's KubeletClientConfig.Port, used when the node reports no agent port. */
export const DEFAULT_NODE_AGENT_PORT = 10250

export interface NodeAgentOptions {
  caFile?: string
  certFile?: string
  keyFile?: string
  /** NodeAddressTypes, most preferred first. */
  preferredAddressTypes: readonly string[]
  timeoutMs: number
  dialer: EgressDialer
}

/** Where one node's agent listens. */
export interface NodeAgentLocation {
  host: string
  port: number
}

type Obj = Record<string, unknown>

const asObj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {})

/** A connection that did not complete in time (Go's dial timeout wording). */
class DialTimeout extends Error {}

export class NodeAgentClient {
  private tlsFiles: { ca?: Buffer; cert?: Buffer; key?: Buffer } | undefined

  constructor(private readonly options: NodeAgentOptions) {}

  /** The agent of node `nodeName`: its Node read from the registry (NotFound when absent). */
  async location(registry: Registry, nodeName: string): Promise<NodeAgentLocation> {
    const nodes = registry.lookup('', 'v1', 'nodes')
    if (!nodes) throw errors.notFound({ group: '', resource: 'nodes' }, nodeName)
    const node = asObj(await nodes.get(undefined, nodeName))
    const status = asObj(node.status)
    const addresses = Array.isArray(status.addresses) ? status.addresses.map(asObj) : []
    const host = preferredAddress(addresses, this.options.preferredAddressTypes)
    const port = Number(asObj(asObj(status.daemonEndpoints).kubeletEndpoint).Port ?? 0)
    return { host, port: Number.isInteger(port) && port > 0 ? port : DEFAULT_NODE_AGENT_PORT }
  }

  /**
   * A TLS connection to the agent at `location`, ready for an HTTP/1.1 request; `insecure`
   * skips verifying its certificate (PodLogOptions.insecureSkipTLSVerifyBackend).
   */
  connect(location: NodeAgentLocation, insecure = false): Promise<TLSSocket> {
    const files = this.files()
    const verify = files.ca !== undefined && !insecure
    return this.open(location, {
      rejectUnauthorized: verify,
      ...(verify ? { ca: files.ca } : {}),
      ...(files.cert && files.key ? { cert: files.cert, key: files.key } : {}),
    }) as Promise<TLSSocket>
  }

  /**
   * A connection for the proxies to a pod's or an endpoint's port (the reference's proxy
   * transport): plain for `http`, TLS unverified for `https`.
   */
  connectProxy(location: NodeAgentLocation, scheme: 'http' | 'https'): Promise<Duplex> {
    return this.open(location, scheme === 'https' ? { rejectUnauthorized: false } : undefined)
  }

  /** The one place a connection leaves: the egress dialer's `cluster` stream, TLS around it when asked, within the timeout. */
  private async open(location: NodeAgentLocation, tls: ConnectionOptions | undefined): Promise<Duplex> {
    const deadline = this.options.timeoutMs
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      if (deadline > 0) timer = setTimeout(() => reject(new DialTimeout(`dial tcp ${hostPort(location)}: i/o timeout`)), deadline)
    })
    try {
      const raw = await Promise.race([this.options.dialer.dial('cluster', location.host, location.port), timeout])
      if (!tls) return raw
      // `host` is the name the certificate must carry (an IP must be among its IP addresses).
      const socket = tlsConnect({ socket: raw as Socket, host: location.host, servername: isIp(location.host) ? undefined : location.host, ALPNProtocols: ['http/1.1'], ...tls })
      await Promise.race([
        new Promise<void>((resolve, reject) => {
          socket.once('secureConnect', resolve)
          socket.once('error', reject)
        }),
        timeout,
      ]).catch((err: unknown) => {
        socket.destroy()
        throw err
      })
      return socket
    } finally {
      if (timer) clearTimeout(timer)
    }
  }

  /** The certificate files, read on first use (a rotated file is read again by a new server). */
  private files(): { ca?: Buffer; cert?: Buffer; key?: Buffer } {
    if (!this.tlsFiles) {
      const { caFile, certFile, keyFile } = this.options
      this.tlsFiles = {
        ...(caFile ? { ca: readFileSync(caFile) } : {}),
        ...(certFile ? { cert: readFileSync(certFile) } : {}),
        ...(keyFile ? { key: readFileSync(keyFile) } : {}),
      }
    }
    return this.tlsFiles
  }
}

/** nodeutil.GetPreferredNodeAddress: the first address of the first type present; else the reference's NoMatchError. */
export function preferredAddress(addresses: readonly Obj[], types: readonly string[]): string {
  for (const type of types) {
    const found = addresses.find((a) => a.type === type)
    if (found) return String(found.address ?? '')
  }
  // Go's %v of []NodeAddress: [{Type Address} ...].
  const known = addresses.map((a) => `{${String(a.type ?? '')} ${String(a.address ?? '')}}`).join(' ')
  throw backendError(`no preferred addresses found; known addresses: [${known}]`)
}

/** net.JoinHostPort. */
export function hostPort(location: NodeAgentLocation): string {
  return location.host.includes(':') ? `[${location.host}]:${location.port}` : `${location.host}:${location.port}`
}

function isIp(host: string): boolean {
  return /^[0-9.]+$/.test(host) || host.includes(':')
}
