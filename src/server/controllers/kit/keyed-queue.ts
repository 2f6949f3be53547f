/**
 * The work queue of a kube-controller-manager controller: keys (`namespace/name`) marked dirty
 * are synced one at a time, a failed key again after its own back-off (real time, 100 ms
 * doubling up to 30 s, as the reference's rate-limited queue), and a key can be asked for again
 * at a later time of the controllers' clock (the reference's AddAfter). The
 * clock may be a fake one that a test or `--clock` moves: due keys are found by looking at the
 * clock on a short real interval rather than by sleeping until the due time.
 */
import { type Clock, SYSTEM_CLOCK } from '../clock.js'
import { RetryTimer } from '../retry-timer.js'

export interface KeyedQueueOptions {
  readonly clock?: Clock
  /** How often (real milliseconds) the clock is looked at for due keys, and `onTick` runs. */
  readonly recheckMs?: number
  readonly onError?: (err: unknown) => void
  /** Called on each recheck (a controller that must look at every object on time, as the CronJob one). */
  readonly onTick?: () => void
}

export class KeyedQueue {
  private readonly dirty = new Set<string>()
  /** Keys asked for later, by the clock time they are due. */
  private readonly due = new Map<string, number>()
  private readonly timer: RetryTimer
  /** Failures in a row of each key. */
  private readonly failures = new Map<string, number>()
  private readonly retries = new Set<NodeJS.Timeout>()
  private interval: NodeJS.Timeout | undefined
  private readonly clock: Clock

  constructor(
    private readonly sync: (key: string) => Promise<void>,
    private readonly options: KeyedQueueOptions = {},
  ) {
    this.clock = options.clock ?? SYSTEM_CLOCK
    this.timer = new RetryTimer(() => this.drain(), (err) => options.onError?.(err), 5000)
  }

  start(): void {
    this.interval = setInterval(() => this.recheck(), this.options.recheckMs ?? 1000)
    this.interval.unref()
  }

  stop(): void {
    if (this.interval) clearInterval(this.interval)
    this.interval = undefined
    this.timer.stop()
    for (const retry of this.retries) clearTimeout(retry)
    this.retries.clear()
  }

  add(key: string): void {
    this.dirty.add(key)
    this.timer.schedule(0)
  }

  /** The key again once the clock has moved `ms` on (the earliest of several asks wins). */
  addAfter(key: string, ms: number): void {
    if (ms <= 0) return this.add(key)
    const at = this.clock.now() + ms
    const current = this.due.get(key)
    if (current === undefined || at < current) this.due.set(key, at)
  }

  private recheck(): void {
    const now = this.clock.now()
    for (const [key, at] of this.due) {
      if (at <= now) {
        this.due.delete(key)
        this.add(key)
      }
    }
    this.options.onTick?.()
  }

  private async drain(): Promise<void> {
    while (this.dirty.size > 0) {
      const key = this.dirty.values().next().value!
      this.dirty.delete(key)
      try {
        await this.sync(key)
        this.failures.delete(key)
      } catch (err) {
        this.options.onError?.(err)
        this.retry(key)
      }
    }
  }

  private retry(key: string): void {
    const failures = (this.failures.get(key) ?? 0) + 1
    this.failures.set(key, failures)
    const retry = setTimeout(() => {
      this.retries.delete(retry)
      this.add(key)
    }, Math.min(30_000, 100 * 2 ** Math.min(failures - 1, 9)))
    retry.unref()
    this.retries.add(retry)
  }
}

export const keyOf = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? ''}/${name ?? ''}`

export function splitKey(key: string): [string, string] {
  const i = key.indexOf('/')
  return [key.slice(0, i), key.slice(i + 1)]
}
