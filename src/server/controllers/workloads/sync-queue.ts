/**
 * The work queue of a workload controller, as client-go's rate-limited delaying queue serves the
 * reference's controllers: keys (`namespace/name`) are synced one at a time, a key added while
 * queued is synced once, a key can be added after a delay (minReadySeconds, progress
 * deadlines), and a failed sync is retried with a growing back-off. Timers never keep the
 * process up.
 */
export class SyncQueue {
  private readonly due = new Map<string, number>()
  private readonly failures = new Map<string, number>()
  private timer: NodeJS.Timeout | undefined
  private timerAt = Infinity
  private running = false
  private stopped = false

  constructor(
    private readonly sync: (key: string) => Promise<void>,
    private readonly onError: (key: string, err: unknown) => void,
  ) {}

  add(key: string, delayMs = 0): void {
    if (this.stopped) return
    const at = Date.now() + delayMs
    const queued = this.due.get(key)
    if (queued !== undefined && queued <= at) return
    this.due.set(key, at)
    this.wake()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.due.clear()
  }

  private wake(): void {
    if (this.running || this.stopped || this.due.size === 0) return
    const next = Math.min(...this.due.values())
    if (this.timer && this.timerAt <= next) return
    if (this.timer) clearTimeout(this.timer)
    this.timerAt = next
    this.timer = setTimeout(() => void this.drain(), Math.max(0, next - Date.now()))
    this.timer.unref()
  }

  private async drain(): Promise<void> {
    this.timer = undefined
    this.timerAt = Infinity
    this.running = true
    try {
      for (;;) {
        const now = Date.now()
        const key = [...this.due].find(([, at]) => at <= now)?.[0]
        if (key === undefined || this.stopped) break
        this.due.delete(key)
        try {
          await this.sync(key)
          this.failures.delete(key)
        } catch (err) {
          const failures = (this.failures.get(key) ?? 0) + 1
          this.failures.set(key, failures)
          this.onError(key, err)
          // client-go's per-item exponential back-off (5 ms doubling), capped lower here.
          this.add(key, Math.min(30_000, 5 * 2 ** Math.min(failures, 13)))
        }
      }
    } finally {
      this.running = false
      this.wake()
    }
  }
}

export function keyOf(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`
}

export function splitKey(key: string): [string, string] {
  const at = key.indexOf('/')
  return [key.slice(0, at), key.slice(at + 1)]
}
