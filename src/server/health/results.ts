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

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

export class CheckResults {
  private readonly byWord = new Map<HealthWord, Map<string, Mutable<CheckResult>>>()
  private readonly order: Array<Mutable<CheckResult>> = []
  /** recordPassed's entries for the list of checks it was last given, per word. */
  private readonly passedEntries = new Map<HealthWord, { checks: readonly unknown[]; entries: Array<Mutable<CheckResult>> }>()

  constructor(
    readonly clock: Clock = Date.now,
    /** Told of every result as it is recorded (the server feeds its metrics from it). */
    private readonly onRecord?: (word: HealthWord, name: string, ok: boolean) => void,
  ) {}

  /**
   * Called for every check a probe runs, so it updates in place rather than allocating.
   * `at`: when the run finished, if the caller has read the clock already (a probe's checks
   * that answer at once share one reading).
   */
  record(word: HealthWord, name: string, error: string | undefined, latencyMs: number, at: number = this.clock()): void {
    this.update(this.entryOf(word, name), error, latencyMs, at)
  }

  /** The (word, check) entry, made on its first result. */
  private entryOf(word: HealthWord, name: string): Mutable<CheckResult> {
    let byName = this.byWord.get(word)
    if (!byName) this.byWord.set(word, (byName = new Map()))
    let entry = byName.get(name)
    if (!entry) {
      entry = { word, name, ok: true, latencyMs: 0, at: 0, successes: 0, failures: 0 }
      byName.set(name, entry)
      this.order.push(entry)
    }
    return entry
  }

  private update(entry: Mutable<CheckResult>, error: string | undefined, latencyMs: number, at: number): void {
    const ok = error === undefined
    this.onRecord?.(entry.word, entry.name, ok)
    entry.ok = ok
    entry.error = error
    entry.latencyMs = latencyMs
    entry.at = at
    if (ok) entry.successes++
    else entry.failures++
  }

  /**
   * record(word, name, undefined, 0, at) for each of `checks` (all passed at once): a plain
   * probe's case. The word's entries are looked up by name once per list of checks (checksFor
   * keeps one list until a check is added), not twice per check per probe.
   */
  recordPassed(word: HealthWord, checks: readonly { readonly name: string }[], at: number): void {
    let memo = this.passedEntries.get(word)
    if (!memo || memo.checks !== checks) this.passedEntries.set(word, (memo = { checks, entries: checks.map((c) => this.entryOf(word, c.name)) }))
    const entries = memo.entries
    for (let i = 0; i < entries.length; i++) this.update(entries[i]!, undefined, 0, at)
  }

  /** One entry per (word, check) that has run, in first-run order. */
  lastResults(): CheckResult[] {
    return this.order.map((e) => (e.ok ? { word: e.word, name: e.name, ok: true, latencyMs: e.latencyMs, at: e.at, successes: e.successes, failures: e.failures } : { ...e }))
  }
}
