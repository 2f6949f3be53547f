/**
 * The last result of every check run, per endpoint word, for a metrics module to read
 * (the reference's `kubernetes_healthcheck{name,type}` gauge and
 * `kubernetes_healthchecks_total{name,status,type}` counter come from the same data).
 */
import type { Clock, HealthWord } from './registry.js'

export interface CheckResult {
  readonly word: HealthWord
  readonly name: string
  readonly ok: boolean
  /** The failure text when `ok` is false. */
  readonly error?: string
  readonly latencyMs: number
  /** When the run finished (clock milliseconds). */
  readonly at: number
  /** Runs so far, by outcome. */
  readonly successes: number
  readonly failures: number
}

export class CheckResults {
  private readonly byKey = new Map<string, CheckResult>()

  constructor(
    private readonly clock: Clock = Date.now,
    /** Told of every result as it is recorded (the server feeds its metrics from it). */
    private readonly onRecord?: (word: HealthWord, name: string, ok: boolean) => void,
  ) {}

  record(word: HealthWord, name: string, error: string | undefined, latencyMs: number): void {
    const key = `${word}\u0000${name}`
    const before = this.byKey.get(key)
    const ok = error === undefined
    this.onRecord?.(word, name, ok)
    this.byKey.set(key, {
      word,
      name,
      ok,
      ...(ok ? {} : { error }),
      latencyMs,
      at: this.clock(),
      successes: (before?.successes ?? 0) + (ok ? 1 : 0),
      failures: (before?.failures ?? 0) + (ok ? 0 : 1),
    })
  }

  /** One entry per (word, check) that has run, in first-run order. */
  lastResults(): CheckResult[] {
    return [...this.byKey.values()]
  }
}
