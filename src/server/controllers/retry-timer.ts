/**
 * One deferred run of a controller's work at a time, with a back-off after failures: the
 * controllers survive store errors by running again later. Timers never keep the process up.
 */
export class RetryTimer {
  private timer: NodeJS.Timeout | undefined
  private dueAt = Infinity
  private running = false
  /** A schedule() while running: the delay it asked for. */
  private again: number | undefined
  private failures = 0
  private stopped = false

  constructor(
    private readonly work: () => Promise<void>,
    private readonly onError: (err: unknown) => void,
    private readonly maxBackoffMs = 30_000,
  ) {}

  /** Runs the work in `delayMs` (sooner if already due sooner). */
  schedule(delayMs = 0): void {
    if (this.stopped) return
    if (this.running) {
      this.again = Math.min(this.again ?? Infinity, delayMs)
      return
    }
    const at = Date.now() + delayMs
    if (this.timer && at >= this.dueAt) return
    if (this.timer) clearTimeout(this.timer)
    this.dueAt = at
    this.timer = setTimeout(() => void this.run(), delayMs)
    this.timer.unref()
  }

  private async run(): Promise<void> {
    this.timer = undefined
    this.dueAt = Infinity
    this.running = true
    this.again = undefined
    try {
      await this.work()
      this.failures = 0
    } catch (err) {
      this.failures++
      this.onError(err)
      this.running = false
      this.schedule(Math.min(this.maxBackoffMs, 250 * 2 ** Math.min(this.failures, 10)))
      return
    }
    this.running = false
    if (this.again !== undefined) this.schedule(this.again)
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
  }
}
