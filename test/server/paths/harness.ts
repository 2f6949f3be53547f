/** A real node:http server on 127.0.0.1:0 in front of a handler, and raw requests to it. */
import { randomUUID } from 'node:crypto'
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolveRequestInfo } from '../../../src/server/http/request-info.js'
import type { Handler, RequestContext } from '../../../src/server/http/types.js'

export interface TestServer {
  port: number
  server: Server
  close(): Promise<void>
}

export interface ServeOptions {
  /** ms after arrival the request must be answered by (sets ctx.deadline). */
  deadlineMs?: number
}

export async function serve(handler: Handler, options: ServeOptions = {}): Promise<TestServer> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const receivedAt = Date.now()
    const ctx: RequestContext = {
      receivedAt,
      auditId: randomUUID(),
      url,
      info: resolveRequestInfo(req.method ?? 'GET', url),
      deadline: options.deadlineMs === undefined ? undefined : receivedAt + options.deadlineMs,
    }
    Promise.resolve()
      .then(() => handler(req, res, ctx))
      .catch((err: unknown) => {
        if (!res.headersSent) {
          res.statusCode = 599
          res.end(String(err))
        } else res.destroy()
      })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export interface Reply {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
  text: string
}

export interface RequestOptions {
  method?: string
  headers?: Record<string, string>
  port?: number
  socketPath?: string
  signal?: AbortSignal
}

/** A request with the path sent exactly as written (no normalisation). */
export function send(path: string, options: RequestOptions): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: options.socketPath ? undefined : '127.0.0.1',
        port: options.port,
        socketPath: options.socketPath,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        signal: options.signal,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', reject)
        res.on('end', () => {
          const body = Buffer.concat(chunks)
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') })
        })
      },
    )
    req.on('error', reject)
    req.end()
  })
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
