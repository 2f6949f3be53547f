/**
 * When a response's status is decided (the reference's auditResponseWriter): the first of
 * writeHead, flushHeaders, write or end, which for a long-running request (a watch) is its
 * ResponseStarted stage. The response itself is written unchanged.
 */
import type { Response } from '../http/types.js'

/** Calls `onStart` once, with the status code, when `res` starts. */
export function onResponseStart(res: Response, onStart: (code: number) => void): void {
  let started = false
  const target = res as unknown as Record<string, (...args: unknown[]) => unknown>
  for (const method of ['writeHead', 'flushHeaders', 'write', 'end'] as const) {
    const original = target[method]
    if (typeof original !== 'function') continue
    target[method] = function (this: unknown, ...args: unknown[]) {
      if (!started) {
        started = true
        onStart(method === 'writeHead' && typeof args[0] === 'number' ? args[0] : res.statusCode)
      }
      return original.apply(this, args)
    }
  }
}
