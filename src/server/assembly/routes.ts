/**
 * The non-resource paths: /healthz, /livez and /readyz with their checks, /version, /metrics,
 * the flow-control debug dumps, pprof, the logs, the service-account issuer's discovery
 * documents, and `/`, the list of every listed path. The health paths and /version are routed
 * before the resource API, the others after it, as the reference's server installs them.
 */
import { isIP } from 'node:net'
import type { AuthenticationFromConfig } from '../authentication/from-config.js'
import type { ServerConfig } from '../config.js'
import type { FlowController } from '../flowcontrol/controller.js'
import { DEBUG_PATHS, dumpPriorityLevels, dumpQueues, dumpRequests } from '../flowcontrol/debug-dump.js'
import type { Health } from '../health/index.js'
import { Mux } from '../http/mux.js'
import type { Handler } from '../http/types.js'
import { StartupError } from '../lifecycle/startup-error.js'
import type { Logger } from '../log/logger.js'
import { type DebugSocket, serveDebugSocket } from '../paths/debug-socket.js'
import { installLogs } from '../paths/logs.js'
import { type ServerMetrics, metricsHandler } from '../paths/metrics.js'
import { installPprof } from '../paths/pprof.js'
import { OpenIDMetadataError, serviceAccountIssuerHandlers } from '../paths/service-account-issuer.js'
import { versionHandler, versionInfo } from '../version.js'
import { endpointAddress } from '../bootstrap/kubernetes-service.js'

/** /healthz, /livez, /readyz (and their per-check paths) and /version. */
export function installStatusRoutes(mux: Mux, health: Health, version: { productVersion: string; emulatedMinor: number; minCompatibilityMinor: number }): void {
  // Only the health paths are routed here, so the handler always recognises them. Not async:
  // a report whose checks all answer at once is written before this returns.
  const serveHealth: Handler = (req, res, ctx) => {
    const handled = health.handleNow(req, res, ctx)
    if (typeof handled !== 'boolean') return handled.then(() => undefined)
  }
  for (const path of health.paths()) mux.handle(path, serveHealth)
  const serveVersion = versionHandler(versionInfo(version.emulatedMinor, version.minCompatibilityMinor, version.productVersion))
  // The reference's /version is a go-restful service, which answers with or without the trailing slash.
  mux.handle('/version', serveVersion)
  mux.handle('/version/', serveVersion)
}

export interface NonResourceRouteParts {
  readonly config: ServerConfig
  readonly log: Logger
  readonly metrics: ServerMetrics
  /** Priority and fairness's controller, whose tables the debug dumps show; undefined when it is off. */
  readonly flowController?: FlowController
  readonly authentication: AuthenticationFromConfig
}

/**
 * The server's external address, as the reference completes --external-hostname: the option,
 * else the advertised address (logged, as there), with the secure port unless it names one
 * (Go's net.JoinHostPort). The issuer's jwks_uri is built from it when
 * --service-account-jwks-uri is not given.
 */
export function externalAddress(config: ServerConfig, log: Logger): string {
  let host = config.externalHostname
  if (!host) {
    host = endpointAddress(config.advertiseAddress, config.bindAddress)
    log.info(`external host was not specified, using ${host}`)
  }
  if (/^\[.*\]:\d+$/.test(host) || (isIP(host) !== 6 && /^[^:]*:\d+$/.test(host))) return host
  return `${isIP(host) === 6 ? `[${host}]` : host}:${config.securePort}`
}

/** /metrics, the debug paths, the issuer's documents and `/` (installed after the resource API). */
export function installNonResourceRoutes(mux: Mux, parts: NonResourceRouteParts): void {
  const { config, log, flowController } = parts
  mux.handle('/metrics', metricsHandler(parts.metrics))
  if (flowController) {
    mux.handleUnlisted(DEBUG_PATHS.priorityLevels, dumpPriorityLevels(flowController))
    mux.handleUnlisted(DEBUG_PATHS.queues, dumpQueues(flowController))
    mux.handleUnlisted(DEBUG_PATHS.requests, dumpRequests(flowController))
  }
  if (config.profiling) installPprof(mux, { contentionProfiling: config.contentionProfiling })
  if (config.enableLogsHandler) installLogs(mux)
  try {
    for (const [path, handler] of serviceAccountIssuerHandlers({
      issuers: parts.authentication.serviceAccountIssuers,
      jwksUri: config.serviceAccountJwksUri,
      keyFiles: parts.authentication.serviceAccountKeys.publishedFiles,
      ...(parts.authentication.serviceAccountKeys.external ? { externalKeys: parts.authentication.serviceAccountKeys.external.keyCache } : {}),
      externalHost: externalAddress(config, log),
    })) {
      mux.handle(path, handler)
    }
  } catch (err) {
    // Like the reference: a problem with the issuer itself only disables the documents;
    // an unreadable key file is a start-up error.
    if (!(err instanceof OpenIDMetadataError)) throw new StartupError((err as Error).message)
    log.warning(`not serving the service-account issuer discovery documents: ${err.message}`)
  }
  mux.handle('/', (_req, res) => {
    res.setHeader('Content-Type', 'application/json')
    res.statusCode = 200
    res.end(`${JSON.stringify({ paths: mux.paths() }, null, 2)}\n`)
  })
}

/** `--debug-socket-path`: pprof on a Unix socket, outside the chain (no authentication there). */
export async function serveDebugSocketFor(config: ServerConfig): Promise<DebugSocket | undefined> {
  if (!config.debugSocketPath) return undefined
  const debugMux = new Mux()
  installPprof(debugMux, { contentionProfiling: config.contentionProfiling })
  return serveDebugSocket(config.debugSocketPath, debugMux.serve)
}
