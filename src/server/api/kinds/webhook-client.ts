/**
 * The one HTTPS client of the server's webhooks (CRD conversion, admission): where a webhook's
 * clientConfig points (url, or a service resolved as the reference's default service resolver
 * does: the service's cluster IP and port, an ExternalName service's name, with the TLS
 * server name `<service>.<namespace>.svc`), and one JSON POST trusting clientConfig.caBundle
 * (the system's roots without one), its failures in the words of Go's net/http client that
 * the reference's messages carry.
 */
import { request as httpsRequest } from 'node:https'
import { isIP } from 'node:net'
import { rootCertificates } from 'node:tls'
import { egressAgent } from '../../egress/agent.js'
import { traceContextHeaders } from '../../tracing/spans.js'
import type { KubeObject } from '../registry/object.js'
import { isPlainObject } from '../registry/object.js'
import { ApiError } from '../status-errors.js'

type Obj = Record<string, unknown>

const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {})
const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** What resolving a service needs: the stored Service. */
export interface ServiceLookup {
  getService(namespace: string, name: string): Promise<KubeObject | undefined>
}

/** The Services of a registry (its `lookup` of core/v1 services), absent ones undefined. */
export function storedServices(stores: () => { lookup(group: string, version: string, resource: string): { get(namespace: string, name: string): Promise<KubeObject> } | undefined } | undefined): ServiceLookup {
  return {
    async getService(namespace, name) {
      const services = stores()?.lookup('', 'v1', 'services')
      if (!services) return undefined
      try {
        return await services.get(namespace, name)
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) return undefined
        throw err
      }
    },
  }
}

/** Where a webhook is reached. */
export interface WebhookTarget {
  url: URL
  /** The TLS server name (a service's DNS name). */
  servername?: string
  /** A service's URL by its DNS name and port, as errors name it (Go's client dials the name). */
  shownAs?: string
}

/** The reference's ResolveCluster: a Service's cluster IP and port (or an ExternalName). */
export async function resolveService(services: ServiceLookup, namespace: string, name: string, port: number): Promise<URL> {
  const svc = await services.getService(namespace, name)
  if (!svc) throw new Error(`service "${name}" not found`)
  const spec = obj(svc.spec)
  const type = str(spec.type) || 'ClusterIP'
  const host = (h: string) => (isIP(h) === 6 ? `[${h}]` : h)
  if (type === 'ClusterIP' && spec.clusterIP === 'None') throw new Error('cannot route to service with ClusterIP "None"')
  if (type === 'ClusterIP' || type === 'LoadBalancer' || type === 'NodePort') {
    const ports = Array.isArray(spec.ports) ? spec.ports.map(obj) : []
    if (!ports.some((p) => p.port === port)) throw new Error(`no service port ${port} found for service "${name}"`)
    return new URL(`https://${host(str(spec.clusterIP))}:${port}`)
  }
  if (type === 'ExternalName') return new URL(`https://${host(str(spec.externalName))}:${port}`)
  throw new Error(`unsupported service type "${type}"`)
}

/**
 * A service reference's URL by the service's DNS name and port (client-go's Host, the port
 * kept even when 443); undefined for a url reference.
 */
export function serviceURL(clientConfig: Obj): string | undefined {
  if (str(clientConfig.url)) return undefined
  const service = obj(clientConfig.service)
  const port = typeof service.port === 'number' ? service.port : 443
  return `https://${str(service.name)}.${str(service.namespace)}.svc:${port}${str(service.path) || '/'}`
}

/** Where a webhook's clientConfig (url or service) points. */
export async function webhookTarget(clientConfig: Obj, services: ServiceLookup): Promise<WebhookTarget> {
  if (str(clientConfig.url)) return { url: new URL(str(clientConfig.url)) }
  const service = obj(clientConfig.service)
  const namespace = str(service.namespace)
  const name = str(service.name)
  const port = typeof service.port === 'number' ? service.port : 443
  const url = await resolveService(services, namespace, name, port)
  url.pathname = str(service.path) || '/'
  return { url, servername: `${name}.${namespace}.svc`, shownAs: serviceURL(clientConfig) }
}

/** The PEM roots a clientConfig.caBundle names, undefined without one. */
export function caBundlePem(clientConfig: Obj): string | undefined {
  const caBundle = str(clientConfig.caBundle)
  return caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined
}

/** The unknown-authority TLS failures, in Node's codes. */
const UNKNOWN_AUTHORITY = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT'])

/** A transport failure in the words of Go's net/http client, which the reference's messages carry. */
function goNetError(err: NodeJS.ErrnoException, url: URL): string {
  const address = `${url.hostname.replace(/^\[|\]$/g, '')}:${url.port || '443'}`
  if (err.code === 'ECONNREFUSED') return `dial tcp ${address}: connect: connection refused`
  if (err.code && UNKNOWN_AUTHORITY.has(err.code)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority'
  if (err.code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `tls: failed to verify certificate: x509: ${err.message}`
  return err.message
}

/** The request option of an egress agent, none without one. */
const withAgent = (agent: import('node:http').Agent | undefined) => (agent ? { agent } : {})

/**
 * POSTs `body` (JSON) to the target and resolves to the decoded answer. A non-2xx answer is
 * refused with its Status's message (client-go's words without one); a transport failure or
 * the deadline as `Post "<url>": <why>`.
 */
export function postJSON(target: WebhookTarget, ca: string | undefined, body: string, timeoutMs: number): Promise<unknown> {
  const { url, servername } = target
  const shown = target.shownAs ?? url.href
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: 'POST',
        // The active span's W3C trace context, as the reference's traced transport sends it.
        headers: { 'content-type': 'application/json', accept: 'application/json, */*', 'content-length': Buffer.byteLength(body), ...traceContextHeaders() },
        ca: ca ?? [...rootCertificates],
        ...(servername ? { servername } : {}),
        // The reference dials webhooks on the egress selector's cluster network.
        ...withAgent(egressAgent('cluster')),
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          const code = res.statusCode ?? 0
          if (code < 200 || code > 299) {
            let message = `the server responded with the status code ${code} but did not return more information`
            try {
              const status = JSON.parse(text) as { kind?: string; message?: string }
              if (status.kind === 'Status' && status.message) message = status.message
            } catch {
              // not a Status: the generic words
            }
            // The answer's code, as client-go's StatusError carries it.
            reject(Object.assign(new Error(message), { statusCode: code }))
            return
          }
          try {
            resolve(JSON.parse(text))
          } catch (err) {
            reject(new Error(`couldn't decode the webhook's answer: ${(err as Error).message}`))
          }
        })
        res.on('error', reject)
      },
    )
    // A deadline for the whole exchange, as Go's request context, not an idle timeout.
    const deadline = setTimeout(() => req.destroy(new Error(`Post "${shown}": context deadline exceeded`)), timeoutMs)
    req.on('close', () => clearTimeout(deadline))
    req.on('error', (err) => reject(err.message.startsWith('Post "') ? err : new Error(`Post "${shown}": ${goNetError(err as NodeJS.ErrnoException, url)}`)))
    req.end(body)
  })
}
