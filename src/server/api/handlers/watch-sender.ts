/**
 * Delivers a watch's events to its client at the client's pace, as the reference's
 * cacheWatcher does: events wait in a small buffer while the connection (HTTP/1.1 socket or
 * HTTP/2 stream) has no room, and a watcher whose buffer stays full is closed rather than
 * let grow: "Forcing <resource> watcher close due to unresponsiveness". Its client sees the
 * stream end and watches again from the last resourceVersion it saw (or lists again when
 * that is too old), which is what client-go's reflector does.
 *
 * The initial events of a watch (its ADDED for the current state) are not counted against
 * the buffer: like the reference's processInterval, their delivery simply waits for the
 * client, and the watch takes no further events until it has taken them.
 *
 * Frames are not written as they come: every sender with frames waiting is flushed once at
 * the end of the turn of the event loop (one `setImmediate` for all of them), so a watcher's
 * events of one turn leave as one write (watch-connection.ts). A busy server thereby sends
 * more events per write, not more writes. Under load a watcher's events of different turns
 * are coalesced too: a watcher flushed less than `WATCHER_FLUSH_WINDOW_MS` ago is flushed
 * again only once that window has passed (one shared timer for all such senders), while an
 * idle watcher still gets each event at once, as the reference's watcher, whose writer
 * flushes whenever its channel is empty. While the event loop itself is busy the window is
 * longer (`WATCHER_BUSY_FLUSH_WINDOW_MS`): fewer writes is then what keeps events from queueing.
 */
import type { Response } from '../../http/types.js'
import { responseGone } from './list-stream.js'
import { WatchConnection } from './watch-connection.js'

/**
 * Events a watcher may have waiting: the reference's largest watch channel for a watch
 * without an index (maxWatchChanSizeWithoutIndex).
 */
export const WATCHER_BUFFER_EVENTS = 100
/**
 * Bytes a watcher's connection may hold unsent before its events wait here. Node's stream
 * reports "full" at 16 KiB, about 30 small events, where the reference's writer only blocks
 * once the kernel's socket buffer is full: a client that is a moment late (a busy machine, a
 * burst of 100 events) would otherwise be closed as unresponsive long before the reference
 * would close it. Bounded, so a thousand stalled watchers hold at most 64 MiB here.
 */
export const WATCHER_SOCKET_ALLOWANCE_BYTES = 64 * 1024
/** How long a full buffer may wait for the client before the watcher is closed (the reference's dispatch budget). */
export const WATCHER_FULL_BUDGET_MS = 100

/**
 * The shortest time between two writes to one watcher while events keep coming. Each write
 * is one TLS record and one syscall, the largest share of a delivery's cost (38 % of the
 * server's profile with 1,000 watchers and 100 events/s, where every event came in its own
 * turn): with this window a watcher that gets an event every 10 ms takes two or three per
 * write. It adds at most this much to an event's delivery, and only to a watcher that was
 * written to this recently; 25 ms keeps the delivery p99 well under the 100 ms goal and the
 * dispatch budget (`WATCHER_FULL_BUDGET_MS`), while longer windows saved little more CPU
 * (docs/performance-history.md, "Fifth round: watch fan-out").
 */
export const WATCHER_FLUSH_WINDOW_MS = flushWindowFromEnv(process.env.CLIENT_WATCH_FLUSH_WINDOW_MS) ?? 25

/**
 * The window while the server's event loop is busy (busy at least `BUSY_UTILIZATION` of the
 * last ~100 ms). A fan-out that keeps the loop busy is one whose writes are most of its cost
 * (about 21 µs of CPU per HTTP/1.1 write, 6-9 µs per HTTP/2 stream write, against about 2 µs
 * for the rest of a delivery): with 100 events a second a 25 ms window makes a write per 2-3
 * events, 50 ms one per 5, which takes the CPU that would otherwise queue every event and
 * create behind the writes (docs/performance-history.md, "Seventh round: watch delivery"). An idle
 * server keeps the short window, so an event's added wait stays 25 ms when nothing is behind
 * and is at most 50 ms, half the goal's 100 ms and of the dispatch budget, when the loop is.
 */
