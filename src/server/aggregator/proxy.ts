/**
 * The proxy of one APIService backed by a service (the reference's proxyHandler,
 * kube-aggregator pkg/apiserver/handler_proxy.go, over apimachinery's UpgradeAwareHandler): the
 * authenticated and authorized request goes to the resolved endpoint with the user in the
 * front-proxy headers (the first of each --requestheader-*-headers, X-Remote-User, X-Remote-Group,
 * X-Remote-Extra- and X-Remote-Uid otherwise), without the client's Authorization and Impersonate
 * headers, over a TLS connection presenting the proxy client certificate; the answer is streamed
 * back as it comes (watches). 503 `service unavailable` while the APIService is not available or
 * its service cannot be resolved; a redirect from the extension server is a 502 with
 * --aggregator-reject-forwarding-redirect.
 */
import { request } from 'node:http'
import type { Handler, Request, Response, UserInfo } from '../http/types.js'
import { isUpgrade, relayUpgrade, takeConnection, type UpgradeConnection } from '../http/upgrade.js'
import type { ResolvedEndpoint } from './service-resolver.js'
import { goTransportError } from './transport.js'
import type { Agent } from 'node:http'
import type { Duplex } from 'node:stream'

/** The header names the user is sent in. */
export interface FrontProxyHeaders {
  user: string
  group: string
  extraPrefix: string
  uid: string
}

/** The reference's transport.SetAuthProxyHeaders names, where the options name none. */
export function frontProxyHeaders(config: { requestheaderUsernameHeaders: string[]; requestheaderGroupHeaders: string[]; requestheaderExtraHeadersPrefix: string[]; requestheaderUidHeaders: string[] }): FrontProxyHeaders {
  return {
    user: config.requestheaderUsernameHeaders[0] || 'X-Remote-User',
    group: config.requestheaderGroupHeaders[0] || 'X-Remote-Group',
    extraPrefix: config.requestheaderExtraHeadersPrefix[0] || 'X-Remote-Extra-',
    uid: config.requestheaderUidHeaders[0] || 'X-Remote-Uid',
  }
}

