/**
 * A plain HTTP server on 127.0.0.1 that reads every request and answers 200 `{}`: the endpoint
 * of webhook kubeconfigs whose calls a test does not examine (an audit webhook that must
 * accept its batches). It counts requests by path. Stopped with `close()`.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export class HttpSink {
  /** Requests received, by path. */
  readonly hits: Record<string, number> = {}

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<HttpSink> {
    let sink: HttpSink | undefined
    const server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        const path = new URL(req.url ?? '/', 'http://x').pathname
        sink!.hits[path] = (sink!.hits[path] ?? 0) + 1
        res.setHeader('content-type', 'application/json')
        res.end('{}')
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    sink = new HttpSink(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`)
    return sink
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections()
      this.server.close(() => resolve())
    })
  }
}