export const WATCHER_BUSY_FLUSH_WINDOW_MS = flushWindowFromEnv(process.env.CLIENT_WATCH_BUSY_FLUSH_WINDOW_MS) ?? 50
/** The share of the last sample period the event loop was busy from which it counts as busy. */
const BUSY_UTILIZATION = 0.5
/** How often the event loop's utilisation is sampled (at most; only while watchers get events). */
const UTILIZATION_SAMPLE_MS = 100

let utilizationSample = performance.eventLoopUtilization()
let utilizationSampledAt = -Infinity
let loopBusy = false

/**
 * Whether the event loop was busy over the last sample period, sampled at most every 100 ms
 * by the watchers' own scheduling (no timer of its own). A sample older than three periods
 * says nothing about now: the loop counts as idle and a new period starts.
 */
function eventLoopBusy(now: number): boolean {
  const since = now - utilizationSampledAt
  if (since < UTILIZATION_SAMPLE_MS) return loopBusy
  const sample = performance.eventLoopUtilization()
  loopBusy = since <= 3 * UTILIZATION_SAMPLE_MS && performance.eventLoopUtilization(sample, utilizationSample).utilization >= BUSY_UTILIZATION
  utilizationSample = sample
  utilizationSampledAt = now
  return loopBusy
}

/** CLIENT_WATCH_FLUSH_WINDOW_MS (0 turns the window off) and CLIENT_WATCH_BUSY_FLUSH_WINDOW_MS: for measuring other windows in the bench. */
function flushWindowFromEnv(value: string | undefined): number | undefined {
  const ms = value === undefined || value === '' ? NaN : Number(value)
  return Number.isFinite(ms) && ms >= 0 && ms <= 1000 ? ms : undefined
}
/**
 * Bytes waiting that end a watcher's window at once: a TLS record holds at most 16 KiB, so
 * waiting for more saves no record, and a watcher that gets large or many events keeps the
 * pace of its connection (the window never limits how much a watcher can take).
 */
const FLUSH_WINDOW_BYTES = 16 * 1024

/** Senders with frames to write at the end of this turn, flushed by one setImmediate. */
let toFlush: WatchSender[] = []
let flushScheduled = false
/** Senders whose window is still open: flushed by one shared timer when it closes. */
const windowed = new Set<WatchSender>()
let windowTimer: NodeJS.Timeout | undefined
/** When the window timer fires (performance.now()). */
let windowTimerAt = Infinity

/**
 * The time of this synchronous run of the event loop: a change fanned out to a thousand
 * watchers asks for the time once per watcher (`schedule`), and `performance.now()` is a call
 * into the runtime each time (4 % of the server's profile with 1,000 HTTP/2 watchers). It
 * moves by the length of one dispatch at most, a millisecond or two of the 25 ms window.
 */
let runNow: number | undefined
const forgetRunNow = (): void => {
  runNow = undefined
}
function nowInThisRun(): number {
  if (runNow === undefined) {
    runNow = performance.now()
    queueMicrotask(forgetRunNow)
  }
  return runNow
}

function flushAll(): void {
  flushScheduled = false
  const senders = toFlush
  toFlush = []
  const now = performance.now()
  // A sender taken off the queue since (ended, closed, or moved) is skipped.
  for (const sender of senders) {
    if (sender.queued !== 'turn') continue
    sender.queued = 'no'
    sender.flushNow(now)
  }
}

function flushWindowed(): void {
  windowTimer = undefined
  windowTimerAt = Infinity
  const now = performance.now()
  let next = Infinity
  // Senders due within a millisecond go now (timers are not more precise than that).
  for (const sender of windowed) {
    if (sender.flushDue <= now + 1) {
      windowed.delete(sender)
      sender.queued = 'no'
      sender.flushNow(now)
    } else if (sender.flushDue < next) next = sender.flushDue
  }
  if (next !== Infinity) armWindowTimer(next, now)
}

