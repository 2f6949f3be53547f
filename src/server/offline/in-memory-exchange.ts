/**
 * One HTTP exchange held in memory: a request the API handler reads as it reads a socket's
 * (method, headers, a body stream) and a response that keeps what the handler writes (status,
 * headers, body). The offline dry-run server sends its creates through the server's own API
 * handler with these, so that decoding, field validation, defaulting, validation and
 * admission are the server's code path, not a copy of it.
 */
import { EventEmitter } from 'node:events'
import type { Request, Response } from '../http/types.js'

/**
 * A request with its whole body given: the body is emitted (`data`, then `end`) a microtask
 * after the first `data` listener is added, as a socket's would arrive once read; a stream
 * would cost more than the rest of a small create.
 */
class InMemoryRequest extends EventEmitter {
  readonly httpVersion = '1.1'
  readonly httpVersionMajor = 1
  readonly httpVersionMinor = 1
  readonly socket = { remoteAddress: '127.0.0.1' }
  readableEnded = false
  private sent = false

  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: Record<string, string>,
    private readonly body: Buffer | undefined,
  ) {
    super()
  }

  override on(event: string | symbol, listener: (...args: any[]) => void): this {
    super.on(event, listener)
    if (event === 'data' && !this.sent) {
      this.sent = true
      queueMicrotask(() => {
        if (this.body && this.body.length > 0) this.emit('data', this.body)
        this.readableEnded = true
        this.emit('end')
      })
    }
    return this
  }

  pause(): this {
    return this
  }

  resume(): this {
    return this
  }
}

export function inMemoryRequest(method: string, target: string, body: string | undefined, headers: Record<string, string>): Request {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
  const bytes = body === undefined ? undefined : Buffer.from(body, 'utf8')
  if (bytes) lower['content-length'] = String(bytes.length)
  return new InMemoryRequest(method, target, lower, bytes) as unknown as Request
}

/** What the handler wrote. */
export interface RecordedAnswer {
  status: number
  headers: Readonly<Record<string, string | string[]>>
  body: string
}

/** A response that records the answer; `done` resolves when the handler has ended it. */
export class InMemoryResponse extends EventEmitter {
  statusCode = 200
  headersSent = false
  writableEnded = false
  private readonly headers: Record<string, string | string[]> = {}
  private readonly chunks: Buffer[] = []
  private finish!: () => void
  readonly done = new Promise<void>((resolve) => (this.finish = resolve))

  setHeader(name: string, value: string | number | readonly string[]): this {
    this.headers[name.toLowerCase()] = Array.isArray(value) ? [...(value as string[])] : String(value)
    return this
  }
  getHeader(name: string): string | string[] | undefined {
    return this.headers[name.toLowerCase()]
  }
  hasHeader(name: string): boolean {
    return name.toLowerCase() in this.headers
  }
  removeHeader(name: string): void {
    delete this.headers[name.toLowerCase()]
  }
  getHeaders(): Record<string, string | string[]> {
    return { ...this.headers }
  }
  writeHead(status: number, headers?: Record<string, string | number | readonly string[]>): this {
    this.statusCode = status
    for (const [k, v] of Object.entries(headers ?? {})) this.setHeader(k, v)
    this.headersSent = true
    return this
  }
  flushHeaders(): void {
    this.headersSent = true
  }
  write(chunk: string | Buffer, callback?: () => void): boolean {
    this.headersSent = true
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk)
    callback?.()
    return true
  }
  end(chunk?: string | Buffer | (() => void)): this {
    if (chunk !== undefined && typeof chunk !== 'function') this.write(chunk)
    this.headersSent = true
    this.writableEnded = true
    this.emit('finish')
    this.emit('close')
    this.finish()
    return this
  }

  asResponse(): Response {
    return this as unknown as Response
  }

  answer(): RecordedAnswer {
    return { status: this.statusCode, headers: this.getHeaders(), body: Buffer.concat(this.chunks).toString('utf8') }
  }
}
