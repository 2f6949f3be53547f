/**
 * One GET from an extension server over connectExtensionServer, as the aggregator itself makes
 * them (the availability check's discovery GET, the discovery and OpenAPI documents it merges):
 * the request carries the identity the reference's SetAuthProxyHeaders gives the aggregator.
 */
import { request } from 'node:http'
import type { Duplex } from 'node:stream'
import type { EgressDialer } from '../egress/dialer.js'
import type { ResolvedEndpoint } from './service-resolver.js'
import { type ExtensionServerTls, connectExtensionServer, goTransportError } from './transport.js'

export interface ExtensionReply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

/** The URL the reference prints for a request to an endpoint (IPv6 hosts in brackets). */
export function endpointUrl(endpoint: ResolvedEndpoint, path: string): string {
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host
  return `https://${host}:${endpoint.port}${path}`
}

/** The aggregator's own identity towards extension servers (system:masters: it may always read discovery). */
export const AGGREGATOR_IDENTITY = { 'X-Remote-User': 'system:kube-aggregator', 'X-Remote-Group': 'system:masters' }

/**
 * GETs `path`; redirects are not followed (CheckRedirect: ErrUseLastResponse). Rejects with
 * Go's `Get "<url>": <why>` on a transport failure or when `timeoutMs` passes.
 */
export function extensionGet(endpoint: ResolvedEndpoint, path: string, tls: ExtensionServerTls, options: { timeoutMs: number; accept?: string; dialer?: EgressDialer }): Promise<ExtensionReply> {
  const url = endpointUrl(endpoint, path)
  const address = url.slice('https://'.length).split('/')[0]!
  return new Promise((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException) => reject(new Error(`Get ${JSON.stringify(url)}: ${goTransportError(err, address)}`))
    const req = request(
      {
        host: endpoint.host,
        port: endpoint.port,
        path,
        method: 'GET',
        headers: { ...AGGREGATOR_IDENTITY, accept: options.accept ?? 'application/json', host: address },
        createConnection: (_opts: unknown, callback: (err: Error | null, socket: Duplex) => void) => {
          connectExtensionServer(endpoint.host, endpoint.port, tls, options.dialer).then(
            (socket) => callback(null, socket),
            (err: Error) => callback(err, undefined as unknown as Duplex),
          )
          return undefined
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
        res.on('error', fail)
      },
    )
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('context deadline exceeded (Client.Timeout exceeded while awaiting headers)'), { code: 'ETIMEDOUT' })), options.timeoutMs)
    req.on('close', () => clearTimeout(timer))
    req.on('error', fail)
    req.end()
  })
}
