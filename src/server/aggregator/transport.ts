/**
 * The connections to extension servers, as the reference's BuildTransportConfig makes them for an
 * APIService: TLS with the server name `<service>.<namespace>.svc`, verified against
 * `spec.caBundle` (or not at all with `insecureSkipTLSVerify`), presenting the proxy client
 * certificate (`--proxy-client-cert-file`/`--proxy-client-key-file`). Every connection is opened
 * by `connectExtensionServer` through an EgressDialer on the `cluster` network.
 */
import { readFileSync } from 'node:fs'
import { Agent, type AgentOptions, type ClientRequestArgs } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { type TLSSocket, connect as tlsConnect } from 'node:tls'
import type { EgressDialer } from '../egress/dialer.js'
import { INSTALLED_DIALER } from '../egress/installed.js'

/** The proxy's client certificate and key, as PEM. */
export interface ProxyClientCertificate {
  cert: string
  key: string
}

/** What TLS an APIService asks for. */
export interface ExtensionServerTls {
  serverName: string
  /** The PEM of spec.caBundle, when given. */
  ca?: string
  insecureSkipTLSVerify: boolean
  client?: ProxyClientCertificate
}

interface ServiceReference {
  namespace?: string
  name?: string
}

/** BuildTransportConfig's TLS for an APIService backed by a service. */
export function extensionServerTls(spec: { service?: ServiceReference | null; caBundle?: string; insecureSkipTLSVerify?: boolean }, client?: ProxyClientCertificate): ExtensionServerTls {
  const service = spec.service ?? {}
  const ca = spec.caBundle ? Buffer.from(spec.caBundle, 'base64').toString('utf8') : undefined
  return {
    serverName: `${service.name ?? ''}.${service.namespace ?? ''}.svc`,
    ...(ca ? { ca } : {}),
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
    ...(client ? { client } : {}),
  }
}

/** A TLS connection to an extension server at host:port, opened through `dialer` on the cluster network. */
export async function connectExtensionServer(host: string, port: number, tls: ExtensionServerTls, dialer: EgressDialer = INSTALLED_DIALER): Promise<TLSSocket> {
  const raw = await dialer.dial('cluster', host, port)
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({
      socket: raw as Socket,
      servername: tls.serverName,
      rejectUnauthorized: !tls.insecureSkipTLSVerify,
      ...(tls.ca ? { ca: tls.ca } : {}),
      ...(tls.client ? { cert: tls.client.cert, key: tls.client.key } : {}),
      ALPNProtocols: ['http/1.1'],
    })
    socket.once('secureConnect', () => {
      socket.off('error', reject)
      resolve(socket)
    })
    socket.once('error', (err) => {
      raw.destroy()
      reject(err)
    })
  })
}

/**
 * An HTTP/1.1 agent whose connections are connectExtensionServer's, kept alive between requests
 * (the reference's transport pools its connections the same way), one per APIService's TLS.
 */
export class ExtensionServerAgent extends Agent {
  constructor(
    private readonly tls: ExtensionServerTls,
    private readonly dialer: EgressDialer = INSTALLED_DIALER,
    options: AgentOptions = { keepAlive: true },
  ) {
    super(options)
  }

  override createConnection(options: ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void): undefined {
    connectExtensionServer(options.host ?? 'localhost', Number(options.port ?? 443), this.tls, this.dialer).then(
      (socket) => callback?.(null, socket),
      (err: Error) => callback?.(err, undefined as unknown as Duplex),
    )
    return undefined
  }
}

/** A transport failure in the words of Go's TLS and net packages, for messages the reference prints. */
export function goTransportError(err: NodeJS.ErrnoException, address: string): string {
  const unknownAuthority = ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT']
  if (err.code === 'ECONNREFUSED') return `dial tcp ${address}: connect: connection refused`
  if (err.code && unknownAuthority.includes(err.code)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority'
  if (err.code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `tls: failed to verify certificate: ${err.message}`
  if (err.code === 'ECONNRESET') return `read tcp ${address}: read: connection reset by peer`
  return err.message
}

/** The proxy client certificate of --proxy-client-cert-file/--proxy-client-key-file, when both are given. */
export function loadProxyClientCertificate(config: { proxyClientCertFile?: string; proxyClientKeyFile?: string }): ProxyClientCertificate | undefined {
  if (!config.proxyClientCertFile || !config.proxyClientKeyFile) return undefined
  return { cert: readFileSync(config.proxyClientCertFile, 'utf8'), key: readFileSync(config.proxyClientKeyFile, 'utf8') }
}
