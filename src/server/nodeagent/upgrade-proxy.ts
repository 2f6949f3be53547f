/**
 * The upgrade pass-through of exec, attach and port-forward (the reference's
 * UpgradeAwareHandler with UpgradeRequired): the client's request, its `Upgrade`,
 * `Connection`, `Sec-WebSocket-*` and `X-Stream-Protocol-Version` headers included, is written
 * to the node agent over a connection of its own, and from then on the bytes are relayed both
 * ways untouched, the agent's `101 Switching Protocols` (or its refusal) first. The client's
 * credentials are not passed on: the agent trusts the server's client certificate.
 */
import type { Duplex } from 'node:stream'
import { errors } from '../api/status-errors.js'
import { isUpgrade, relayUpgrade, takeConnection } from '../http/upgrade.js'
import type { Request, Response } from '../http/types.js'
import { backendError } from './backend-error.js'
import { type NodeAgentLocation, hostPort } from './client.js'

/** Headers of the client's request the agent must not see (its credentials, the proxy's own Host). */
const DROPPED = new Set(['host', 'authorization', 'proxy-authorization', 'content-length', 'transfer-encoding'])

/** Whether the client's header `name` (lower case) is passed on to the backend. */
export function forwardedHeader(name: string): boolean {
  return !DROPPED.has(name) && !name.startsWith('impersonate-') && !name.startsWith(':')
}

/** The bearer token a browser sends as a WebSocket subprotocol (`base64url.bearer.authorization.k8s.io.<token>`). */
const TOKEN_PROTOCOL = 'base64url.bearer.authorization.k8s.io.'

function requestHead(req: Request, location: NodeAgentLocation, target: string): string {
  const lines = [`${req.method ?? 'GET'} ${target} HTTP/1.1`, `Host: ${hostPort(location)}`]
  const raw = req.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!
    const lower = name.toLowerCase()
    if (!forwardedHeader(lower)) continue
    let value = raw[i + 1]!
    if (lower === 'sec-websocket-protocol') {
      value = value
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== '' && !p.startsWith(TOKEN_PROTOCOL))
        .join(', ')
      if (value === '') continue
    }
    lines.push(`${name}: ${value}`)
  }
  return `${lines.join('\r\n')}\r\n\r\n`
}

/** Connects the client's upgrade request to `target` on the backend at `location`, over what `connect` opens. */
export async function proxyUpgrade(req: Request, res: Response, connect: () => Promise<Duplex>, location: NodeAgentLocation, target: string): Promise<void> {
  if (!isUpgrade(req)) throw errors.badRequest('Upgrade request required')
  let agent: Duplex
  try {
    agent = await connect()
  } catch (err) {
    throw backendError(`error dialing backend: ${(err as Error).message}`)
  }
  const connection = takeConnection(req, res)
  if (!connection) {
    agent.destroy()
    throw errors.badRequest('Upgrade request required')
  }
  return relayUpgrade(connection, agent, requestHead(req, location, target))
}
