/**
 * The batch throttle of the buffered backend (client-go's flowcontrol
 * NewTokenBucketRateLimiter and its Accept): `burst` batches may go at once, then `qps` a
 * second; a batch over the rate waits for its token instead of being refused, so the events
 * wait in the buffer (which drops what it cannot hold) and never in a request.
 */
import { setTimeout as sleep } from 'node:timers/promises'

export class Throttle {
  private tokens: number
  private last: number

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.tokens = burst
    this.last = clock()
  }

  /** Takes a token, waiting as long as it takes to come (rate.Limiter.Wait). */
  async accept(): Promise<void> {
    const now = this.clock()
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps)
    this.last = now
    this.tokens -= 1
    // A negative balance is the time this taker waits; later takers queue behind it.
    if (this.tokens < 0) await sleep((-this.tokens / this.qps) * 1000)
  }
}
