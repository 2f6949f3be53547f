import type { Etcd3, IDuplexStream, IEvent, IWatchRequest, IWatchResponse } from 'etcd3'
import { CompactedError, InvalidError, UnavailableError, type StoreError } from './errors.js'
import { mapEtcdError } from './etcd-errors.js'
import type { WatchEvent } from './types.js'
import { WatchStream } from './watch-stream.js'

interface EtcdWatchTarget {
  readonly client: Etcd3
  readonly servers: readonly string[]
  /** Full etcd key (prefix included) of the watched key or range start. */
  readonly key: Buffer
  /** Range end, absent to watch exactly `key`. */
  readonly rangeEnd?: Buffer
  /** Length of the store prefix to strip from keys in events. */
  readonly prefixLength: number
  readonly description: string
  readonly bufferLimit: number
  /** Whether the watch answers progress requests (see EtcdStore's supportsWatchProgress). */
  readonly progress?: boolean
}

const MIN_BACKOFF_MS = 100
const MAX_BACKOFF_MS = 2_000

/**
 * One watch on its own etcd watch stream (gRPC streams are multiplexed on the member's
 * connection, so this is cheap). It survives etcd restarts: when the stream breaks it
 * reconnects with backoff and resumes after the last revision delivered, so consumers see
 * no gap and no duplicate. If etcd compacted past that revision meanwhile, the watch ends
 * with `CompactedError`, like the reference's watcher.
 */
export class EtcdWatch {
  readonly stream: WatchStream
  /** Next revision to ask etcd for; 0 until the first stream told us where "now" is. */
  private next: number
  private current: IDuplexStream<IWatchRequest, IWatchResponse> | null = null
  private backoff = MIN_BACKOFF_MS
  private retryTimer: NodeJS.Timeout | null = null
  private stopped = false
  /** The consumer asked for progress: etcd's progress notifications become progress events. */
  private progressWanted = false

  private constructor(
    private readonly target: EtcdWatchTarget,
    fromRevision: number,
    onStop: () => void,
  ) {
    this.next = fromRevision
    this.stream = new WatchStream(
      target.description,
      fromRevision,
      () => {
        this.stop()
        onStop()
      },
      target.bufferLimit,
    )
    if (target.progress) this.stream.requestProgress = () => {
      this.progressWanted = true
      try {
        // etcd answers (with its current revision) once this stream's watcher is in sync.
        this.current?.write({ progress_request: {} })
      } catch {
        // The stream is going away; the reconnect's watcher is asked on the next request.
      }
    }
  }

  /** Resolves once etcd acknowledged the watch; rejects when it cannot be established. */
  static async start(target: EtcdWatchTarget, fromRevision: number, onStop: () => void): Promise<EtcdWatch> {
    const watch = new EtcdWatch(target, fromRevision, onStop)
    await watch.connect(true)
    return watch
  }

  /** Stops the watch without ending its stream (the stream's owner does that). */
  stop(): void {
    if (this.stopped) return
    this.stopped = true
    if (this.retryTimer) clearTimeout(this.retryTimer)
    this.retryTimer = null
    this.closeStream()
  }

  private closeStream(): void {
    const s = this.current
    this.current = null
    if (!s) return
    // Ending our side first marks the stream non-writable, which keeps etcd3 from taking
    // our own cancellation for a failure of the member.
    try {
      s.end()
      s.cancel()
    } catch {
      // Already torn down.
    }
  }

  private connect(first: boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false
      const settle = (err?: StoreError): void => {
        if (settled) return
        settled = true
        if (err) reject(err)
        else resolve()
      }
      this.target.client.watchClient.watch().then(
        stream => {
          if (this.stopped) {
            this.current = stream
            this.closeStream()
            settle()
            return
          }
          this.current = stream
          stream.on('data', res => {
            if (this.current !== stream) return
            const failure = this.onResponse(res)
            if (failure) {
              this.stream.fail(failure)
              settle(failure)
            } else if (res.created) {
              this.backoff = MIN_BACKOFF_MS
              settle()
            }
          })
          const broken = (err: Error): void => {
            if (this.current !== stream) return
            this.current = null
            const mapped = mapEtcdError(err, { servers: this.target.servers, operation: 'watch', key: this.target.description })
            if (first && !settled) {
              settle(mapped)
              this.stream.fail(mapped)
              return
            }
            this.reconnectLater(mapped)
          }
          stream.on('error', broken)
          stream.on('end', () => broken(new UnavailableError('etcd closed the watch stream')))
          const create: IWatchRequest = {
            create_request: {
              key: this.target.key,
              start_revision: this.next,
              prev_kv: true,
              progress_notify: true,
              ...(this.target.rangeEnd ? { range_end: this.target.rangeEnd } : {}),
            },
          }
          stream.write(create)
        },
        (err: unknown) => {
          const mapped = mapEtcdError(err, { servers: this.target.servers, operation: 'watch', key: this.target.description })
          if (first) {
            settle(mapped)
            this.stream.fail(mapped)
          } else {
            this.reconnectLater(mapped)
            settle()
          }
        },
      )
    })
  }

  private reconnectLater(_cause: StoreError): void {
    if (this.stopped || this.stream.closed) return
    const delay = this.backoff
    this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS)
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null
      if (this.stopped) return
      void this.connect(false)
    }, delay)
    this.retryTimer.unref()
  }

  /** Handles one response; returns the error that ends the watch, if any. */
  private onResponse(res: IWatchResponse): StoreError | null {
    if (res.canceled) {
      const compactedAt = Number(res.compact_revision ?? 0)
      if (compactedAt > 0) return new CompactedError(this.next, compactedAt)
      return new InvalidError(`etcd cancelled the watch on ${this.target.description}: ${res.cancel_reason || 'no reason given'}`)
    }
    if (res.created) {
      if (this.next === 0) {
        this.next = Number(res.header.revision) + 1
        this.stream.startRevision = this.next
      }
      return null
    }
    const events = res.events ?? []
    if (events.length === 0) {
      // A progress notification: nothing in range changed up to the header revision, so a
      // reconnect can resume after it (and need not reach back into compacted history).
      const progressed = Number(res.header.revision) + 1
      if (progressed > this.next) this.next = progressed
      if (this.progressWanted) this.stream.pushProgress(progressed - 1)
      return null
    }
    for (const ev of events) {
      const converted = this.convert(ev)
      this.stream.push(converted)
      this.next = converted.revision + 1
    }
    return null
  }

  private convert(ev: IEvent): WatchEvent {
    const key = ev.kv.key.subarray(this.target.prefixLength).toString('utf8')
    const revision = Number(ev.kv.mod_revision)
    const prev = ev.prev_kv
    const previous = prev ? { prevValue: prev.value, prevModRevision: Number(prev.mod_revision) } : {}
    if (ev.type === 'Delete') {
      return {
        type: 'delete',
        key,
        revision,
        createRevision: prev ? Number(prev.create_revision) : 0,
        ...previous,
      }
    }
    const createRevision = Number(ev.kv.create_revision)
    if (createRevision === revision) {
      return { type: 'create', key, revision, createRevision, value: ev.kv.value }
    }
    return { type: 'update', key, revision, createRevision, value: ev.kv.value, ...previous }
  }
}
