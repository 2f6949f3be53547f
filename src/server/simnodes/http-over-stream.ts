/**
 * An HTTP/1.1 server answering on one stream (a port-forward's data stream) instead of a
 * listening socket: Node's own server parses the requests, so keep-alive, pipelining and
 * `Connection: close` behave as a real server's. The promise settles when the stream closes.
 */
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http'
import type { Duplex } from 'node:stream'

export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => void

export function serveHttpOn(stream: Duplex, handler: HttpHandler): Promise<void> {
  const server = createServer(handler)
  return new Promise((resolve) => {
    stream.once('close', () => resolve())
    // The server ends its side only to close the connection (`Connection: close`, an error):
    // then it is closed both ways, as a server's socket is.
    stream.once('finish', () => stream.destroy())
    server.emit('connection', stream)
  })
}
