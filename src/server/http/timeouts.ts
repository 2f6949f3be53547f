/**
 * The reference's connection timeouts (secure_serving.go: `ReadHeaderTimeout: 32s`, "just shy
 * of requestTimeoutUpperBound", and `IdleTimeout: 90s`, matching http.DefaultTransport's
 * keep-alive), applied to Node's HTTPS server and to the HTTP/1.1 side of its HTTP/2 server:
 *
 * - a TLS handshake must finish within the read-header timeout (Go bounds the handshake by
 *   the smallest of its read timeouts), counted from the connection, not from the first
 *   handshake message as Node's `handshakeTimeout` is, so a connection that sends nothing
 *   is closed too;
 * - an HTTP/1.1 request's headers must be complete within it, so a client that trickles
 *   them a byte at a time holds a connection for 32 s at most; Go then closes the connection
 *   without an answer, and so does this server (Node would answer 408);
 * - an idle kept-alive HTTP/1.1 connection is closed after 90 s.
 */
import type { Http2SecureServer } from 'node:http2'
import type { Server as HttpsServer } from 'node:https'
import type { Duplex } from 'node:stream'

export const READ_HEADER_TIMEOUT_MS = 32_000
export const IDLE_TIMEOUT_MS = 90_000
/** How often Node checks its HTTP/1.1 connections for the header timeout (its default is 30 s). */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000

/** Options for `https.createServer` / `http2.createSecureServer`. */
export const SERVING_TIMEOUT_OPTIONS = {
  handshakeTimeout: READ_HEADER_TIMEOUT_MS,
  headersTimeout: READ_HEADER_TIMEOUT_MS,
  keepAliveTimeout: IDLE_TIMEOUT_MS,
  connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
  // The reference sets no whole-request read timeout; long-running requests have their own ends.
  requestTimeout: 0,
} as const

/**
 * Applies what the constructor options do not reach: an http2 secure server takes the
 * HTTP/1.1 timeouts as properties (read when it starts listening), and a timed-out header
 * read ends the connection silently, as Go does.
 */
export function applyServingTimeouts(server: Http2SecureServer | HttpsServer): void {
  const http1 = server as unknown as { headersTimeout: number; keepAliveTimeout: number; requestTimeout: number; connectionsCheckingInterval: number }
  http1.headersTimeout = READ_HEADER_TIMEOUT_MS
  http1.keepAliveTimeout = IDLE_TIMEOUT_MS
  http1.requestTimeout = 0
  http1.connectionsCheckingInterval = TIMEOUT_CHECK_INTERVAL_MS
  const handshaking = new WeakMap<object, NodeJS.Timeout>()
  server.on('connection', (socket: Duplex) => {
    const timer = setTimeout(() => socket.destroy(), READ_HEADER_TIMEOUT_MS)
    handshaking.set(socket, timer)
    socket.once('close', () => clearTimeout(timer))
  })
  server.on('secureConnection', (secure: { _parent?: object }) => {
    // The TLS socket's parent is the connection the timer was set for.
    if (secure._parent) clearTimeout(handshaking.get(secure._parent))
  })
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy()
      return
    }
    // Node's default answers for the rest, as Go's: 431 for oversized headers, else 400.
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request'
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`)
  })
}
