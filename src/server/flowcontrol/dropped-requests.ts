/**
 * The Retry-After a refused request is told, per priority level, as the reference's
 * dropped-requests tracker: it starts at 1 s, doubles (up to 32 s) when at least three times
 * that many requests were dropped within the last Retry-After seconds, and shrinks by one
 * second when fewer than that many were.
 */
const MAX_RETRY_AFTER = 32

class DroppedRequestsStats {
  private history: Array<{ unix: number; requests: number }> = []
  private currentUnix = 0
  private currentCount = 0
  retryAfter = 1
  private retryAfterUpdateUnix = 0

  record(unix: number): void {
    if (this.currentUnix === unix) {
      this.currentCount++
      return
    }
    this.updateHistory(this.currentUnix, this.currentCount)
    this.currentUnix = unix
    this.currentCount = 1
    this.updateRetryAfter(unix)
  }

  private updateHistory(unix: number, count: number): void {
    this.history.push({ unix, requests: count })
    const maxHistory = Math.min(2 * this.retryAfter, MAX_RETRY_AFTER)
    let start = 0
    while (start < this.history.length && unix - this.history[start]!.unix > maxHistory) start++
    if (start > 0) this.history = this.history.slice(start)
  }

  private updateRetryAfter(unix: number): void {
    let dropped = 0
    for (let i = this.history.length - 1; i >= 0; i--) {
      const h = this.history[i]!
      if (unix - h.unix > this.retryAfter) break
      if (h.unix < unix) dropped += h.requests
    }
    if (unix - this.retryAfterUpdateUnix >= this.retryAfter && dropped >= 3 * this.retryAfter) {
      this.retryAfter = Math.min(this.retryAfter * 2, MAX_RETRY_AFTER)
      this.retryAfterUpdateUnix = unix
      return
    }
    if (dropped < this.retryAfter && this.retryAfter > 1) this.retryAfter--
  }
}

export class DroppedRequestsTracker {
  private readonly levels = new Map<string, DroppedRequestsStats>()

  constructor(private readonly now: () => number = Date.now) {}

  recordDroppedRequest(level: string): void {
    let stats = this.levels.get(level)
    if (!stats) this.levels.set(level, (stats = new DroppedRequestsStats()))
    stats.record(Math.floor(this.now() / 1000))
  }

  retryAfter(level: string): number {
    return this.levels.get(level)?.retryAfter ?? 1
  }
}
