/**
 * The work queue of a kube-controller-manager controller: keys (`namespace/name`) marked dirty
 * are synced one at a time, a failed key again after the retry timer's back-off, and a key can
 * be asked for again at a later time of the controllers' clock (the reference's AddAfter). The
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
    let failed: unknown
    while (this.dirty.size > 0) {
      const key = this.dirty.values().next().value!
      this.dirty.delete(key)
      try {
        await this.sync(key)
      } catch (err) {
        failed = err
        // Synced again after the back-off, with whatever else is dirty then.
        this.due.set(key, this.clock.now())
      }
    }
    if (failed) throw failed
  }
}

export const keyOf = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? ''}/${name ?? ''}`

export function splitKey(key: string): [string, string] {
  const i = key.indexOf('/')
  return [key.slice(0, i), key.slice(i + 1)]
}
