/**
 * The server's health subsystem: the three check registries, the post-start hooks, the
 * store checks and the /healthz, /livez, /readyz handlers, wired together. The server
 * calls `install` once with the checks it owns, which registers everything in the order
 * of spec 2.1, then `startPostStartHooks()` once it listens.
 */
import type { LifecycleSignals } from '../lifecycle/signals.js'
import { ping, shutdownCheck, type HealthCheck } from './check.js'
import { goQuote, toByteString } from './go-url.js'
import { healthHandlers, type HealthHandlers, type HealthLog } from './handler.js'
import { PostStartHooks, type PostStartHook } from './post-start-hooks.js'
import { HealthRegistry, type Clock, type HealthWord } from './registry.js'
import { CheckResults } from './results.js'
import { storeChecks, type StoreProbes } from './store-check.js'

export { errorText, ping, shutdownCheck, type HealthCheck } from './check.js'
export { HEALTH_WORDS, HealthRegistry, delayedLivezCheck, type Clock, type HealthWord } from './registry.js'
export { ClientNotEstablishedError, NOT_ESTABLISHED, SHUTTING_DOWN, STORE_GROUP, TokenBucket, storeCheck, storeChecks } from './store-check.js'
export type { StoreCheckOptions, StoreChecksOptions, StoreProbe, StoreProbes } from './store-check.js'
export { PostStartHooks, type PostStartHook } from './post-start-hooks.js'
export { PASSED_LINE, healthHandlers, type CheckSource, type HealthHandlers, type HealthLog } from './handler.js'
export { CheckResults, type CheckResult } from './results.js'

/** The post-start hooks of spec 2.1 that come before `autoregister-completion`, in order (the server's table must hold them: test/server/assembly). */
export const POST_START_HOOKS: readonly string[] = [
  'start-apiserver-admission-initializer',
  'generic-apiserver-start-informers',
  'start-apiextensions-informers',
  'start-apiextensions-controllers',
  'crd-informer-synced',
  'bootstrap-controller',
  'rbac/bootstrap-roles',
  'scheduling/bootstrap-system-priority-classes',
  'start-cluster-authentication-info-controller',
  'start-aggregator-informers',
  'apiservice-registration-controller',
  'apiservice-status-available-controller',
  'apiserver-autoregistration',
]
/** The post-start hook of spec 2.1 listed after `autoregister-completion`. */
export const LATE_POST_START_HOOKS: readonly string[] = ['apiservice-openapi-controller']
export const AUTOREGISTER_COMPLETION = 'autoregister-completion'
/** The hook whose work `autoregister-completion` waits for: the check follows it on /readyz. */
const AUTOREGISTRATION_HOOK = 'apiserver-autoregistration'

interface CreateHealthOptions {
  clock?: Clock
  /** `--livez-grace-period` in milliseconds. */
  livezGracePeriodMs: number
  signals: LifecycleSignals
  log: HealthLog
  /**
   * A post-start hook failed. Default: log `PostStartHook "<name>" failed: <err>` at level 0
   * and exit 1, as the reference's klog.Fatal does.
   */
  onFatal?: (name: string, err: Error) => void
  /** Told of every check result (for metrics). */
  onCheckResult?: (word: HealthWord, name: string, ok: boolean) => void
}

export interface StandardChecks {
  /** The `log` check. */
  log: HealthCheck
  store: {
    probes: StoreProbes
    /** `--store-healthcheck-timeout` (/healthz, /livez). */
    healthTimeoutMs: number
    /** `--store-readycheck-timeout` (/readyz). */
    readyTimeoutMs: number
  }
  /**
   * The post-start hooks by name, in the order /readyz lists them (the server's table,
   * src/server/assembly/post-start-hooks.ts, which holds the spec's POST_START_HOOKS and
   * LATE_POST_START_HOOKS).
   */
  hooks: Readonly<Record<string, PostStartHook>>
  /** The `autoregister-completion` boot-sequence check. */
  autoregisterCompletion: HealthCheck
  /** Checks on /healthz and /readyz only, right after the store's (`kms-providers`). */
  healthAndReady?: readonly HealthCheck[]
}

export interface Health extends HealthHandlers {
  readonly registry: HealthRegistry
  readonly hooks: PostStartHooks
  /** Registers every check of spec 2.1 in its order; `shutdown` last, on /readyz only. */
  install(checks: StandardChecks): void
  /** Starts every post-start hook in parallel; call once the server listens. */
  startPostStartHooks(): Promise<void>
}

export function createHealth(options: CreateHealthOptions): Health {
  const clock = options.clock ?? Date.now
  const registry = new HealthRegistry({ clock, livezGracePeriodMs: options.livezGracePeriodMs })
  const onFatal =
    options.onFatal ??
    ((name: string, err: Error) => {
      options.log(0, `PostStartHook ${goQuote(toByteString(name))} failed: ${err.message}`)
      process.exit(1)
    })
  const hooks = new PostStartHooks({ onFatal })
  const handlers = healthHandlers(registry, { log: options.log, signals: options.signals, results: new CheckResults(clock, options.onCheckResult) })
  let installed = false

  const install = (checks: StandardChecks): void => {
    if (installed) throw new Error('health checks are already installed')
    // The spec's hooks are all there; others (a plug-in's) may come too, where the table puts them.
    const missing = [...POST_START_HOOKS, ...LATE_POST_START_HOOKS].filter((name) => !(name in checks.hooks))
    if (missing.length > 0) throw new Error(`post-start hooks must include every hook of the spec; missing: [${missing.join(' ')}]`)
    if (checks.log.name !== 'log') throw new Error(`the log check must be named "log", not "${checks.log.name}"`)
    if (checks.autoregisterCompletion.name !== AUTOREGISTER_COMPLETION) {
      throw new Error(`the autoregister check must be named "${AUTOREGISTER_COMPLETION}", not "${checks.autoregisterCompletion.name}"`)
    }
    installed = true

    registry.addToAll(ping)
    registry.addToAll(checks.log)
    const store = storeChecks({
      probes: checks.store.probes,
      healthTimeoutMs: checks.store.healthTimeoutMs,
      readyTimeoutMs: checks.store.readyTimeoutMs,
      clock,
      drained: options.signals.inFlightRequestsDrained,
    })
    // One `store` line per report: /healthz and /livez share the health-timeout instance,
    // /readyz has the ready-timeout one under the same name.
    store.health.forEach((check, i) => registry.addToAll(check, store.ready[i]))
    for (const check of checks.healthAndReady ?? []) registry.addHealthAndReady(check)
    // The hooks in the order the server's table gives them (/readyz lists them so), with
    // autoregister-completion right after the autoregistration it waits for.
    let autoregister: HealthCheck | undefined = checks.autoregisterCompletion
    for (const [name, run] of Object.entries(checks.hooks)) {
      registry.addBootSequenceCheck(hooks.add(name, run))
      if (name === AUTOREGISTRATION_HOOK && autoregister) {
        registry.addBootSequenceCheck(autoregister)
        autoregister = undefined
      }
    }
    if (autoregister) registry.addBootSequenceCheck(autoregister)
    registry.addReadyOnly(shutdownCheck(options.signals))
  }

  return {
    ...handlers,
    registry,
    hooks,
    install,
    startPostStartHooks: () => hooks.startAll(),
  }
}
