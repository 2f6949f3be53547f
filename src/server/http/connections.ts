/**
 * The server's open connections, so that shutdown can close idle ones, send GOAWAY to
 * HTTP/2 sessions, let busy HTTP/1.1 connections finish their response, and finally cut
 * whatever is left (watches have no natural end).
 */
import type { Http2SecureServer, Http2Session, Http2ServerRequest } from 'node:http2'
import type { Server as HttpsServer } from 'node:https'
import type { Socket } from 'node:net'
import type { Request, Response } from './types.js'
import { onSettled } from './settled.js'

/**
 * The HTTP/1.1 requests of a socket not yet answered, kept on the socket itself: a map from
 * socket to count grew and shrank (and rehashed) on nearly every request.
 */
const BUSY = Symbol('requests in progress')
/** The socket's callback for a response that settled, made once per connection rather than per request. */
const SETTLED = Symbol('response settled')
type Counted = Socket & { [BUSY]?: number; [SETTLED]?: () => void }

export class Connections {
  private readonly sockets = new Set<Socket>()
  private readonly sessions = new Set<Http2Session>()
  private closing = false

  watch(server: Http2SecureServer | HttpsServer): void {
    server.on('secureConnection', (socket: Socket) => {
      this.sockets.add(socket)
      const counted = socket as Counted
      counted[BUSY] = 0
      this.settledOf(counted)
      socket.once('close', () => this.sockets.delete(socket))
    })
    server.on('session', (session: Http2Session) => {
      this.sessions.add(session)
      session.once('close', () => this.sessions.delete(session))
      if (this.closing) session.close()
    })
  }

  /** Called for every request: counts HTTP/1.1 requests per socket. */
  track(req: Request, res: Response): void {
    if ((req as Http2ServerRequest).stream !== undefined) return
    const socket = req.socket as Counted
    socket[BUSY] = (socket[BUSY] ?? 0) + 1
    // On the response's one pair of listeners (settled.ts) rather than a listener of its own.
    onSettled(res, socket[SETTLED] ?? this.settledOf(socket))
  }

  /** The socket's callback for each of its responses that settles, made at connection time (or on first use). */
  private settledOf(socket: Counted): () => void {
    return (socket[SETTLED] = () => {
      const left = Math.max(0, (socket[BUSY] ?? 1) - 1)
      socket[BUSY] = left
      // Once shutting down, a connection is not kept alive past its last response.
      if (this.closing && left === 0) socket.end()
    })
  }

  /** Stops reuse: idle HTTP/1.1 connections close now, busy ones after their response; HTTP/2 sessions get GOAWAY. */
  closeIdle(): void {
    this.closing = true
    for (const socket of this.sockets) if (!((socket as Counted)[BUSY]! > 0) && !this.isHttp2(socket)) socket.end()
    for (const session of this.sessions) if (!session.closed) session.close()
  }

  destroyAll(): void {
    for (const session of this.sessions) session.destroy()
    for (const socket of this.sockets) socket.destroy()
  }

  get size(): number {
    return this.sockets.size
  }

  private isHttp2(socket: Socket): boolean {
    return (socket as Socket & { alpnProtocol?: string | false }).alpnProtocol === 'h2'
  }
}
