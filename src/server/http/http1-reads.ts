/**
 * HTTP/1.1 connections are parsed from the TLS socket's stream, not from its native handle.
 *
 * Node's HTTP/1.1 server "consumes" a connection's handle: its parser reads straight from
 * the TLS layer, bypassing the socket's stream. When a request arrives while the previous
 * response still waits for its 'drain' (any answer above the socket's 16 KiB high-water mark,
 * such as a created object echoed back, followed at once by the next request of a kept-alive
 * client), Node pauses the socket and then the parser (lib/_http_server.js, parserOnIncoming
 * and onParserExecuteCommon). Pausing the socket stops the handle's reads, but records the TLS
 * layer has already decrypted are still handed to the now paused parser, which refuses them
 * with HPE_PAUSED ("Parse Error: Paused"): the request in progress gets a transport-level
 * `400 Bad Request` or a reset connection instead of its answer, typically in the middle of a
 * body larger than one TLS record.
 *
 * Reading through the stream instead, as Node itself does once anything listens for the
 * socket's 'data', makes the pause hold: bytes that arrive meanwhile wait in the stream's
 * buffer and are parsed when the response has drained and Node resumes the parser. HTTP/2
 * sessions are not concerned (their sockets are never given to the HTTP/1.1 parser).
 */
import type { Http2SecureServer } from 'node:http2'
import type { Server as HttpsServer } from 'node:https'
import type { TLSSocket } from 'node:tls'

const noop = () => undefined

/** Call after creating `server` (its own 'secureConnection' listener, which sets the parser up, runs first). */
export function parseHttp1FromStream(server: Http2SecureServer | HttpsServer): void {
  server.on('secureConnection', (socket: TLSSocket) => {
    if (socket.alpnProtocol === 'h2') return
    const parser = (socket as TLSSocket & { parser?: { _consumed?: boolean } }).parser
    if (!parser?._consumed) return
    // Node's listener wrapper on an HTTP/1.1 socket unconsumes the parser when a 'data'
    // listener is added; its own socketOnData then feeds the parser from the stream.
    socket.on('data', noop)
    socket.off('data', noop)
  })
}
