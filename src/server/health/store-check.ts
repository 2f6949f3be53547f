/**
 * The `store` check (the reference's `etcd` check), rate limited the way the reference
 * limits it, whatever the store's own probe does:
 *
 * - A token bucket of one probe per timeout/2, burst 1. A call that gets the token sends a
 *   real probe (bounded by the timeout) and returns its own result.
 * - A call without a token does not probe: it returns the stored result of the most
 *   recently SENT probe that has COMPLETED. Results are stamped in send order, so an older
 *   probe finishing late never overwrites a newer result.
 * - Before any probe has completed the stored result is
 *   `store client connection not yet established`.
 * - A failed probe reads `error getting data from store: <cause>`.
 * - After InFlightRequestsDrained every call fails with `server is shutting down`.
 *
 * /healthz and /livez share one instance (health-check timeout); /readyz has its own
 * (ready-check timeout), as the spec asks for a single `store` check per report.
 */
import type { NamedHealthCheck } from '../store/types.js'
import { errorText, type HealthCheck } from './check.js'
import type { Clock } from './registry.js'

/** One real round-trip to the backend, bounded by `timeoutMs`. */
export type StoreProbe = (timeoutMs: number) => Promise<void>

export const NOT_ESTABLISHED = 'store client connection not yet established'
export const SHUTTING_DOWN = 'server is shutting down'
export const STORE_GROUP = 'store'

export interface StoreCheckOptions {
  /** `store`, or `store-override-<i>`. */
  name: string
  /** Default `store`. */
  group?: string
  probe: StoreProbe
  timeoutMs: number
  clock?: Clock
  /** The InFlightRequestsDrained signal. */
  drained?: { readonly signalled: boolean }
}

/** Go's rate.Limiter with burst 1: one token, refilled at one per `intervalMs`. */
export class TokenBucket {
  private tokens = 1
  private last: number | undefined

  constructor(
    private readonly intervalMs: number,
    private readonly clock: Clock,
  ) {}

  allow(): boolean {
    if (this.intervalMs <= 0) return true
    const now = this.clock()
    if (this.last !== undefined) this.tokens = Math.min(1, this.tokens + Math.max(0, now - this.last) / this.intervalMs)
    this.last = now
    if (this.tokens < 1) return false
    this.tokens -= 1
    return true
  }

  /** Gives back the token just taken (the caller will take it again at once). */
  refund(): void {
    if (this.intervalMs > 0) this.tokens += 1
  }
}

function withTimeout(work: Promise<void>, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('context deadline exceeded')), Math.max(0, timeoutMs))
    timer.unref?.()
    work.then(
      () => {
        clearTimeout(timer)
        resolve()
      },
      (err: unknown) => {
        clearTimeout(timer)
        reject(err instanceof Error ? err : new Error(String(err)))
      },
    )
  })
}

/**
 * Thrown by a probe whose store client does not exist yet: its message (the last attempt's
 * error, or NOT_ESTABLISHED) is reported as is, as the reference reports client construction.
 */
export class ClientNotEstablishedError extends Error {}

export function storeCheck(options: StoreCheckOptions): HealthCheck {
  const clock = options.clock ?? Date.now
  const bucket = new TokenBucket(options.timeoutMs / 2, clock)
  let sent = 0
  // `seq` is the send order of the probe whose result this is; 0: none completed yet.
  let last: { seq: number; error: string | undefined } = { seq: 0, error: NOT_ESTABLISHED }
  const record = (seq: number, error: string | undefined): void => {
    if (seq > last.seq) last = { seq, error }
  }

  return {
    name: options.name,
    group: options.group ?? STORE_GROUP,
    // Without a token the answer is the stored one: no need to wait.
    immediate() {
      if (options.drained?.signalled) return SHUTTING_DOWN
      if (!bucket.allow()) return last.error ?? null
      bucket.refund()
      return undefined
    },
    async check() {
      if (options.drained?.signalled) throw new Error(SHUTTING_DOWN)
      if (!bucket.allow()) {
        if (last.error !== undefined) throw new Error(last.error)
        return
      }
      const seq = ++sent
      try {
        await withTimeout(
          Promise.resolve().then(() => options.probe(options.timeoutMs)),
          options.timeoutMs,
        )
      } catch (err) {
        const text = err instanceof ClientNotEstablishedError ? err.message : `error getting data from store: ${errorText(err)}`
        record(seq, text)
        throw new Error(text)
      }
      record(seq, undefined)
    },
  }
}

/** What a store offers: one liveness and one readiness probe per backend, main first. */
export interface StoreProbes {
  healthChecks(): readonly NamedHealthCheck[]
  readyChecks?(): readonly NamedHealthCheck[]
}

export interface StoreChecksOptions {
  probes: StoreProbes
  healthTimeoutMs: number
  readyTimeoutMs: number
  clock?: Clock
  drained?: { readonly signalled: boolean }
}

/**
 * The report's store checks: `store` and one `store-override-<i>` per override server set,
 * all in group `store`. `health` goes to /healthz and /livez, `ready` to /readyz; the
 * i-th ready check probes the store's i-th readiness probe (or its liveness probe when it
 * has none) under the same name.
 */
export function storeChecks(options: StoreChecksOptions): { health: HealthCheck[]; ready: HealthCheck[] } {
  const liveness = options.probes.healthChecks()
  const readiness = options.probes.readyChecks?.() ?? []
  const common = {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.drained ? { drained: options.drained } : {}),
  }
  const health: HealthCheck[] = []
  const ready: HealthCheck[] = []
  liveness.forEach((probe, i) => {
    const name = probe.name.replace(/-readiness$/, '')
    const readyProbe = readiness[i] ?? probe
    health.push(storeCheck({ name, probe: (t) => probe.check(t), timeoutMs: options.healthTimeoutMs, ...common }))
    ready.push(storeCheck({ name, probe: (t) => readyProbe.check(t), timeoutMs: options.readyTimeoutMs, ...common }))
  })
  return { health, ready }
}
