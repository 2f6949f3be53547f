/**
 * The mixed-version proxy's decision and forwarding (staging/src/k8s.io/apiserver/pkg/util/
 * peerproxy/peerproxy_handler.go): a resource request for a group/version/resource this server
 * does not serve, but a peer does, is sent to one of those peers (at random) with the
 * requester in the front-proxy headers and `x-kubernetes-peer-proxied: true`, and the peer's
 * answer is passed back as it comes.
 */
import type { IncomingMessage } from 'node:http'
import type { Registry } from '../api/registry/registry.js'
import { httpError } from '../http/respond.js'
import type { Request, RequestContext, Response } from '../http/types.js'
import type { ReroutedRequest } from './metrics.js'
import { PeerDiscovery, gvrKey } from './peer-discovery.js'
import { type PeerTls, authProxyHeaders, dialError, peerRequest } from './peer-request.js'

/** Where a request goes. */
export type PeerRoute = { to: 'local' } | { to: 'peer'; address: string } | { to: 'unresolved'; error: string }

/** Response headers not copied back (hop-by-hop; HTTP/2 refuses them). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer'])

export class PeerProxy {
  constructor(
    readonly discovery: PeerDiscovery,
    private readonly tls: PeerTls,
    private readonly registry: () => Registry | undefined,
    /** Counts each forwarded request by the answer's code (IncPeerProxiedRequest). */
    private readonly rerouted: ReroutedRequest = () => {},
  ) {}

  /** Whether this server serves the group/version/resource (a built-in kind, a virtual one or a CRD's). */
  async servesLocally(group: string, version: string, resource: string): Promise<boolean> {
    const registry = this.registry()
    if (!registry) return true
    if (registry.lookup(group, version, resource)) return true
    const key = gvrKey(group, version, resource)
    return (await registry.kinds()).some((k) => gvrKey(k.group, k.version, k.resource) === key)
  }

  /** The reference's WrapHandler decision for a resource request not proxied before. */
  async route(ctx: RequestContext): Promise<PeerRoute> {
    const { apiGroup = '', apiVersion = '', resource = '' } = ctx.info
    if (await this.servesLocally(apiGroup, apiVersion, resource)) return { to: 'local' }
    // Nothing in the cluster serves it: the local handler answers (its 404).
    const ids = this.discovery.serviceableBy(apiGroup, apiVersion, resource)
    if (ids.length === 0) return { to: 'local' }
    const addresses = (await Promise.all(ids.map((id) => this.discovery.endpointOf(id)))).filter((a): a is string => a !== undefined && /:\d+$/.test(a))
    if (addresses.length === 0) return { to: 'unresolved', error: 'Error getting ip and port info of the remote server while proxying' }
    return { to: 'peer', address: addresses[Math.floor(Math.random() * addresses.length)]! }
  }

  /** Sends the request to the peer and its answer back; a connection failure is the reference's 503 text. */
  forward(req: Request, res: Response, ctx: RequestContext, address: string): Promise<void> {
    const query = new URLSearchParams(ctx.url.search)
    query.sort()
    const search = query.toString()
    const path = `${ctx.url.pathname}${search ? `?${search}` : ''}`
    const { apiGroup = '', apiVersion = '', resource = '' } = ctx.info
    const count = (code: number) => this.rerouted(code, apiGroup, apiVersion, resource)
    return new Promise((resolve) => {
      const onResponse = (answer: IncomingMessage) => {
        res.statusCode = answer.statusCode ?? 502
        count(res.statusCode)
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name)) res.setHeader(name, value)
        }
        answer.pipe(res as NodeJS.WritableStream)
        answer.on('end', () => resolve())
        answer.on('error', () => resolve())
      }
      const outgoing = peerRequest(this.tls, address, req.method ?? 'GET', path, authProxyHeaders(req.headers, ctx.user!), onResponse)
      outgoing.on('error', (err: NodeJS.ErrnoException) => {
        if (res.headersSent) res.destroy()
        else {
          httpError(res, 503, dialError(err, address))
          count(503)
        }
        resolve()
      })
      // The client went away: so does the peer request.
      res.on('close', () => outgoing.destroy())
      ;(req as NodeJS.ReadableStream).pipe(outgoing)
    })
  }
}
