/**
 * The server's /healthz, /livez and /readyz: the checks of spec 2.1 in their order (ping, log,
 * the store's, the KMS providers', the post-start hooks', autoregister-completion, shutdown),
 * and what follows /readyz's first pass.
 */
import { API_SERVICES_PREFIX } from '../bootstrap/cluster.js'
import { whenReady } from '../bootstrap/after-ready.js'
import type { ServerConfig } from '../config.js'
import type { ProviderConfig } from '../encryption/provider-config.js'
import { AUTOREGISTER_COMPLETION, type Health, type PostStartHook, createHealth } from '../health/index.js'
import type { LifecycleSignals } from '../lifecycle/signals.js'
import type { Logger } from '../log/logger.js'
import type { TestFaults } from '../test-faults.js'
import type { BootstrapWrites } from './bootstrap-writes.js'
import { type PendingStore, storeProbeNames } from './pending-store.js'

/** The health registries; a post-start hook that fails is fatal, as the reference's klog.Fatal. */
export function serverHealth(config: ServerConfig, signals: LifecycleSignals, log: Logger): Health {
  return createHealth({
    livezGracePeriodMs: config.livezGracePeriodMs,
    signals,
    log: (level, message) => log.v(level, message),
    onFatal: (name, err) => {
      log.error(`PostStartHook "${name}" failed: ${err.message}`)
      process.exit(1)
    },
  })
}

export interface HealthCheckParts {
  readonly config: ServerConfig
  readonly log: Logger
  readonly faults: TestFaults
  readonly pending: PendingStore
  readonly encryption?: ProviderConfig
  /** The post-start hooks by name (post-start-hooks.ts). */
  readonly hooks: Readonly<Record<string, PostStartHook>>
  /** How many built-in APIServices autoregister-completion waits for. */
  readonly apiServices: number
}

/** Installs every check of spec 2.1 in its order. */
export function installHealthChecks(health: Health, parts: HealthCheckParts): void {
  const { config, log, faults, pending } = parts
  let autoregistered = false
  health.install({
    log: { name: 'log', check: () => faults.wrap('log', () => log.check()), immediate: () => (faults.enabled ? undefined : log.checkNow()) },
    store: {
      probes: faults.wrapProbes(pending.probes(storeProbeNames(config))),
      healthTimeoutMs: config.storeHealthcheckTimeoutMs,
      readyTimeoutMs: config.storeReadycheckTimeoutMs,
    },
    hooks: parts.hooks,
    healthAndReady: parts.encryption?.healthChecks() ?? [],
    autoregisterCompletion: {
      name: AUTOREGISTER_COMPLETION,
      // Like the reference's check on its informer cache: once every built-in APIService has
      // been seen, the boot sequence is complete and later store trouble is the store check's.
      check: async () => {
        if (autoregistered) return
        if (!pending.store) throw new Error('the store is not open yet')
        const registered = await pending.store.count(API_SERVICES_PREFIX)
        const wanted = parts.apiServices
        if (registered < wanted) throw new Error(`${wanted - registered} of ${wanted} built-in APIServices are not registered yet`)
        autoregistered = true
      },
      immediate: () => (autoregistered ? null : undefined),
    },
  })
}

/** /readyz's first pass, known before the post-start hooks run (the controllers' context waits on it). */
export class Readiness {
  /** True once /readyz first passed, false if shutdown came first. */
  readonly ready: Promise<boolean>
  private settle!: (ready: boolean) => void

  constructor() {
    this.ready = new Promise((resolve) => (this.settle = resolve))
  }

  /** Starts the post-start hooks and, once /readyz first passes, the bootstrap writes that wait for it. */
  startPostStartHooks(health: Health, parts: { signals: LifecycleSignals; writes: BootstrapWrites; log: Logger }): void {
    const { signals, writes, log } = parts
    const hooksDone = health.startPostStartHooks()
    void whenReady({
      hooksDone,
      readyChecks: () => health.registry.checksFor('readyz'),
      hasBeenReady: signals.hasBeenReady,
      shutdownInitiated: signals.shutdownInitiated,
    })
      .then((ready) => {
        this.settle(ready)
        if (ready) return writes.afterReadyWork()
        writes.notReady()
      })
      .catch((err: Error) => log.error(`bootstrap-controller: ${err.message}`))
  }
}
