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
 * - an idle kept-alive HTTP/1.1 connection is closed after 90 s;
 * - on HTTP/2 (Go's http2 server, which takes the idle timeout of the http.Server): the client
 *   preface must arrive within 10 s of the connection (Go's prefaceTimeout), and a connection
 *   with no open stream (none opened yet, or all finished) is closed with a GOAWAY after the
 *   90 s idle timeout; a stream exists only once its headers are complete, so a client that
 *   never finishes its first headers (CONTINUATION frames trickled, or none) is cut as well.
 */
import { type Http2SecureServer, type ServerHttp2Session, constants } from 'node:http2'
import type { Server as HttpsServer } from 'node:https'
import type { Duplex } from 'node:stream'

export const READ_HEADER_TIMEOUT_MS = 32_000
export const IDLE_TIMEOUT_MS = 90_000
/** Go's http2 server: how long a new connection may take to send the client preface. */
export const HTTP2_PREFACE_TIMEOUT_MS = 10_000
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
  if (isHttp2(server)) applyHttp2Timeouts(server)
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

function isHttp2(server: Http2SecureServer | HttpsServer): server is Http2SecureServer {
  // Only the HTTP/2 server can change its SETTINGS.
  return typeof (server as Partial<Http2SecureServer>).updateSettings === 'function'
}

/** The HTTP/2 side of the timeouts (see the top of the file); the bounds are parameters for tests. */
export function applyHttp2Timeouts(server: Http2SecureServer, prefaceMs = HTTP2_PREFACE_TIMEOUT_MS, idleMs = IDLE_TIMEOUT_MS): void {
  // Before the preface a destroyed session leaves its socket open, and the session only shows
  // a guarded proxy of it: the TCP connections are found again by their remote address and port.
  const sockets = new Map<string, Duplex>()
  const keyOf = (s: { remoteAddress?: string; remotePort?: number }) => `${s.remoteAddress ?? ''}:${s.remotePort ?? ''}`
  server.on('connection', (socket: Duplex & { remoteAddress?: string; remotePort?: number }) => {
    const key = keyOf(socket)
    sockets.set(key, socket)
    socket.once('close', () => sockets.delete(key))
  })
  server.on('session', (session: ServerHttp2Session) => {
    // The preface and the client's SETTINGS frame come together: 'remoteSettings' marks them.
    const key = keyOf(session.socket)
    const preface = setTimeout(() => {
      session.destroy()
      sockets.get(key)?.destroy()
    }, prefaceMs)
    session.once('remoteSettings', () => clearTimeout(preface))
    let open = 0
    let idle: NodeJS.Timeout | undefined
    const armIdle = () => {
      clearTimeout(idle)
      idle = setTimeout(() => {
        if (session.destroyed || session.closed) return
        session.goaway(constants.NGHTTP2_NO_ERROR)
        session.close()
      }, idleMs)
    }
    armIdle()
    session.on('stream', (stream) => {
      open++
      clearTimeout(idle)
      stream.once('close', () => {
        open--
        if (open === 0 && !session.destroyed && !session.closed) armIdle()
      })
    })
    session.once('close', () => {
      clearTimeout(preface)
      clearTimeout(idle)
    })
  })
}
