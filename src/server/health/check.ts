/**
 * A health check as the reference's healthz package knows it: a path-safe name, an
 * optional group (for `exclude=<group>`), and a probe that resolves when healthy and
 * rejects with an Error whose message is the failure text otherwise.
 */
import type { LifecycleSignals } from '../lifecycle/signals.js'

export interface HealthCheck {
  /** Used in report lines (`[+]<name> ok`) and individual paths (`/<word>/<name>`). */
  readonly name: string
  /** Checks of one group are all left out by `exclude=<group>` (the reference's grouped checks). */
  readonly group?: string
  /** Resolves when healthy; rejects with an Error carrying the failure text. */
  check(): Promise<void>
  /**
   * The answer without waiting, when the check has it at once: null when healthy, the failure
   * text otherwise; undefined when `check()` must run. Probes run a score of checks per
   * request, and most of them (hooks that finished, a rate-limited store probe) know already.
   */
  immediate?(): string | null | undefined
}

/** The error text of whatever a check rejected with. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** `ping`: always passes. */
export const ping: HealthCheck = Object.freeze({
  name: 'ping',
  check: (): Promise<void> => Promise.resolve(),
  immediate: () => null,
})

/** `shutdown` (readyz only, last): passes until ShutdownInitiated, then fails for good. */
export function shutdownCheck(signals: Pick<LifecycleSignals, 'shutdownInitiated'>): HealthCheck {
  return {
    name: 'shutdown',
    check: async () => {
      if (signals.shutdownInitiated.signalled) throw new Error('process is shutting down')
    },
    immediate: () => (signals.shutdownInitiated.signalled ? 'process is shutting down' : null),
  }
}
