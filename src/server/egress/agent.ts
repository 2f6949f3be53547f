/**
 * HTTP and HTTPS agents whose connections are dialled through the egress dialer on one
 * network, TLS wrapped around the stream it gives for HTTPS (the reference's transports take
 * the selector's DialContext the same way). undefined while no egress configuration is in
 * effect, so the common case keeps each client's own agent.
 */
import http, { type RequestOptions } from 'node:http'
import https from 'node:https'
import type net from 'node:net'
import type { Duplex } from 'node:stream'
import tls from 'node:tls'
import { DIRECT_DIALER, type EgressNetwork } from './dialer.js'
import { egressDialer } from './installed.js'

type Created = (err: Error | null, stream: Duplex) => void

/** Dials host:port of the request's options on `network`, then hands over the stream (wrapped by `wrap`). */
function dialFor(network: EgressNetwork, options: RequestOptions, callback: Created | undefined, wrap: (stream: Duplex) => Duplex): void {
  const host = (options.host ?? 'localhost').replace(/^\[|\]$/g, '')
  const port = Number(options.port ?? options.defaultPort ?? 443)
  egressDialer()
    .dial(network, host, port)
    .then(
      (stream) => callback?.(null, wrap(stream)),
      (err: Error) => callback?.(err, undefined as unknown as Duplex),
    )
}

class EgressHttpsAgent extends https.Agent {
  constructor(private readonly network: EgressNetwork) {
    super({ keepAlive: false })
  }

  override createConnection(options: RequestOptions, callback?: Created): undefined {
    // The agent's options hold the request's TLS settings (ca, servername, cert, key).
    dialFor(this.network, options, callback, (stream) => tls.connect({ ...(options as tls.ConnectionOptions), socket: stream as net.Socket }))
    return undefined
  }
}

class EgressHttpAgent extends http.Agent {
  constructor(private readonly network: EgressNetwork) {
    super({ keepAlive: false })
  }

  override createConnection(options: RequestOptions, callback?: Created): undefined {
    dialFor(this.network, options, callback, (stream) => stream)
    return undefined
  }
}

const agents = new Map<string, http.Agent>()

/**
 * The agent for `https:` (or `http:`) requests on `network`, or undefined when no egress
 * configuration is installed (every network direct).
 */
export function egressAgent(network: EgressNetwork, protocol: 'https:' | 'http:' = 'https:'): http.Agent | undefined {
  if (egressDialer() === DIRECT_DIALER) return undefined
  const key = `${network} ${protocol}`
  let agent = agents.get(key)
  if (!agent) agents.set(key, (agent = protocol === 'https:' ? new EgressHttpsAgent(network) : new EgressHttpAgent(network)))
  return agent
}