/** Hop-by-hop headers (Go's ReverseProxy drops them) and what HTTP/2 forbids in a response. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'http2-settings'])

/** headerKeyEscape: an extra's key percent-encoded where it is not a header token character. */
function escapeExtraKey(key: string): string {
  return [...Buffer.from(key, 'utf8')].map((b) => (/[A-Za-z0-9!#$&'*+\-.^_`|~]/.test(String.fromCharCode(b)) && b < 128 && String.fromCharCode(b) !== '%' ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('')
}

/** The request's headers as the extension server gets them. */
export function proxiedHeaders(req: Request, user: UserInfo, names: FrontProxyHeaders, host: string): Record<string, string | string[]> {
  const extraPrefix = names.extraPrefix.toLowerCase()
  const identity = new Set([names.user.toLowerCase(), names.group.toLowerCase(), names.uid.toLowerCase()])
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue
    const lower = name.toLowerCase()
    if (HOP_BY_HOP.has(lower) || lower === 'authorization' || lower.startsWith('impersonate-') || identity.has(lower) || lower.startsWith(extraPrefix)) continue
    out[lower] = value
  }
  out.host = host
  const remote = req.socket?.remoteAddress
  if (remote) out['x-forwarded-for'] = typeof out['x-forwarded-for'] === 'string' ? `${out['x-forwarded-for']}, ${remote}` : remote
  out[names.user] = user.name
  if (user.uid) out[names.uid] = user.uid
  if (user.groups.length > 0) out[names.group] = user.groups
  for (const [key, values] of Object.entries(user.extra ?? {})) out[`${names.extraPrefix}${escapeExtraKey(key)}`] = values
  return out
}

/** http.Error: the message as plain text with a newline. */
export function plainError(res: Response, code: number, message: string): void {
  if (res.headersSent) {
    res.destroy?.()
    return
  }
  res.statusCode = code
  res.setHeader('Content-Type', 'text/plain; charset=utf-8')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.end(`${message}\n`)
}

export interface ProxyTarget {
  /** Whether the APIService's Available condition is True. */
  available: boolean
  /** The endpoint of the service, resolved for each request (from a cache that follows the changes). */
  resolve(): Promise<ResolvedEndpoint>
  agent: Agent
  /** A fresh connection to the endpoint (an upgrade takes one of its own, as the reference's dials directly). */
  connect(endpoint: ResolvedEndpoint): Promise<Duplex>
}

export interface ProxyOptions {
  headers: FrontProxyHeaders
  rejectForwardingRedirects: boolean
  log(level: number, message: string): void
}

export function proxyHandler(target: ProxyTarget, options: ProxyOptions): Handler {
  return async (req, res, ctx) => {
    if (!target.available) return plainError(res, 503, 'service unavailable')
    const user = ctx.user
    if (!user) return plainError(res, 500, 'missing user')
    let endpoint: ResolvedEndpoint
    try {
      endpoint = await target.resolve()
    } catch (err) {
      options.log(2, `error resolving the service of ${ctx.info.path}: ${(err as Error).message}`)
      return plainError(res, 503, 'service unavailable')
    }
    const host = `${endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`
    const path = `${ctx.url.pathname}${ctx.rawQuery ? `?${ctx.rawQuery}` : ''}`
    if (isUpgradeRequest(req) && isUpgrade(req)) return proxyUpgrade(req, () => takeConnection(req, res)!, path, proxiedHeaders(req, user, options.headers, host), () => target.connect(endpoint), (err) => plainError(res, 503, goTransportError(err, host)))
    await new Promise<void>((done) => {
      const upstream = request(
        { host: endpoint.host, port: endpoint.port, method: req.method ?? 'GET', path, headers: proxiedHeaders(req, user, options.headers, host), agent: target.agent },
        (answer) => {
          const code = answer.statusCode ?? 502
          if (options.rejectForwardingRedirects && code >= 300 && code <= 399 && answer.headers.location) {
            answer.resume()
            plainError(res, 502, 'the backend attempted to redirect this request, which is not permitted')
            return done()
          }
          res.statusCode = code
          for (const [name, value] of Object.entries(answer.headers)) {
            if (value !== undefined && !HOP_BY_HOP.has(name)) res.setHeader(name, value)
          }
          // Streamed as it arrives: a watch's events are flushed one by one.
          answer.on('data', (chunk: Buffer) => (res as NodeJS.WritableStream).write(chunk))
          answer.on('end', () => {
            res.end()
            done()
          })
          answer.on('error', () => {
            res.destroy?.()
            done()
          })
        },
      )
      upstream.on('error', (err: NodeJS.ErrnoException) => {
        options.log(2, `proxying ${ctx.info.path} to ${host}: ${err.message}`)
        plainError(res, 503, goTransportError(err, host))
        done()
      })
      // The client going away ends the upstream request (a watch left open otherwise).
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy()
      })
      ;(req as NodeJS.ReadableStream).pipe(upstream)
    })
  }
}

/** httpstream.IsUpgradeRequest: `Connection` lists `upgrade`. */
function isUpgradeRequest(req: Request): boolean {
  return String(req.headers.connection ?? '')
    .split(',')
    .some((token) => token.trim().toLowerCase() === 'upgrade')
}

/**
 * An upgrade (WebSocket, SPDY: exec, attach, port-forward, watch over WebSocket): the request
 * head is written on a new connection to the extension server with the user's headers set ahead
 * (the reference's upgrade path bypasses its round tripper, so it sets them on the request), then
 * both connections are joined byte for byte, the extension server's answer (101 or not) included.
 */
async function proxyUpgrade(
  req: Request,
  take: () => UpgradeConnection,
  path: string,
  headers: Record<string, string | string[]>,
  connect: () => Promise<Duplex>,
  failed: (err: NodeJS.ErrnoException) => void,
): Promise<void> {
  let upstream: Duplex
  try {
    upstream = await connect()
  } catch (err) {
    return failed(err as NodeJS.ErrnoException)
  }
  const lines = [`${req.method ?? 'GET'} ${path} HTTP/1.1`]
  for (const [name, value] of Object.entries({ ...headers, connection: 'Upgrade', upgrade: String(req.headers.upgrade ?? '') })) {
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`)
  }
  await relayUpgrade(take(), upstream, `${lines.join('\r\n')}\r\n\r\n`)
}
