/**
 * The batch mode of a backend (the reference's plugin/pkg/audit/buffered): events are copied
 * into a buffer of `bufferSize` and the request goes on at once; a worker hands them to the
 * backend in batches of up to `maxBatchSize`, a partial batch after `maxBatchWait`, at most
 * `qps` batches a second (bursts of `burst`) when throttled. A full buffer drops the events
 * that do not fit and reports them (apiserver_audit_error_total{plugin="buffered"}): a slow
 * or dead backend never blocks a request and never grows memory past the buffer. Shutting
 * down delivers everything buffered, waits for the batches under way, then shuts the backend
 * down.
 */
import type { MaybePromise } from '../http/maybe-promise.js'
import type { AuditBackend } from './backend.js'
import type { AuditEvent } from './event.js'
import { type PluginErrorHandler, ignorePluginErrors } from './plugin-error.js'
import { Throttle } from './throttle.js'

/** The name the reference reports this plugin's errors under. */
export const BUFFERED_PLUGIN = 'buffered'

/** The reference's BatchConfig. */
export interface BatchConfig {
  /** Events held at most; more are dropped. */
  readonly bufferSize: number
  readonly maxBatchSize: number
  /** Longest a partial batch waits for more events, in ms (only with maxBatchSize > 1). */
  readonly maxBatchWaitMs: number
  /** Batches per second and burst; none: unthrottled (ThrottleEnable false). */
  readonly throttle?: { readonly qps: number; readonly burst: number }
  /** Hand batches over without waiting for the previous one (the webhook); else one at a time (the log). */
  readonly asyncDelegate: boolean
}

export class BufferedBackend implements AuditBackend {
  readonly name: string
  private buffer: AuditEvent[] = []
  private stopped = false
  /** Wakes the worker when a batch is full or the backend stops. */
  private wake?: () => void
  /** The batch wait ran out on an empty buffer: the next event goes at once. */
  private waitExpired = false
  private worker?: Promise<void>
  private readonly inFlight = new Set<Promise<unknown>>()
  private readonly throttle?: Throttle

  constructor(
    private readonly delegate: AuditBackend,
    private readonly config: BatchConfig,
    private readonly onError: PluginErrorHandler = ignorePluginErrors,
  ) {
    this.name = delegate.name
    if (config.throttle) this.throttle = new Throttle(config.throttle.qps, config.throttle.burst)
  }

  /** Buffers copies of the events; never waits and always answers true (the reference's). */
  processEvents(...events: AuditEvent[]): boolean {
    if (this.stopped) {
      this.onError(BUFFERED_PLUGIN, 'audit backend shut down', events)
      return true
    }
    for (let i = 0; i < events.length; i++) {
      if (this.buffer.length >= this.config.bufferSize) {
        this.onError(BUFFERED_PLUGIN, 'audit buffer queue blocked', events.slice(i))
        break
      }
      // The caller reuses its event for the next stage: keep a copy. The audit filter only
      // replaces an event's fields, never changes the values inside them, so a shallow copy
      // is one (and a deep one would cost more than the rest of the request's audit).
      this.buffer.push({ ...events[i]! })
    }
    if (this.buffer.length >= this.batchSize() || this.waitExpired) this.wake?.()
    return true
  }

  run(): void {
    if (this.worker) return
    this.worker = this.work()
    this.delegate.run()
  }

  async shutdown(): Promise<void> {
    this.stopped = true
    this.wake?.()
    await this.worker
    await Promise.all(this.inFlight)
    await this.delegate.shutdown()
  }

  private batchSize(): number {
    return Math.max(1, this.config.maxBatchSize)
  }

  /** Collects and hands over batches until stopped, then hands over what is left. */
  private async work(): Promise<void> {
    while (!this.stopped) {
      await this.nextBatchReady()
      await this.handOver(this.buffer.splice(0, this.batchSize()))
    }
    while (this.buffer.length > 0) await this.handOver(this.buffer.splice(0, this.batchSize()))
  }

  /**
   * Resolves when a full batch is buffered, the batch wait ran out with events buffered
   * (batching only: one event at a time goes as soon as it is there) or the backend stops. A
   * wait that runs out on an empty buffer ends with the next event, so an idle backend does
   * not spin.
   */
  private nextBatchReady(): Promise<void> {
    if (this.stopped || this.buffer.length >= this.batchSize()) return Promise.resolve()
    return new Promise<void>((resolve) => {
      this.waitExpired = false
      const expire = () => {
        if (this.buffer.length > 0) done()
        else this.waitExpired = true
      }
      const timer = this.batchSize() > 1 ? setTimeout(expire, Math.max(1, this.config.maxBatchWaitMs)) : undefined
      // The server keeps running while events may come; the batch wait alone keeps nothing alive.
      timer?.unref()
      const done = () => {
        if (timer) clearTimeout(timer)
        this.wake = undefined
        this.waitExpired = false
        resolve()
      }
      this.wake = done
    })
  }

  private async handOver(events: AuditEvent[]): Promise<void> {
    if (events.length === 0) return
    await this.throttle?.accept()
    const delivered = settle(() => this.delegate.processEvents(...events))
    if (!this.config.asyncDelegate) return delivered
    this.inFlight.add(delivered)
    void delivered.then(() => this.inFlight.delete(delivered))
  }
}

/** The delegate's answer as a promise that never rejects (the reference recovers from a delegate's panic). */
async function settle(call: () => MaybePromise<boolean>): Promise<void> {
  try {
    await call()
  } catch {
    // The delegate reports its own failures; a throw must not stop the worker.
  }
}
