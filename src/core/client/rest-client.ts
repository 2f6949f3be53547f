/**
 * A REST client for one Connection, over got: one got instance and one pair of keep-alive
 * agents per client, no retries (but Go's one silent retry of an idempotent request whose
 * kept-alive connection was closed under it), no redirects, HTTP error statuses returned
 * as responses. Failures to reach the server become UnreachableError with kubectl's text.
 *
 * got is loaded on the first request, so that importing this module stays cheap.
 */
import http from 'node:http'
import https from 'node:https'
import { performance } from 'node:perf_hooks'
import type { Got, RequestError } from 'got'
import type { Connection } from './connection.js'
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
  private instance?: Promise<Got>
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
    const client = await this.got(url)
    const timeoutMs = options.timeoutMs ?? this.connection.timeoutMs
    const started = performance.now()
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await client(url, {
          method: verb as 'GET',
          body: options.body,
          headers: options.headers,
          timeout: { request: timeoutMs > 0 ? timeoutMs : undefined, connect: CONNECT_TIMEOUT_MS, secureConnect: TLS_HANDSHAKE_TIMEOUT_MS },
        })
        return {
          status: response.statusCode,
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
   * The got instance; with an exec credential plugin, built once the plugin has answered, and
   * rebuilt when its credential expires. A plugin failure is kubectl's "getting credentials".
   */
  private async got(url: string): Promise<Got> {
    const plugin = this.connection.credentialPlugin
    if (plugin && (!this.instance || plugin.expired())) {
      let credential: ExecCredential
      try {
        credential = await plugin.get()
      } catch (err) {
        if (err instanceof ExecCredentialError) throw new UnreachableError('other', `getting credentials: ${err.message}`, url, { cause: err })
        throw err
      }
      this.instance = this.build(credential)
    }
    this.instance ??= this.build()
    return this.instance
  }

  private build(credential?: ExecCredential): Promise<Got> {
    return import('got').then(({ got }) => {
      const { tls, compression } = this.connection
      return got.extend({
        agent: this.agents,
        http2: false,
        retry: { limit: 0 },
        followRedirect: false,
        throwHttpErrors: false,
        responseType: 'text',
        allowGetBody: true,
        decompress: compression,
        https: {
          certificateAuthority: tls.ca,
          certificate: credential?.clientCertificateData ?? tls.cert,
          key: credential?.clientKeyData ?? tls.key,
          rejectUnauthorized: !tls.insecureSkipVerify,
          serverName: tls.serverName,
        },
        headers: {
          'user-agent': this.connection.userAgent,
          accept: 'application/json, */*',
          // kubectl asks for gzip only; got would offer deflate and br too.
          ...(compression ? { 'accept-encoding': 'gzip' } : {}),
          ...(credential?.token ? { authorization: `Bearer ${credential.token}` } : {}),
          ...this.connection.headers,
        },
      })
    })
  }
}

function isRequestError(err: unknown): err is RequestError {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'string' && 'options' in err
}

/** Every value of a header, repeated lines kept apart, decoded as UTF-8 (Node reads latin1). */
function headerValues(raw: readonly string[], name: string): string[] {
  const out: string[] = []
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i].toLowerCase() === name) out.push(Buffer.from(raw[i + 1], 'latin1').toString('utf8'))
  }
  return out
}
