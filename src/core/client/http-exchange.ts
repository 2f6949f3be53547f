/**
 * One HTTP request and its whole answer over Node's own http/https, with client-go's limits:
 * the dial (30 s), the TLS handshake (10 s) and the whole exchange (the connection's timeout).
 * A limit that passes fails the request with the phase it passed in and the phases reached
 * (`event`, `timings`), which net-errors.ts turns into Go's texts. No retries, no redirects:
 * every status is an answer. A gzip (or deflate, br) body is decompressed when asked for.
 *
 * Node's own modules, not an HTTP library: a command that sends one request (`health check`)
 * pays for loading what it runs, and this is all the client needs of one.
 */
import http from 'node:http'
import https from 'node:https'
import type { Socket } from 'node:net'

export interface ExchangeTls {
  ca?: string | Buffer
  cert?: string | Buffer
  key?: string | Buffer
  rejectUnauthorized: boolean
  servername?: string
}

export interface ExchangeOptions {
  method: string
  /** Header names in lower case. */
  headers: Record<string, string | string[]>
  body?: string | Buffer
  agent: http.Agent
  tls: ExchangeTls
  /** The whole exchange, answer read; 0 = none. */
  timeoutMs: number
  connectTimeoutMs: number
  secureConnectTimeoutMs: number
  decompress: boolean
}

export interface Exchanged {
  status: number
  headers: http.IncomingHttpHeaders
  rawHeaders: string[]
  body: string
}

/** The moments (ms since the request began) each phase was reached. */
export interface Timings {
  socket?: number
  connect?: number
  secureConnect?: number
  response?: number
}

/** A request that failed: Node's error, with whether it went out on a kept-alive connection. */
export interface ExchangeFailure extends Error {
  code?: string
  /** The phase whose limit passed (a TimeoutError's). */
  event?: string
  timings?: Timings
  request?: { reusedSocket?: boolean }
}

export function exchange(url: URL, options: ExchangeOptions): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const timings: Timings = {}
    const at = () => performance.now() - started
    const timers: NodeJS.Timeout[] = []
    let settled = false
    const body = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body)
    const headers = body === undefined ? options.headers : { ...options.headers, 'content-length': String(body.length) }
    const secure = url.protocol === 'https:'
    const request = (secure ? https : http).request(url, {
      method: options.method,
      headers,
      agent: options.agent,
      ...(secure ? { ca: trustedCas(options.tls), cert: options.tls.cert, key: options.tls.key, rejectUnauthorized: options.tls.rejectUnauthorized, servername: options.tls.servername } : {}),
    })
    const finish = (err: ExchangeFailure | undefined, value?: Exchanged) => {
      if (settled) return
      settled = true
      for (const t of timers) clearTimeout(t)
      if (err) {
        err.timings ??= timings
        err.request = { reusedSocket: request.reusedSocket }
        reject(err)
      } else resolve(value!)
    }
    const limit = (ms: number, event: string) => {
      const timer = setTimeout(() => {
        const err: ExchangeFailure = Object.assign(new Error(`Timeout awaiting '${event}' for ${ms}ms`), { name: 'TimeoutError', code: 'ETIMEDOUT', event, timings })
        request.destroy(err)
        finish(err)
      }, ms)
      timers.push(timer)
      return timer
    }
    if (options.timeoutMs > 0) limit(options.timeoutMs, 'request')
    request.on('socket', (socket: Socket) => {
      timings.socket = at()
      if (!socket.connecting) return
      const connecting = limit(options.connectTimeoutMs, 'connect')
      socket.once('connect', () => {
        timings.connect = at()
        clearTimeout(connecting)
        if (!secure) return
        const handshake = limit(options.secureConnectTimeoutMs, 'secureConnect')
        socket.once('secureConnect', () => {
          timings.secureConnect = at()
          clearTimeout(handshake)
        })
      })
    })
    request.on('error', (err: ExchangeFailure) => finish(err))
    request.on('response', (response) => {
      timings.response = at()
      const chunks: Buffer[] = []
      const encoding = options.decompress ? response.headers['content-encoding'] : undefined
      const done = (data: Buffer) => finish(undefined, { status: response.statusCode ?? 0, headers: response.headers, rawHeaders: response.rawHeaders, body: data.toString('utf8') })
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('error', (err: ExchangeFailure) => finish(err))
      response.on('aborted', () => finish(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })))
      response.on('end', () => {
        const raw = Buffer.concat(chunks)
        if (encoding !== 'gzip' && encoding !== 'deflate' && encoding !== 'br') return done(raw)
        // Loaded only for a compressed answer.
        void import('node:zlib').then((zlib) => {
          const inflate = encoding === 'gzip' ? zlib.gunzip : encoding === 'deflate' ? zlib.inflate : zlib.brotliDecompress
          inflate(raw, (err, data) => (err ? finish(err) : done(data)))
        })
      })
    })
    request.end(body)
  })
}

/**
 * The CAs for Node's TLS context. Without one Node parses its ~140 bundled root certificates
 * into the context (about 20 ms of CPU, more than a refused `health check` spends on anything
 * else); a connection that verifies nothing (`--insecure-skip-tls-verify`) does not look at
 * them, so it gets an empty list, which Node takes as "these CAs, none". The handshake and its
 * outcome are the same: the server's certificate is not checked either way.
 */
function trustedCas(tls: ExchangeTls): ExchangeTls['ca'] | never[] {
  return tls.ca === undefined && !tls.rejectUnauthorized ? [] : tls.ca
}
