/**
 * The request timeouts, on one timer rather than one per request.
 *
 * Almost every request has the same timeout (--request-timeout), so their deadlines arrive in
 * the order they are set: a queue in arrival order is then sorted by deadline, and only its
 * head needs a timer. A request that ends in time only marks its entry cancelled (the queue
 * drops cancelled entries as its head passes them, and compacts itself when most entries are
 * cancelled, so memory follows the requests in flight). A deadline earlier than the queue's
 * last one (a shorter `timeout` parameter) gets a timer of its own, as before.
 */

export interface Deadline {
  /** When to fire (ms since the epoch, as Date.now()). */
  readonly at: number
  fire: (() => void) | undefined
}

export class DeadlineQueue {
  private entries: Deadline[] = []
  private head = 0
  private cancelled = 0
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly now: () => number = Date.now) {}

  /** Calls `fire` at `at` unless cancelled first; returns what `cancel` takes. */
  add(at: number, fire: () => void): Deadline {
    const entry: Deadline = { at, fire }
    const last = this.entries.length > this.head ? this.entries[this.entries.length - 1]! : undefined
    if (last !== undefined && at < last.at) {
      // Out of order: a timer of its own.
      const timer = setTimeout(() => entry.fire?.(), Math.max(0, at - this.now()))
      entry.fire = () => {
        entry.fire = undefined
        fire()
      }
      return Object.assign(entry, { timer })
    }
    this.entries.push(entry)
    if (this.timer === undefined) this.arm(at)
    return entry
  }

  cancel(entry: Deadline): void {
    if (entry.fire === undefined) return
    entry.fire = undefined
    const own = (entry as Deadline & { timer?: NodeJS.Timeout }).timer
    if (own !== undefined) {
      clearTimeout(own)
      return
    }
    this.cancelled++
    const live = this.entries.length - this.head
    // Mostly cancelled: keep only the live entries (amortised over the cancellations).
    if (this.cancelled > 1024 && this.cancelled * 2 > live) this.compact()
  }

  /** Deadlines waiting (cancelled ones excluded): for tests. */
  get size(): number {
    let n = 0
    for (let i = this.head; i < this.entries.length; i++) if (this.entries[i]!.fire !== undefined) n++
    return n
  }

  private compact(): void {
    this.entries = this.entries.slice(this.head).filter((e) => e.fire !== undefined)
    this.head = 0
    this.cancelled = 0
    if (this.entries.length === 0) this.disarm()
  }

  private arm(at: number): void {
    this.timer = setTimeout(this.expire, Math.max(0, at - this.now()))
    // The queue alone does not keep the process alive (the requests' sockets do).
    this.timer.unref()
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }

  private readonly expire = (): void => {
    this.timer = undefined
    const now = this.now()
    while (this.head < this.entries.length) {
      const entry = this.entries[this.head]!
      if (entry.fire !== undefined && entry.at > now) break
      this.head++
      const fire = entry.fire
      if (fire === undefined) {
        this.cancelled--
        continue
      }
      entry.fire = undefined
      try {
        fire()
      } catch (err) {
        // Thrown where a timer's callback would have thrown it, once the queue is consistent again.
        queueMicrotask(() => {
          throw err
        })
      }
    }
    if (this.head === this.entries.length) {
      this.entries = []
      this.head = 0
      this.cancelled = 0
      return
    }
    // Drop the passed head of the array now and then, so it does not grow without end.
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head)
      this.head = 0
    }
    this.arm(this.entries[this.head]!.at)
  }
}
