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
 */
import type { Response } from '../../http/types.js'
import { responseGone } from './list-stream.js'

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

export class WatchSender {
  private readonly waiting: Array<string | Buffer> = []
  private blocked = false
  private fullTimer: NodeJS.Timeout | undefined
  private readonly drainWaiters: Array<() => void> = []
  /** Set once the watcher was closed for not reading. */
  closedAsUnresponsive = false

  constructor(
    private readonly res: Response,
    /** Called when the watcher is closed for not reading (stop the watch there). */
    private readonly onUnresponsive: (buffered: number) => void,
    private readonly limit = WATCHER_BUFFER_EVENTS,
    private readonly budgetMs = WATCHER_FULL_BUDGET_MS,
  ) {
    res.on('drain', () => this.drained())
    res.once('close', () => {
      this.stopTimer()
      this.waiting.length = 0
      this.wakeWaiters()
    })
  }

  /** Events encoded but not yet handed to the connection. */
  get buffered(): number {
    return this.waiting.length
  }

  /** Queues one encoded event, and closes the watcher when the client keeps it from draining. */
  send(frame: string | Buffer): void {
    if (this.closedAsUnresponsive || responseGone(this.res)) return
    this.waiting.push(frame)
    this.flush()
    if (this.waiting.length > this.limit && this.fullTimer === undefined) {
      this.fullTimer = setTimeout(() => this.closeUnresponsive(), this.budgetMs)
    }
  }

  /**
   * Resolves once everything queued was handed to the connection, or the response is gone:
   * for initial events, which wait for the client instead of counting against the buffer.
   */
  async settled(): Promise<void> {
    while (this.waiting.length > 0 && !this.closedAsUnresponsive && !responseGone(this.res)) {
      await new Promise<void>((resolve) => this.drainWaiters.push(resolve))
    }
  }

  /** Stops the budget timer (the watch ended). */
  stop(): void {
    this.stopTimer()
  }

  private flush(): void {
    const res = this.res as { write(chunk: string | Buffer): boolean; writableLength?: number }
    while (!this.blocked && this.waiting.length > 0) {
      const frame = this.waiting.shift()!
      // Full by Node's measure, but within the allowance: go on (see WATCHER_SOCKET_ALLOWANCE_BYTES).
      if (!res.write(frame) && !((res.writableLength ?? Infinity) < WATCHER_SOCKET_ALLOWANCE_BYTES)) this.blocked = true
    }
    if (this.waiting.length <= this.limit) this.stopTimer()
  }

  private drained(): void {
    this.blocked = false
    this.flush()
    this.wakeWaiters()
  }

  private wakeWaiters(): void {
    for (const wake of this.drainWaiters.splice(0)) wake()
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
    this.wakeWaiters()
    this.onUnresponsive(buffered)
  }
}
