/**
 * The token bucket behind each event rate limit (client-go's flowcontrol
 * NewTokenBucketRateLimiterWithClock over golang.org/x/time/rate): `burst` tokens at first, one
 * taken per accepted request, refilled at `qps` a second up to `burst`. A refused request takes
 * nothing. The clock is injected so that tests step it.
 */

/** Milliseconds, as Date.now gives them. */
export type Clock = () => number

export const realClock: Clock = () => Date.now()

export class TokenBucket {
  private tokens = 0
  /** When tokens were last taken; never at first, so the first request finds the bucket full. */
  private last = Number.NEGATIVE_INFINITY

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock,
  ) {}

  /** rate.Limiter.AllowN(now, 1): takes a token when one is there. */
  tryAccept(): boolean {
    const now = this.clock()
    const last = now < this.last ? now : this.last
    const refilled = this.qps > 0 ? ((now - last) / 1000) * this.qps : 0
    const tokens = Math.min(this.burst, this.tokens + refilled) - 1
    // The reference waits for the missing fraction of a token, truncated to nanoseconds: a wait
    // that truncates to nothing is no wait.
    const waitNs = tokens >= 0 ? 0 : this.qps > 0 ? Math.trunc((1e9 * -tokens) / this.qps) : Number.POSITIVE_INFINITY
    const ok = this.burst >= 1 && waitNs <= 0
    if (ok) {
      this.last = now
      this.tokens = tokens
    }
    return ok
  }
}