function armWindowTimer(at: number, now: number): void {
  if (at >= windowTimerAt) return
  if (windowTimer !== undefined) clearTimeout(windowTimer)
  windowTimerAt = at
  windowTimer = setTimeout(flushWindowed, Math.max(0, at - now))
}

export class WatchSender {
  private readonly waiting: Buffer[] = []
  /** The bytes of `waiting`. */
  private waitingBytes = 0
  /** Whether `waiting[i]` is shared by other watchers (its chunk may be too). */
  private readonly sharedFrames: boolean[] = []
  private blocked = false
  private fullTimer: NodeJS.Timeout | undefined
  private readonly drainWaiters: Array<() => void> = []
  private readonly connection: WatchConnection
  /** Set once the watcher was closed for not reading. */
  closedAsUnresponsive = false
  /** When frames were last written (performance.now()). */
  private flushedAt = -Infinity
  /** Where this sender waits for its flush: nowhere, this turn's (`toFlush`) or its window's (`windowed`). */
  queued: 'no' | 'turn' | 'window' = 'no'

  constructor(
    private readonly res: Response,
    /** Called when the watcher is closed for not reading (stop the watch there). */
    private readonly onUnresponsive: (buffered: number) => void,
    private readonly limit = WATCHER_BUFFER_EVENTS,
    private readonly budgetMs = WATCHER_FULL_BUDGET_MS,
    /** The flush window (0: every turn's frames are written at the end of that turn). */
    private readonly flushWindowMs = WATCHER_FLUSH_WINDOW_MS,
    /** The flush window while the event loop is busy (never shorter than `flushWindowMs`; none when that is 0). */
    private readonly busyFlushWindowMs = WATCHER_BUSY_FLUSH_WINDOW_MS,
  ) {
    this.connection = new WatchConnection(res, () => this.drained())
    res.once('close', () => {
      this.stopTimer()
      this.waiting.length = 0
      this.waitingBytes = 0
      this.sharedFrames.length = 0
      this.unqueue()
      this.connection.close()
      this.wakeWaiters()
    })
  }

  /** When this sender's window closes (performance.now()). */
  get flushDue(): number {
    return this.flushedAt + this.windowMs
  }

  /** The window now: the busy one while the event loop is busy (decided when the window opened). */
  private windowMs = 0

  /** Events encoded but not yet handed to the connection. */
  get buffered(): number {
    return this.waiting.length
  }

  /**
   * Queues one encoded event for the end of this turn, and closes the watcher when the client
   * keeps it from draining. `shared`: the same Buffer goes to other watchers (never changed).
   */
  send(frame: Buffer, shared = false): void {
    if (this.closedAsUnresponsive || responseGone(this.res)) return
    this.waiting.push(frame)
    this.sharedFrames.push(shared)
    this.waitingBytes += frame.length
    if (!this.blocked) {
      // Enough for a full record, or half the buffer: no reason to wait for the window.
      if (this.waitingBytes >= FLUSH_WINDOW_BYTES || this.waiting.length >= this.limit / 2) {
        this.flushThisTurn()
      } else this.schedule()
    }
    if (this.waiting.length > this.limit && this.fullTimer === undefined) {
      this.fullTimer = setTimeout(() => this.closeUnresponsive(), this.budgetMs)
    }
  }

  /**
   * Resolves once the connection can take more: everything queued was handed to it (`all`),
   * or at least the buffer has room; or the response is gone. For initial events, which wait
   * for the client instead of counting against the buffer.
   */
  async settled(all = true): Promise<void> {
    const busy = () => (all ? this.waiting.length > 0 : this.waiting.length >= this.limit / 2 || (this.blocked && this.waiting.length > 0))
    while (busy() && !this.closedAsUnresponsive && !responseGone(this.res)) {
      // Someone waits for these frames (the initial events): no window.
      if (this.queued === 'window') this.flushThisTurn()
      await new Promise<void>((resolve) => this.drainWaiters.push(resolve))
    }
  }

