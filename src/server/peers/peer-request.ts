/**
 * One HTTPS request to a peer server, as the reference's proxy transport makes it
 * (pkg/controlplane/apiserver/peer.go BuildPeerProxy, client-go's NewAuthProxyRoundTripper):
 * TLS with this server's proxy client certificate, the peer's serving certificate verified
 * against `--peer-ca-file` for the name `kubernetes.default.svc`, and the user the request is
 * made for in the front-proxy headers (X-Remote-User, X-Remote-Uid, X-Remote-Group,
 * X-Remote-Extra-*), which the peer's request-header authenticator reads.
 */
import { type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { UserInfo } from '../http/types.js'
import { splitHostPort } from './peer-endpoint-leases.js'

/** The header that marks a proxied request: the peer serves it itself (peerproxy.PeerProxiedHeader). */
export const PEER_PROXIED_HEADER = 'x-kubernetes-peer-proxied'
/** The name the peers' serving certificates are verified for. */
export const PEER_SERVER_NAME = 'kubernetes.default.svc'

/** The client side of the peer connections: PEM contents of the files named by the options. */
export interface PeerTls {
  cert: string
  key: string
  /** --peer-ca-file; without it the system's roots. */
  ca?: string
}

/** Headers a proxy does not forward (hop-by-hop, and HTTP/2's pseudo-headers). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'http2-settings'])

const AUTH_PROXY_HEADER = /^x-remote-(user|uid|group|extra-.*)$/i

/** SetAuthProxyHeaders: the user replaces any front-proxy headers the request came with. */
export function authProxyHeaders(headers: IncomingHttpHeaders | OutgoingHttpHeaders, user: UserInfo): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name.startsWith(':') || HOP_BY_HOP.has(name.toLowerCase()) || AUTH_PROXY_HEADER.test(name)) continue
    out[name] = value
  }
  out['X-Remote-User'] = user.name
  if (user.uid) out['X-Remote-Uid'] = user.uid
  if (user.groups.length > 0) out['X-Remote-Group'] = [...user.groups]
  for (const [key, values] of Object.entries(user.extra ?? {})) out[`X-Remote-Extra-${encodeURIComponent(key)}`] = [...values]
  out[PEER_PROXIED_HEADER] = 'true'
  return out
}

/** Go's words for a failed connection to `address`. */
export function dialError(err: NodeJS.ErrnoException, address: string): string {
  if (err.code === 'ECONNREFUSED') return `dial tcp ${address}: connect: connection refused`
  if (err.code === 'ECONNRESET') return `read tcp ${address}: read: connection reset by peer`
  if (err.code && /CERT|SIGNATURE|ISSUER/.test(err.code)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority'
  if (err.code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${PEER_SERVER_NAME}`
  return err.message
}

/** Starts a request to the peer at `address` (host:port); the caller writes the body and reads the answer. */
export function peerRequest(
  tls: PeerTls,
  address: string,
  method: string,
  pathAndQuery: string,
  headers: OutgoingHttpHeaders,
  onResponse: (res: IncomingMessage) => void,
): ClientRequest {
  const { host, port } = splitHostPort(address)
  return httpsRequest(
    {
      host,
      port: Number(port),
      method,
      path: pathAndQuery,
      headers,
      cert: tls.cert,
      key: tls.key,
      ...(tls.ca ? { ca: tls.ca } : {}),
      servername: PEER_SERVER_NAME,
      rejectUnauthorized: true,
      // One connection per request: a peer is asked rarely, and a kept connection would outlive a restart of it.
      agent: false,
    },
    onResponse,
  )
}
