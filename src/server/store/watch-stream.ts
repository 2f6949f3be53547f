import { UnavailableError, type StoreError } from './errors.js'
import type { Watch, WatchEvent } from './types.js'

/** A consumer that takes a watch's events as they come (WatchStream.listen). */
export interface WatchSink {
  event(event: WatchEvent): void
  /** The watch ended (`error`: it failed); not called after cancel(). */
  end(error: StoreError | undefined): void
}

/**
 * Consumers that take every event the same way (one format, no selectors): a producer that
 * fans one change out to many watches (the watch cache) hands it to the group once, with the
 * members it is for, instead of to each member's sink in turn, so the change is translated
 * and encoded once per group. Each member still has its own sink for everything else (what
 * was buffered before it joined, and the end), and its own order: a member gets an event
 * either through its sink or through its group, never both, in revision order.
 */
export interface WatchGroup<M extends WatchSink = WatchSink> {
  event(event: WatchEvent, members: readonly M[]): void
}

/**
 * The consumer side of a watch, shared by the store implementations: producers `push`
 * events in revision order, `fail` or `end` it; consumers iterate. The buffer is bounded so
 * a consumer that stopped reading cannot grow the server's memory without end: past the
 * bound the watch breaks with a retryable error, and the consumer re-watches from the last
 * revision it saw (as the Kubernetes watch cache does with slow watchers).
 */
export class WatchStream implements Watch {
  private readonly buffer: WatchEvent[] = []
  private head = 0
  private waiter: { resolve: (r: IteratorResult<WatchEvent>) => void; reject: (e: unknown) => void } | null = null
  private failure: StoreError | null = null
  private finished = false
  private lastRevision = 0
  private onStop: (() => void) | null
  /** The consumer that takes events as they are pushed (listen), instead of iterating. */
  private sink: WatchSink | undefined

  startRevision: number
  /** Set by the producer when it can answer progress requests (see Watch.requestProgress). */
  requestProgress?: () => void

  constructor(
    private readonly description: string,
    startRevision: number,
    onStop: () => void,
    private readonly maxBuffered = 100_000,
  ) {
    this.startRevision = startRevision
    this.onStop = onStop
  }

  get closed(): boolean {
    return this.finished || this.failure !== null
  }

  /** The consumer waits for the next event: everything pushed so far was taken. */
  get awaitingEvents(): boolean {
    return this.waiter !== null || this.sink !== undefined
  }

  /** Revision of the last event pushed (0 before any). */
  get pushedRevision(): number {
    return this.lastRevision
  }

  push(event: WatchEvent): void {
    if (this.closed) return
    // Equal revisions are legitimate (etcd transactions touching several keys); lower ones
    // are replays after a reconnect.
    if (event.revision < this.lastRevision) return
    if (this.sink) {
      this.lastRevision = event.revision
      this.sink.event(event)
      return
    }
    if (this.waiter) {
      this.lastRevision = event.revision
      const w = this.waiter
      this.waiter = null
      w.resolve({ value: event, done: false })
      return
    }
    if (this.buffer.length - this.head >= this.maxBuffered) {
      this.fail(
        new UnavailableError(
          `watch on ${this.description} fell more than ${this.maxBuffered} events behind; ` +
            `watch again from revision ${event.revision}`,
        ),
      )
      return
    }
    this.lastRevision = event.revision
    this.buffer.push(event)
  }

  /** A progress event: every event up to `revision` was pushed before it. */
  pushProgress(revision: number): void {
    if (revision >= this.lastRevision) this.push({ type: 'progress', key: '', revision, createRevision: 0 })
  }

  /** Breaks the watch: buffered events are still delivered, then `next()` throws `error`. */
  fail(error: StoreError): void {
    if (this.closed) return
    this.failure = error
    this.stop()
    if (this.sink) {
      this.sink.end(error)
      return
    }
    if (this.waiter && this.head === this.buffer.length) {
      const w = this.waiter
      this.waiter = null
      w.reject(error)
    }
  }

  /** Ends the watch normally: buffered events are still delivered. */
  end(): void {
    if (this.closed) return
    this.finished = true
    this.stop()
    if (this.sink) {
      this.sink.end(undefined)
      return
    }
    if (this.waiter && this.head === this.buffer.length) {
      const w = this.waiter
      this.waiter = null
      w.resolve({ value: undefined, done: true })
    }
  }

  /**
   * Hands every event to `sink` as it is pushed (what is buffered first, at once), instead of
   * one promise per event and consumer: a watch cache pushing one change to a thousand
   * watchers then makes no promise at all. `end` is called once, with the failure if any
   * (not after cancel). Only for a consumer that has no `next()` pending.
   */
  listen<M extends WatchSink>(sink: M, group?: WatchGroup<M>): void {
    if (this.waiter) throw new Error('WatchStream: listen() while next() is pending')
    this.sink = sink
    while (this.head < this.buffer.length && this.sink === sink) sink.event(this.buffer[this.head++]!)
    this.buffer.length = 0
    this.head = 0
    if (this.sink !== sink) return
    if (this.failure) sink.end(this.failure)
    else if (this.finished) sink.end(undefined)
    else if (group) this.join(sink, group)
  }

  /**
   * A producer that fans events out to groups takes this listening watch's further events
   * there (`group`, with `sink` as the member): everything pushed so far was handed to the
   * sink. Here, without such a producer, events keep going to the sink one by one.
   */
  protected join<M extends WatchSink>(_sink: M, _group: WatchGroup<M>): void {}

  cancel(): void {
    this.buffer.length = 0
    this.head = 0
    this.failure = null
    if (this.finished) return
    this.finished = true
    this.sink = undefined
    this.stop()
    if (this.waiter) {
      const w = this.waiter
      this.waiter = null
      w.resolve({ value: undefined, done: true })
    }
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    if (this.head < this.buffer.length) {
      const event = this.buffer[this.head++]!
      if (this.head > 1024 && this.head * 2 > this.buffer.length) {
        this.buffer.splice(0, this.head)
        this.head = 0
      }
      return Promise.resolve({ value: event, done: false })
    }
    if (this.failure) return Promise.reject(this.failure)
    if (this.finished) return Promise.resolve({ value: undefined, done: true })
    if (this.waiter) return Promise.reject(new Error('WatchStream: next() called again before the previous call settled'))
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject }
    })
  }

  return(): Promise<IteratorResult<WatchEvent>> {
    this.cancel()
    return Promise.resolve({ value: undefined, done: true })
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<WatchEvent> {
    return this
  }

  private stop(): void {
    const onStop = this.onStop
    this.onStop = null
    onStop?.()
  }
}
