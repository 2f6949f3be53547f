/**
 * Requests that ask to switch protocols (`Connection: Upgrade`: the WebSocket and SPDY streams
 * of exec, attach and port-forward). Node hands them to the server's 'upgrade' event with the
 * raw connection instead of a response; this gives them a response on that connection so the
 * whole chain (authentication, audit, authorization ...) runs as for any request, and lets the
 * handler that upgrades take the connection over. A request no handler takes is answered on
 * that response and its connection closed, as Go closes a connection it did not hijack.
 */
import { type IncomingMessage, ServerResponse } from 'node:http'
import type { Http2SecureServer } from 'node:http2'
import type { Server as HttpsServer } from 'node:https'
import type { Duplex } from 'node:stream'
import { pacedStream, throttleRate } from './throttle.js'
import type { Request, Response } from './types.js'

/** The raw connection of an upgrade request and the bytes already read past its headers. */
export interface UpgradeConnection {
  socket: Duplex
  head: Buffer
  /** --max-connection-bytes-per-sec when the request's response was paced: the relayed answer is held to it. */
  bytesPerSec?: number
}

const PENDING = new WeakMap<Request, UpgradeConnection>()

/** Serves upgrade requests through `onRequest`, as ordinary requests with a response of their own. */
export function serveUpgrades(server: Http2SecureServer | HttpsServer, onRequest: (req: Request, res: Response) => void): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const res = new ServerResponse(req)
    res.shouldKeepAlive = false
    res.assignSocket(socket as import('node:net').Socket)
    PENDING.set(req, { socket, head })
    socket.on('error', () => socket.destroy())
    res.on('finish', () => {
      if (PENDING.delete(req)) socket.end()
    })
    onRequest(req, res)
  })
}

/** Whether `req` asks to switch protocols and arrived as an upgrade (its connection can be taken). */
export function isUpgrade(req: Request): boolean {
  return PENDING.has(req)
}

/** Takes `req`'s connection over: the response no longer writes to it; undefined when it is no upgrade. */
export function takeConnection(req: Request, res: Response): UpgradeConnection | undefined {
  const connection = PENDING.get(req)
  if (!connection) return undefined
  PENDING.delete(req)
  const bytesPerSec = throttleRate(res)
  if (bytesPerSec !== undefined) connection.bytesPerSec = bytesPerSec
  ;(res as ServerResponse).detachSocket(connection.socket as import('node:net').Socket)
  // What follows the chain (audit, metrics, the in-flight count) sees the switch of protocols
  // as the response, settled when the relayed connection closes.
  // (Written to no connection: the response has none any more.)
  res.writeHead(101)
  connection.socket.once('close', () => {
    res.end()
    res.emit('finish')
    res.emit('close')
  })
  return connection
}

/**
 * Joins a taken connection to a backend's stream: `requestHead` and what the client sent past
 * its own head go first, then the bytes flow both ways untouched (the backend's answer, 101 or
 * a refusal, included); one side's end or error ends the other. Resolves when both are closed.
 */
export function relayUpgrade(connection: UpgradeConnection, backend: Duplex, requestHead: string): Promise<void> {
  const { socket, head, bytesPerSec } = connection
  backend.write(requestHead)
  if (head.length > 0) backend.write(head)
  // What the backend answers is what the reference paces (its flowrate writer on the client's connection).
  if (bytesPerSec !== undefined) backend.pipe(pacedStream(bytesPerSec)).pipe(socket)
  else backend.pipe(socket)
  socket.pipe(backend)
  const close = () => {
    backend.destroy()
    socket.destroy()
  }
  backend.on('error', close)
  socket.on('error', close)
  backend.on('close', () => socket.end())
  socket.on('close', () => backend.end())
  return new Promise<void>((resolve) => {
    let open = 2
    const one = () => {
      if (--open === 0) resolve()
    }
    backend.once('close', one)
    socket.once('close', one)
  })
}
