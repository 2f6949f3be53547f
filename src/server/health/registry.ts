/**
 * The three check lists (healthz, livez, readyz), each in registration order, and the
 * reference's ways of adding to them:
 *
 * - `addToAll`: all three lists as is (ping, log, store; the store check with a readyz
 *   variant of its own).
 * - `addBootSequenceCheck`: healthz and readyz as is; livez through the grace-period
 *   wrapper (post-start hooks, autoregister-completion).
 * - `addReadyOnly`: readyz only, after every other readyz check whenever the others were
 *   added (the reference adds `shutdown` when the server prepares to run, so it is last).
 */
import type { HealthCheck } from './check.js'

export type HealthWord = 'healthz' | 'livez' | 'readyz'
export const HEALTH_WORDS: readonly HealthWord[] = ['healthz', 'livez', 'readyz']

/** Milliseconds since the epoch. */
export type Clock = () => number

interface HealthRegistryOptions {
  /** `--livez-grace-period` in milliseconds; 0 or less: livez runs boot-sequence checks at once. */
  livezGracePeriodMs?: number
  clock?: Clock
}

/**
 * The livez grace-period rule: `startCheck = registration time + grace`; strictly after
 * it the real check runs, until then the check passes without running.
 */
export function delayedLivezCheck(check: HealthCheck, clock: Clock, graceMs: number): HealthCheck {
  const startCheck = clock() + graceMs
  return {
    name: check.name,
    ...(check.group === undefined ? {} : { group: check.group }),
    check: () => (clock() > startCheck ? check.check() : Promise.resolve()),
  }
}

export class HealthRegistry {
  private readonly lists: Record<HealthWord, HealthCheck[]> = { healthz: [], livez: [], readyz: [] }
  /** Ready-only checks: always listed after every other readyz check. */
  private readonly readyTail: HealthCheck[] = []
  /** checksFor's lists, made once per change of the lists. */
  private views: Partial<Record<HealthWord, readonly HealthCheck[]>> = {}
  private readonly clock: Clock
  private readonly graceMs: number

  constructor(options: HealthRegistryOptions = {}) {
    this.clock = options.clock ?? Date.now
    this.graceMs = options.livezGracePeriodMs ?? 0
  }

  /**
   * Adds `check` to all three lists with no delay. `readyzVariant` (same name) takes its
   * place on /readyz: the store check probes with the ready-check timeout there.
   */
  addToAll(check: HealthCheck, readyzVariant: HealthCheck = check): void {
    if (readyzVariant.name !== check.name) {
      throw new Error(`readyz variant "${readyzVariant.name}" must be named like "${check.name}"`)
    }
    this.refuseDuplicate(check, HEALTH_WORDS)
    this.lists.healthz.push(check)
    this.lists.livez.push(check)
    this.lists.readyz.push(readyzVariant)
  }

  addBootSequenceCheck(check: HealthCheck): void {
    this.refuseDuplicate(check, HEALTH_WORDS)
    this.lists.healthz.push(check)
    // Without a grace period the reference's wrapper would still pass within the
    // registration instant; no wrapper at all is what "grace 0" means.
    this.lists.livez.push(this.graceMs > 0 ? delayedLivezCheck(check, this.clock, this.graceMs) : check)
    this.lists.readyz.push(check)
  }

  /** /healthz and /readyz, not /livez (the reference's KMS checks). */
  addHealthAndReady(check: HealthCheck): void {
    this.refuseDuplicate(check, ['healthz', 'readyz'])
    this.lists.healthz.push(check)
    this.lists.readyz.push(check)
  }

  addReadyOnly(check: HealthCheck): void {
    this.refuseDuplicate(check, ['readyz'])
    this.readyTail.push(check)
  }

  /**
   * The word's checks in report order: a frozen list, the same one until a check is added (every
   * probe asks for it; a copy per probe was the handler's largest allocation).
   */
  checksFor(word: HealthWord): readonly HealthCheck[] {
    return (this.views[word] ??= Object.freeze(this.listOf(word)))
  }

  private listOf(word: HealthWord): HealthCheck[] {
    return word === 'readyz' ? [...this.lists.readyz, ...this.readyTail] : [...this.lists[word]]
  }

  private refuseDuplicate(check: HealthCheck, words: readonly HealthWord[]): void {
    // Every add starts here: the lists are about to change.
    this.views = {}
    for (const word of words) {
      if (this.listOf(word).some((c) => c.name === check.name)) {
        throw new Error(`health check "${check.name}" is already registered on /${word}`)
      }
    }
  }
}
