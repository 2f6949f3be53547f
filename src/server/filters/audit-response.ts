/**
 * The moments of a response the audit filter records (the reference's auditResponseWriter and
 * the end of its handler): when its status is decided (the first of writeHead, flushHeaders,
 * write or end; a long-running request's ResponseStarted stage), and just before it ends (its
 * ResponseComplete stage: written before the client can see the last byte, as the reference's
 * event is written when its handler returns), or when its connection closed first. The
 * response itself is written unchanged.
 *
 * The methods are replaced by functions shared by every response, which find the response's
 * state on it: every audited request watches its response, and a set of closures per request
 * was a visible part of audit's cost (issue 33's bench).
 */
import type { Response } from '../http/types.js'

export interface ResponseMoments {
  /** Once, with the status code. */
  onStart(code: number): void
  /** Once, as `end` is called, before the response ends; or as the connection closes before that. */
  onEnd(): void
  /** After each `write`, with the milliseconds it took (the reference's response-write latency). */
  onWritten?(ms: number): void
}

type Method = (...args: unknown[]) => unknown

/** A watched response's state and the methods it had. */
class Watch {
  started = false
  ended = false

  constructor(
    public moments: ResponseMoments,
    readonly writeHead: Method | undefined,
    readonly flushHeaders: Method | undefined,
    readonly write: Method | undefined,
    readonly end: Method | undefined,
  ) {}
}

const WATCH = Symbol('audit response watch')

interface Watched {
  [WATCH]: Watch
  statusCode: number
}

export function watchResponse(res: Response, moments: ResponseMoments): void {
  const target = res as unknown as Partial<Record<string, Method>> & Watched
  const watching = target[WATCH] as Watch | undefined
  // Watched already: the same moments reach both watchers, as two wrappings would.
  if (watching) {
    watching.moments = both(watching.moments, moments)
    return
  }
  const watch = new Watch(moments, methodOf(target.writeHead), methodOf(target.flushHeaders), methodOf(target.write), methodOf(target.end))
  target[WATCH] = watch
  if (watch.writeHead) target.writeHead = watchedWriteHead as Method
  if (watch.flushHeaders) target.flushHeaders = watchedFlushHeaders as Method
  if (watch.write) target.write = watchedWrite as Method
  if (watch.end) target.end = watchedEnd as Method
  res.on('close', closed)
}

function methodOf(value: unknown): Method | undefined {
  return typeof value === 'function' ? (value as Method) : undefined
}

function both(first: ResponseMoments, second: ResponseMoments): ResponseMoments {
  return {
    onStart: (code) => {
      first.onStart(code)
      second.onStart(code)
    },
    onEnd: () => {
      first.onEnd()
      second.onEnd()
    },
    onWritten: (ms) => {
      first.onWritten?.(ms)
      second.onWritten?.(ms)
    },
  }
}

function started(watch: Watch, code: number): void {
  if (watch.started) return
  watch.started = true
  watch.moments.onStart(code)
}

function ended(watch: Watch): void {
  if (watch.ended) return
  watch.ended = true
  watch.moments.onEnd()
}

function watchedWriteHead(this: Watched, ...args: unknown[]): unknown {
  const watch = this[WATCH]
  started(watch, typeof args[0] === 'number' ? args[0] : this.statusCode)
  return watch.writeHead!.apply(this, args)
}

function watchedFlushHeaders(this: Watched, ...args: unknown[]): unknown {
  const watch = this[WATCH]
  started(watch, this.statusCode)
  return watch.flushHeaders!.apply(this, args)
}

function watchedWrite(this: Watched, ...args: unknown[]): unknown {
  const watch = this[WATCH]
  started(watch, this.statusCode)
  if (!watch.moments.onWritten) return watch.write!.apply(this, args)
  const start = performance.now()
  const written = watch.write!.apply(this, args)
  watch.moments.onWritten(performance.now() - start)
  return written
}

function watchedEnd(this: Watched, ...args: unknown[]): unknown {
  const watch = this[WATCH]
  started(watch, this.statusCode)
  ended(watch)
  return watch.end!.apply(this, args)
}

/** A connection closed before the response ended. */
function closed(this: Watched): void {
  ended(this[WATCH])
}
