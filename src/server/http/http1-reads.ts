/**
 * HTTP/1.1 connections are parsed from the TLS socket's stream, not from its native handle,
 * from the first request that finds the connection held back onwards.
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
 * buffer and are parsed when the response has drained and Node resumes the parser.
 *
 * Reading through the stream costs every request more (each read goes through the stream's
 * buffering and a 'data' event: about a third of the extra allocation of a `/readyz` over
 * bare Node), so a connection switches only when it needs to: Node decides to pause in
 * parserOnIncoming, before it emits the request, and only there; the request listener calls
 * `readFromStreamWhenHeld` first, which switches a held connection while its parser is still
 * running on the current read, so that no later read reaches the paused parser. Once switched,
 * a connection stays on its stream. HTTP/2 sessions are not concerned (their sockets are never
 * given to the HTTP/1.1 parser).
 */
import type { Socket } from 'node:net'

const noop = () => undefined

interface HeldSocket {
  /** Set by Node's HTTP/1.1 server when it holds the connection back (parserOnIncoming). */
  _paused?: boolean
  parser?: { _consumed?: boolean } | null
}

/**
 * Call first in the request listener with an HTTP/1.x request's socket: a connection Node has
 * just paused is switched to reading through its stream (see the top of the file).
 */
export function readFromStreamWhenHeld(socket: Socket): void {
  const held = socket as Socket & HeldSocket
  if (held._paused !== true) return
  if (!held.parser?._consumed) return
  // Node's listener wrapper on an HTTP/1.1 socket unconsumes the parser when a 'data'
  // listener is added; its own socketOnData then feeds the parser from the stream. The
  // stream is paused, so adding the listener does not start it flowing.
  socket.on('data', noop)
  socket.off('data', noop)
}
