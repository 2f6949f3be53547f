/**
 * The termination sequence (lifecycle/shutdown.ts) over the server's parts, and what it
 * releases last, once the requests have drained: each part, as it is built, adds how it stops
 * to a ShutdownList; they stop in RELEASE_ORDER, whatever order they were built in. The controllers go first (the lease endpoint reconciler removes
 * this server from the `kubernetes` Endpoints through the store), the store and the log last.
 */
import type { ServerConfig } from '../config.js'
import type { LifecycleSignals, WaitGroup } from '../lifecycle/signals.js'
import { gracefulShutdown } from '../lifecycle/shutdown.js'
import type { Logger } from '../log/logger.js'
import type { HttpServer } from './http-server.js'

/** A part of the server that holds something until shutdown. */
export interface Stoppable {
  readonly name: ReleaseName
  stop(): void | Promise<void>
}

export const RELEASE_ORDER = [
  'controllers',
  'aggregator',
  'audit',
  'storage-metrics',
  'flow-controller',
  'encryption-config',
  'rbac-informers',
  'admission',
  'authorization-config',
  'node-authorizer-informers',
  'token-authenticators',
  'external-jwt-signer',
  'ca-files',
  'debug-socket',
  'store',
  // After the store: the spans of the last requests are exported.
  'tracing',
  'log',
] as const

export type ReleaseName = (typeof RELEASE_ORDER)[number]

export class ShutdownList {
  private readonly parts: Stoppable[] = []

  add(name: ReleaseName, stop: () => void | Promise<void>): void {
    this.parts.push({ name, stop })
  }

  /** Stops every part in RELEASE_ORDER, one after the other; a part that throws ends the release, as before. */
  async release(): Promise<void> {
    for (const name of RELEASE_ORDER) {
      for (const part of this.parts) if (part.name === name) await part.stop()
    }
  }
}

export interface TerminationParts {
  readonly config: ServerConfig
  readonly signals: LifecycleSignals
  readonly inFlight: WaitGroup
  readonly watches: WaitGroup
  readonly http: HttpServer
  readonly releases: ShutdownList
  readonly log: Logger
}

/** The termination sequence (as a first SIGTERM starts it), run once however often it is asked for. */
export function terminationSequence(parts: TerminationParts): () => Promise<void> {
  const { config, http, log } = parts
  let shutdownPromise: Promise<void> | undefined
  return () => {
    shutdownPromise ??= gracefulShutdown({
      signals: parts.signals,
      inFlight: parts.inFlight,
      watches: parts.watches,
      delayMs: config.shutdownDelayMs,
      sendRetryAfter: config.shutdownSendRetryAfter,
      drainTimeoutMs: config.requestTimeoutMs,
      watchGracePeriodMs: config.shutdownWatchTerminationGracePeriodMs,
      stopListening: () => {
        if (http.server.listening) http.server.close()
        return Promise.resolve()
      },
      closeIdleConnections: () => http.connections.closeIdle(),
      destroyConnections: () => http.connections.destroyAll(),
      releaseResources: () => parts.releases.release(),
      log: (message) => log.info(message),
    })
    return shutdownPromise
  }
}
