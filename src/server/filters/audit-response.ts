/**
 * The moments of a response the audit filter records (the reference's auditResponseWriter and
 * the end of its handler): when its status is decided (the first of writeHead, flushHeaders,
 * write or end; a long-running request's ResponseStarted stage), and just before it ends (its
 * ResponseComplete stage: written before the client can see the last byte, as the reference's
 * event is written when its handler returns). The response itself is written unchanged.
 */
import type { Response } from '../http/types.js'

export interface ResponseMoments {
  /** Once, with the status code. */
  onStart(code: number): void
  /** Once, as `end` is called, before the response ends. */
  onEnd(): void
  /** After each `write`, with the milliseconds it took (the reference's response-write latency). */
  onWritten?(ms: number): void
}

export function watchResponse(res: Response, moments: ResponseMoments): void {
  let started = false
  let ended = false
  const target = res as unknown as Record<string, (...args: unknown[]) => unknown>
  for (const method of ['writeHead', 'flushHeaders', 'write', 'end'] as const) {
    const original = target[method]
    if (typeof original !== 'function') continue
    target[method] = function (this: unknown, ...args: unknown[]) {
      if (!started) {
        started = true
        moments.onStart(method === 'writeHead' && typeof args[0] === 'number' ? args[0] : res.statusCode)
      }
      if (method === 'end' && !ended) {
        ended = true
        moments.onEnd()
      }
      if (method !== 'write' || !moments.onWritten) return original.apply(this, args)
      const start = performance.now()
      const written = original.apply(this, args)
      moments.onWritten(performance.now() - start)
      return written
    }
  }
}