  /**
   * Ends the response (the watch ended): what waits is written first, unless the watcher was
   * closed for not reading or its connection is gone.
   */
  end(): void {
    this.stopTimer()
    this.unqueue()
    if (!this.closedAsUnresponsive && !responseGone(this.res) && this.waiting.length > 0) {
      this.connection.write(this.waiting.splice(0), this.waitingBytes, false)
      this.sharedFrames.length = 0
      this.waitingBytes = 0
    }
    this.connection.close()
    if (!this.res.writableEnded) this.res.end()
  }

  /** Writes what waits, as far as the connection takes it (called by the turn's flush or the window's timer). */
  flushNow(now: number): void {
    if (this.blocked || this.waiting.length === 0 || responseGone(this.res)) return
    this.flushedAt = now
    // Up to the allowance beyond what the connection already holds (at least one frame).
    const room = WATCHER_SOCKET_ALLOWANCE_BYTES - this.connection.writableLength
    let n = 0
    let size = 0
    while (n < this.waiting.length && (n === 0 || size + this.waiting[n]!.length <= room)) size += this.waiting[n++]!.length
    const batch = n === this.waiting.length ? this.waiting.splice(0) : this.waiting.splice(0, n)
    const shared = n === 1 && this.sharedFrames[0] === true
    this.sharedFrames.splice(0, n)
    this.waitingBytes -= size
    const more = this.connection.write(batch, size, shared)
    // Full by Node's measure and beyond the allowance, or more waits: wait for 'drain' (a
    // write that answered false always gets one); room left and more waiting: the next turn
    // (not the window: it is for small writes, and this one was as large as allowed).
    if (!more && (this.connection.writableLength >= WATCHER_SOCKET_ALLOWANCE_BYTES || this.waiting.length > 0)) this.blocked = true
    else if (this.waiting.length > 0) this.flushThisTurn()
    if (this.waiting.length <= this.limit) this.stopTimer()
    this.wakeWaiters()
  }

  private schedule(): void {
    if (this.queued !== 'no') return
    if (this.flushWindowMs > 0 && this.drainWaiters.length === 0) {
      const now = nowInThisRun()
      this.windowMs = eventLoopBusy(now) ? Math.max(this.flushWindowMs, this.busyFlushWindowMs) : this.flushWindowMs
      const due = this.flushedAt + this.windowMs
      if (due > now) {
        windowed.add(this)
        this.queued = 'window'
        armWindowTimer(due, now)
        return
      }
    }
    this.flushThisTurn()
  }

  private flushThisTurn(): void {
    if (this.queued === 'turn') return
    if (this.queued === 'window') windowed.delete(this)
    this.queued = 'turn'
    toFlush.push(this)
    if (!flushScheduled) {
      flushScheduled = true
      setImmediate(flushAll)
    }
  }

  private drained(): void {
    this.blocked = false
    // The connection took what it had: what waits goes at once, as the client reads.
    if (this.waiting.length > 0) this.flushThisTurn()
    this.wakeWaiters()
  }

  private wakeWaiters(): void {
    if (this.drainWaiters.length > 0) for (const wake of this.drainWaiters.splice(0)) wake()
  }

  /** Takes this sender off the flush queues. */
  private unqueue(): void {
    if (this.queued === 'window') windowed.delete(this)
    this.queued = 'no'
  }

  private stopTimer(): void {
    if (this.fullTimer !== undefined) clearTimeout(this.fullTimer)
    this.fullTimer = undefined
  }

  private closeUnresponsive(): void {
    this.fullTimer = undefined
    if (this.waiting.length <= this.limit || responseGone(this.res)) return
    this.closedAsUnresponsive = true
    const buffered = this.waiting.length
    // What was handed to the connection stays; what waits here is dropped.
    this.waiting.length = 0
    this.waitingBytes = 0
    this.sharedFrames.length = 0
    this.unqueue()
    this.wakeWaiters()
    this.onUnresponsive(buffered)
  }
}
