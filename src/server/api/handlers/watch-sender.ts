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
 * more events per write, not more writes.
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

/** Senders with frames to write at the end of this turn, flushed by one setImmediate. */
const toFlush = new Set<WatchSender>()
let flushScheduled = false

function flushAll(): void {
  flushScheduled = false
  const senders = [...toFlush]
  toFlush.clear()
  for (const sender of senders) sender.flushNow()
}

export class WatchSender {
  private readonly waiting: Buffer[] = []
  /** Whether `waiting[i]` is shared by other watchers (its chunk may be too). */
  private readonly sharedFrames: boolean[] = []
  private blocked = false
  private fullTimer: NodeJS.Timeout | undefined
  private readonly drainWaiters: Array<() => void> = []
  private readonly connection: WatchConnection
  /** Set once the watcher was closed for not reading. */
  closedAsUnresponsive = false

  constructor(
    private readonly res: Response,
    /** Called when the watcher is closed for not reading (stop the watch there). */
    private readonly onUnresponsive: (buffered: number) => void,
    private readonly limit = WATCHER_BUFFER_EVENTS,
    private readonly budgetMs = WATCHER_FULL_BUDGET_MS,
  ) {
    this.connection = new WatchConnection(res, () => this.drained())
    res.once('close', () => {
      this.stopTimer()
      this.waiting.length = 0
      this.sharedFrames.length = 0
      toFlush.delete(this)
      this.connection.close()
      this.wakeWaiters()
    })
  }

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
    if (!this.blocked) this.schedule()
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
      await new Promise<void>((resolve) => this.drainWaiters.push(resolve))
    }
  }

  /**
   * Ends the response (the watch ended): what waits is written first, unless the watcher was
   * closed for not reading or its connection is gone.
   */
  end(): void {
    this.stopTimer()
    toFlush.delete(this)
    if (!this.closedAsUnresponsive && !responseGone(this.res) && this.waiting.length > 0) {
      const size = this.waiting.reduce((n, f) => n + f.length, 0)
      this.connection.write(this.waiting.splice(0), size, false)
      this.sharedFrames.length = 0
    }
    this.connection.close()
    if (!this.res.writableEnded) this.res.end()
  }

  /** Writes what waits, as far as the connection takes it (called by the turn's flush). */
  flushNow(): void {
    if (this.blocked || this.waiting.length === 0 || responseGone(this.res)) return
    // Up to the allowance beyond what the connection already holds (at least one frame).
    const room = WATCHER_SOCKET_ALLOWANCE_BYTES - this.connection.writableLength
    let n = 0
    let size = 0
    while (n < this.waiting.length && (n === 0 || size + this.waiting[n]!.length <= room)) size += this.waiting[n++]!.length
    const batch = n === this.waiting.length ? this.waiting.splice(0) : this.waiting.splice(0, n)
    const shared = n === 1 && this.sharedFrames[0] === true
    this.sharedFrames.splice(0, n)
    const more = this.connection.write(batch, size, shared)
    // Full by Node's measure and beyond the allowance, or more waits: wait for 'drain' (a
    // write that answered false always gets one); room left and more waiting: the next turn.
    if (!more && (this.connection.writableLength >= WATCHER_SOCKET_ALLOWANCE_BYTES || this.waiting.length > 0)) this.blocked = true
    else if (this.waiting.length > 0) this.schedule()
    if (this.waiting.length <= this.limit) this.stopTimer()
    this.wakeWaiters()
  }

  private schedule(): void {
    toFlush.add(this)
    if (!flushScheduled) {
      flushScheduled = true
      setImmediate(flushAll)
    }
  }

  private drained(): void {
    this.blocked = false
    if (this.waiting.length > 0) this.schedule()
    this.wakeWaiters()
  }

  private wakeWaiters(): void {
    if (this.drainWaiters.length > 0) for (const wake of this.drainWaiters.splice(0)) wake()
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
    this.sharedFrames.length = 0
    toFlush.delete(this)
    this.wakeWaiters()
    this.onUnresponsive(buffered)
  }
}
