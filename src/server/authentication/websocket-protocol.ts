/**
 * Bearer tokens of WebSocket clients (reference: request/websocket): a browser cannot set an
 * Authorization header on a WebSocket, so the token travels as a subprotocol,
 * `Sec-WebSocket-Protocol: base64url.bearer.authorization.k8s.io.<base64url of the token>, <the
 * real subprotocol>`. Only upgrade requests to WebSocket are read. The token is offered to the
 * same token methods as a bearer header; once accepted, its subprotocol is removed from the
 * header so that it is never echoed back or passed on. The reference's messages for a malformed
 * token are kept.
 */
import type { Request } from '../http/types.js'
import { AuthenticationError, type Authenticator, type TokenAuthenticator } from './authenticator.js'
import { authenticateToken } from './bearer-token.js'
import { then } from '../http/maybe-promise.js'

export const BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.'

/** wsstream.IsWebSocketRequest: `Connection` lists `upgrade` and `Upgrade` is `websocket`. */
export function isWebSocketRequest(req: Request): boolean {
  const connection = String(req.headers.connection ?? '')
  const upgrade = String(req.headers.upgrade ?? '')
  return connection.split(',').some((token) => token.trim().toLowerCase() === 'upgrade') && upgrade.trim().toLowerCase() === 'websocket'
}

/** The token of the subprotocols and the other subprotocols; throws the reference's errors. */
export function protocolToken(header: string | string[] | undefined): { token: string; others: string[] } {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header]
  let token = ''
  let seen = false
  const others: string[] = []
  for (const value of values) {
    for (const raw of value.split(',')) {
      const protocol = raw.trim()
      if (!protocol.startsWith(BEARER_PROTOCOL_PREFIX)) {
        others.push(protocol)
        continue
      }
      if (seen) throw new AuthenticationError('multiple base64.bearer.authorization tokens specified')
      seen = true
      const encoded = protocol.slice(BEARER_PROTOCOL_PREFIX.length)
      // RawURLEncoding: the URL alphabet, no padding.
      if (!/^[A-Za-z0-9_-]*$/.test(encoded) || encoded.length % 4 === 1) throw new AuthenticationError('invalid base64.bearer.authorization token encoding')
      const bytes = Buffer.from(encoded, 'base64url')
      let decoded: string
      try {
        decoded = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
      } catch {
        throw new AuthenticationError('invalid base64.bearer.authorization token')
      }
      token = decoded
    }
  }
  // Another subprotocol must remain, to be echoed back once the token's is removed.
  if (token.length > 0 && others.length === 0) throw new AuthenticationError('missing additional subprotocol')
  return { token, others }
}

export function webSocketProtocolAuthenticator(methods: readonly TokenAuthenticator[]): Authenticator {
  return {
    name: 'websocket bearer token',
    // Not async: every request that is not a WebSocket (almost all) goes on without waiting.
    authenticate(req, ctx) {
      if (!isWebSocketRequest(req)) return null
      const { token, others } = protocolToken(req.headers['sec-websocket-protocol'])
      if (token === '') return null
      // A token nobody accepts is refused ("invalid bearer token"), never anonymous.
      return then(authenticateToken(methods, token, ctx), (response) => {
        req.headers['sec-websocket-protocol'] = others.join(',')
        return response
      })
    },
  }
}
