/**
 * A test HTTP CONNECT proxy on 127.0.0.1 (or on a Unix socket): it records each CONNECT
 * target (`host:port`) and pipes the tunnel to it, or answers `refuse` (a status line such as
 * `403 Forbidden`) instead. Stopped with `close()`.
 */
import { createServer, type Server } from 'node:http'
import net, { type AddressInfo } from 'node:net'

export class ConnectProxy {
  readonly targets: string[] = []
  /** When set, every CONNECT is answered with this status line instead of a tunnel. */
  refuse?: string
  /** The tunnels' sockets, which the HTTP server no longer tracks once upgraded. */
  private readonly sockets = new Set<net.Socket>()

  private constructor(
    private readonly server: Server,
    /** The TCP port, or 0 on a Unix socket. */
    readonly port: number,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }

  /** Listens on 127.0.0.1 (an ephemeral port) or on the Unix socket `path`. */
  static async start(path?: string): Promise<ConnectProxy> {
    let self: ConnectProxy | undefined
    const server = createServer((_req, res) => {
      res.statusCode = 405
      res.end()
    })
    server.on('connect', (req, client: net.Socket, head: Buffer) => {
      const target = req.url ?? ''
      self!.track(client)
      self!.targets.push(target)
      if (self!.refuse) {
        client.end(`HTTP/1.1 ${self!.refuse}\r\n\r\n`)
        return
      }
      const at = target.lastIndexOf(':')
      const upstream = net.connect({ host: target.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(target.slice(at + 1)) }, () => {
        client.write('HTTP/1.1 200 Connection established\r\n\r\n')
        if (head.length > 0) upstream.write(head)
        upstream.pipe(client)
        client.pipe(upstream)
      })
      self!.track(upstream)
      upstream.on('error', () => client.destroy())
      client.on('error', () => upstream.destroy())
    })
    await new Promise<void>((resolve) => (path ? server.listen(path, resolve) : server.listen(0, '127.0.0.1', resolve)))
    self = new ConnectProxy(server, path ? 0 : (server.address() as AddressInfo).port)
    return self
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket)
    socket.once('close', () => this.sockets.delete(socket))
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}
