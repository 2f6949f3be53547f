/**
 * The store as the server holds it: opened after the server listens (etcd may come up later),
 * so that the probes report it missing until then.
 */
import type { ServerConfig } from '../config.js'
import { ClientNotEstablishedError, NOT_ESTABLISHED } from '../health/index.js'
import type { Logger } from '../log/logger.js'
import type { NamedHealthCheck, Store } from '../store/types.js'

/** A store that is opened after the server listens, so that probes can report it missing. */
export class PendingStore {
  store: Store | undefined
  lastError = NOT_ESTABLISHED
  readonly ready: Promise<Store>
  private resolveReady!: (s: Store) => void

  constructor() {
    this.ready = new Promise((resolve) => (this.resolveReady = resolve))
  }

  set(store: Store): void {
    this.store = store
    this.resolveReady(store)
  }

  /** Probes forwarding to the store's own, failing with the last error until it is open. */
  probes(names: { health: string[]; ready: string[] }): { healthChecks(): NamedHealthCheck[]; readyChecks(): NamedHealthCheck[] } {
    const forward = (kind: 'healthChecks' | 'readyChecks', name: string, i: number): NamedHealthCheck => ({
      name,
      check: async (timeoutMs?: number) => {
        if (!this.store) throw new ClientNotEstablishedError(this.lastError)
        const check = this.store[kind]()[i]
        if (!check) throw new Error(`no probe ${name}`)
        await check.check(timeoutMs)
      },
    })
    return {
      healthChecks: () => names.health.map((n, i) => forward('healthChecks', n, i)),
      readyChecks: () => names.ready.map((n, i) => forward('readyChecks', n, i)),
    }
  }
}

/** Distinct override server sets, in order: each gets a `store-override-<i>` check. */
function overrideSetCount(overrides: readonly string[]): number {
  return new Set(overrides.map((o) => o.split('#')[1] ?? '')).size
}

/** The names of the store's probes: `store` and one `store-override-<i>` per override server set. */
export function storeProbeNames(config: ServerConfig): { health: string[]; ready: string[] } {
  const overrides = overrideSetCount(config.storeServersOverrides)
  const names = (suffix: string) => ['store', ...Array.from({ length: overrides }, (_, i) => `store-override-${i}`)].map((n) => n + suffix)
  return { health: names(''), ready: names('-readiness') }
}

/** etcd, opened in the background (it may come up later): a store that never does ends the process. */
export function connectInBackground(pending: PendingStore, open: () => Promise<Store>, config: ServerConfig, log: Logger): void {
  open().then(
    (store) => {
      pending.set(store)
      log.info(`connected to the store at ${config.storeServers.join(',')}`)
    },
    (err: Error) => {
      pending.lastError = err.message
      log.error(`the store did not become available: ${err.message}`)
      process.exit(1)
    },
  )
}
