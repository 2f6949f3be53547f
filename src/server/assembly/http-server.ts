/**
 * The HTTPS server: its port (bound first), its certificates, the server itself (HTTP/2 with
 * HTTP/1.1, or HTTP/1.1 alone) and its request listener, which hands every request to the
 * handler chain: a target Go's server could not parse is refused before any handler runs, and
 * a handler that throws is logged and answered 500.
 */
import { hostname } from 'node:os'
import { createSecureServer, type Http2SecureServer } from 'node:http2'
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https'
import { kubernetesServiceIP } from '../api/kinds/cluster-ip.js'
import type { ServerConfig } from '../config.js'
import { ListenError, bindSecurePort } from '../http/listener.js'
import { Connections } from '../http/connections.js'
import { IncomingContext } from '../http/context.js'
import { parseHttp1FromStream } from '../http/http1-reads.js'
import { isPromise } from '../http/maybe-promise.js'
import { decodeRequestPath } from '../http/request-info.js'
import { httpError } from '../http/respond.js'
import { serveUpgrades } from '../http/upgrade.js'
import { SERVING_TIMEOUT_OPTIONS, applyServingTimeouts } from '../http/timeouts.js'
import type { Handler, Request, Response } from '../http/types.js'
import { StartupError } from '../lifecycle/startup-error.js'
import type { Logger } from '../log/logger.js'
import { type ServingTls, prepareServing } from '../tls/index.js'

export interface HttpServer {
  readonly server: Http2SecureServer | HttpsServer
  /** Every open connection, for closing the idle ones and destroying the rest at shutdown. */
  readonly connections: Connections
}

/**
 * The secure port, bound first: a port in use is reported before certificates are generated or
 * files written (or the embedded store's data directory created).
 */
export async function bindServingPort(config: ServerConfig): Promise<Awaited<ReturnType<typeof bindSecurePort>>> {
  const host = config.bindAddress === '' ? '::' : config.bindAddress
  try {
    return await bindSecurePort(host, config.securePort, config.permitPortSharing)
  } catch (err) {
    if (err instanceof ListenError) throw new StartupError(err.message)
    throw err
  }
}

/**
 * The serving certificates, prepared (their RSA keys generated on libuv's thread pool) while
 * the embedded store opens, as the reference completes its certificates before it touches
 * storage; a store error is still the one reported when both fail.
 */
export function prepareServingTls(config: ServerConfig): Promise<ServingTls> {
  const tlsReady = prepareServing({
    certDir: config.certDir,
    certFile: config.tlsCertFile,
    keyFile: config.tlsPrivateKeyFile,
    sniCertKeys: config.tlsSniCertKeys,
    minVersion: config.tlsMinVersion,
    cipherSuites: config.tlsCipherSuites,
    advertiseAddress: config.advertiseAddress,
    serviceIp: kubernetesServiceIP(config.serviceClusterIPRange),
    bindAddress: config.bindAddress,
    alpn: config.disableHttp2 ? ['http/1.1'] : ['h2', 'http/1.1'],
  })
  tlsReady.catch(() => undefined)
  return tlsReady
}

/** The listener that runs the chain for each request. */
export function requestListener(handler: Handler, connections: Connections, log: Logger): (req: Request, res: Response) => void {
  /** A request whose handling threw: logged, and answered 500 if nothing was sent yet. */
  const failed = (req: Request, res: Response, ctx: IncomingContext, err: unknown) => {
    log.error(`request ${req.method} ${ctx.url.pathname} failed: ${(err as Error).stack ?? err}`)
    if (!res.headersSent) {
      res.statusCode = 500
      res.end()
    }
  }
  return (req: Request, res: Response) => {
    connections.track(req, res)
    const target = req.url ?? '/'
    let path: string
    try {
      path = decodeRequestPath(target)
    } catch {
      // Go's server refuses a request target it cannot parse before any handler runs.
      httpError(res, 400, '400 Bad Request')
      return
    }
    const ctx = new IncomingContext(req, target, path)
    try {
      const done = handler(req, res, ctx)
      // The closure only for a request that is still in progress (most probes and GETs are not).
      if (isPromise(done)) done.catch((err: unknown) => failed(req, res, ctx, err))
    } catch (err) {
      failed(req, res, ctx, err)
    }
  }
}

/** The server over the chain, with the serving certificates attached (not listening yet); the TLS notes are logged. */
export function createHttpServer(handler: Handler, config: ServerConfig, tls: ServingTls, log: Logger): HttpServer {
  const connections = new Connections()
  const onRequest = requestListener(handler, connections, log)
  const server: Http2SecureServer | HttpsServer = config.disableHttp2
    ? createHttpsServer({ ...tls.secureOptions, ...SERVING_TIMEOUT_OPTIONS }, onRequest)
    : createSecureServer(
        {
          ...tls.secureOptions,
          ...SERVING_TIMEOUT_OPTIONS,
          allowHTTP1: true,
          ...(config.http2MaxStreamsPerConnection > 0 ? { settings: { maxConcurrentStreams: config.http2MaxStreamsPerConnection } } : {}),
        },
        onRequest,
      )
  applyServingTimeouts(server)
  parseHttp1FromStream(server)
  serveUpgrades(server, onRequest)
  connections.watch(server)
  // Clients that connect by IP send no server name; this picks their certificate by local address.
  tls.attach(server)
  for (const warning of tls.warnings) log.warning(warning)
  for (const reason of tls.generationReasons) log.info(reason)
  const certDir = tls.certFiles.cert.replace(/\/[^/]+$/, '')
  if (tls.created.ca || tls.created.serving) log.info(`generated a self-signed serving certificate in ${certDir} for ${hostname()}`)
  // On a restart nothing is generated; the log still says where the CA for clients is.
  else if (tls.generated) log.info(`using the self-signed serving certificate and CA in ${certDir}`)
  return { server, connections }
}
