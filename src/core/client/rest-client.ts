/**
 * A REST client for one Connection, over Node's http/https (http-exchange.ts): one pair of
 * keep-alive agents per client, no retries (but Go's one silent retry of an idempotent request
 * whose kept-alive connection was closed under it), no redirects, HTTP error statuses returned
 * as responses. Failures to reach the server become UnreachableError with kubectl's text.
 */
import http from 'node:http'
import https from 'node:https'
import { performance } from 'node:perf_hooks'
import type { Connection } from './connection.js'
import { exchange, type ExchangeFailure, type ExchangeTls } from './http-exchange.js'
import { UnreachableError } from './errors.js'
import { type ExecCredential, ExecCredentialError } from './exec-credential.js'
import { toUnreachable } from './net-errors.js'
import { warningTexts } from './warning-header.js'

export interface RestRequestOptions {
  body?: string | Buffer
  /** Extra headers; they replace the client's own of the same name. */
  headers?: Record<string, string>
  /** Overrides the connection's timeout for this request; 0 = none. */
  timeoutMs?: number
}

export interface RestResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
  /** From sending the request to the end of the body, in milliseconds. */
  latencyMs: number
  /** Texts of the `Warning: 299 - "text"` headers, in order. */
  warnings: string[]
}

// client-go's transport defaults: dial timeout 30s, TLS handshake timeout 10s.
const CONNECT_TIMEOUT_MS = 30_000
const TLS_HANDSHAKE_TIMEOUT_MS = 10_000

// Methods Go's transport may resend when a kept-alive connection turns out to be closed.
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])

export class RestClient {
  readonly connection: Connection
  private readonly agents: { http: http.Agent; https: https.Agent }
  /** The headers and TLS material of every request; with an exec plugin, those of its latest credential. */
  private settings?: { headers: Record<string, string | string[]>; tls: ExchangeTls }
  private closed = false

  constructor(connection: Connection) {
    this.connection = connection
    this.agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) }
  }

  /** Sends one request; resolves with any HTTP status, rejects with UnreachableError. */
  async request(method: string, path: string, options: RestRequestOptions = {}): Promise<RestResponse> {
    if (this.closed) throw new Error('the REST client is closed')
    if (!path.startsWith('/')) throw new TypeError(`request path must start with "/": ${path}`)
    const url = this.connection.server + path
    const verb = method.toUpperCase()
    const settings = await this.settingsFor(url)
    const headers = { ...settings.headers }
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value
    const timeoutMs = options.timeoutMs ?? this.connection.timeoutMs
    const target = new URL(url)
    const started = performance.now()
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await exchange(target, {
          method: verb,
          headers,
          body: options.body,
          agent: target.protocol === 'https:' ? this.agents.https : this.agents.http,
          tls: settings.tls,
          timeoutMs: timeoutMs > 0 ? timeoutMs : 0,
          connectTimeoutMs: CONNECT_TIMEOUT_MS,
          secureConnectTimeoutMs: TLS_HANDSHAKE_TIMEOUT_MS,
          decompress: this.connection.compression,
        })
        return {
          status: response.status,
          headers: response.headers,
          body: response.body,
          latencyMs: performance.now() - started,
          warnings: warningTexts(headerValues(response.rawHeaders, 'warning')),
        }
      } catch (err) {
        if (!isRequestError(err)) throw err
        const reset = err.code === 'ECONNRESET' || err.code === 'EPIPE'
        if (attempt === 0 && reset && err.request?.reusedSocket && IDEMPOTENT.has(verb)) continue
        throw toUnreachable(err, url)
      }
    }
  }

  get(path: string, options?: RestRequestOptions): Promise<RestResponse> {
    return this.request('GET', path, options)
  }

  /** Closes the kept-alive connections; the client cannot be used afterwards. */
  close(): void {
    this.closed = true
    this.agents.http.destroy()
    this.agents.https.destroy()
  }

  /**
   * The headers and TLS material; with an exec credential plugin, from its credential, asked
   * for again when it expires. A plugin failure is kubectl's "getting credentials".
   */
  private async settingsFor(url: string): Promise<{ headers: Record<string, string | string[]>; tls: ExchangeTls }> {
    const plugin = this.connection.credentialPlugin
    if (plugin && (!this.settings || plugin.expired())) {
      let credential: ExecCredential
      try {
        credential = await plugin.get()
      } catch (err) {
        if (err instanceof ExecCredentialError) throw new UnreachableError('other', `getting credentials: ${err.message}`, url, { cause: err })
        throw err
      }
      this.settings = this.build(credential)
    }
    this.settings ??= this.build()
    return this.settings
  }

  private build(credential?: ExecCredential): { headers: Record<string, string | string[]>; tls: ExchangeTls } {
    const { tls, compression } = this.connection
    const headers: Record<string, string | string[]> = {
      'user-agent': this.connection.userAgent,
      accept: 'application/json, */*',
      // kubectl asks for gzip only.
      ...(compression ? { 'accept-encoding': 'gzip' } : {}),
      ...(credential?.token ? { authorization: `Bearer ${credential.token}` } : {}),
    }
    for (const [name, value] of Object.entries(this.connection.headers)) headers[name.toLowerCase()] = value
    return {
      headers,
      tls: {
        ca: tls.ca,
        cert: credential?.clientCertificateData ?? tls.cert,
        key: credential?.clientKeyData ?? tls.key,
        rejectUnauthorized: !tls.insecureSkipVerify,
        servername: tls.serverName,
      },
    }
  }
}

/** A failure of the exchange itself (Node's network and TLS errors, the limits), not a bug. */
function isRequestError(err: unknown): err is ExchangeFailure {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'string' && 'request' in err
}

/** Every value of a header, repeated lines kept apart, decoded as UTF-8 (Node reads latin1). */
function headerValues(raw: readonly string[], name: string): string[] {
  const out: string[] = []
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i].toLowerCase() === name) out.push(Buffer.from(raw[i + 1], 'latin1').toString('utf8'))
  }
  return out
}
