/**
 * A response paced to a number of bytes per second, as the reference's flowrate writer paces a
 * connection of --max-connection-bytes-per-sec: what the handler writes is queued and sent no
 * faster than the rate, averaged from the first byte (no burst beyond one tenth of a second's
 * worth). write() answers false while bytes wait, and 'drain' is emitted once they are out;
 * end() waits for the queue. A connection that closes drops what waits.
 */
import { Transform } from 'node:stream'
import type { Response } from './types.js'

type WriteCallback = (err?: Error | null) => void

/** The paced responses and their rates. */
const throttled = new WeakMap<object, number>()

/** Whether the response is paced: its writes must go through it, never straight to its socket. */
export function isThrottled(res: object): boolean {
  return throttled.has(res)
}

/** The bytes per second a paced response is held to (undefined: not paced). */
export function throttleRate(res: object): number | undefined {
  return throttled.get(res)
}

/** The slice of time one piece covers: a tenth of a second's worth of bytes at most. */
const SLICE_SECONDS = 0.1

export function throttleResponse(res: Response, bytesPerSec: number): void {
  if (bytesPerSec <= 0) return
  throttled.set(res, bytesPerSec)
  const write = res.write.bind(res) as (chunk: Buffer, cb?: WriteCallback) => boolean
  const end = res.end.bind(res) as (cb?: () => void) => Response
  const queue: Array<{ data: Buffer; cb?: WriteCallback }> = []
  let startedAt: number | undefined
  let sent = 0
  let timer: NodeJS.Timeout | undefined
  let ending: { cb?: () => void } | undefined
  let closed = false

  const finish = () => {
    if (!ending || queue.length > 0) return
    const { cb } = ending
    ending = undefined
    end(cb)
  }
  const pump = () => {
    timer = undefined
    if (closed) return
    const now = Date.now()
    startedAt ??= now
    while (queue.length > 0) {
      // Bytes allowed by now, one slice ahead so that the first piece goes at once.
      const allowed = Math.floor(bytesPerSec * ((now - startedAt) / 1000 + SLICE_SECONDS)) - sent
      if (allowed <= 0) break
      const head = queue[0]!
      const piece = head.data.subarray(0, allowed)
      head.data = head.data.subarray(piece.length)
      sent += piece.length
      const done = head.data.length === 0
      if (done) queue.shift()
      write(piece, done ? head.cb : undefined)
    }
    if (queue.length > 0) {
      const waitMs = Math.max(1, Math.ceil(((sent + 1) / bytesPerSec - SLICE_SECONDS) * 1000 - (now - startedAt)))
      timer = setTimeout(pump, waitMs)
      return
    }
    res.emit('drain')
    finish()
  }
  // What waits here counts as written and not yet sent, for the handlers' flow control.
  const ownLength = inheritedGetter(res, 'writableLength')
  Object.defineProperty(res, 'writableLength', {
    configurable: true,
    get: () => (ownLength ? (ownLength.call(res) as number) : 0) + queue.reduce((n, q) => n + q.data.length, 0),
  })
  res.once('close', () => {
    closed = true
    if (timer) clearTimeout(timer)
    queue.length = 0
  })

  const toBuffer = (chunk: unknown, encoding?: unknown): Buffer =>
    Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array)

  ;(res as unknown as { write: (...args: unknown[]) => boolean }).write = (chunk: unknown, encoding?: unknown, cb?: unknown) => {
    const callback = (typeof encoding === 'function' ? encoding : cb) as WriteCallback | undefined
    const data = toBuffer(chunk, encoding)
    if (data.length === 0) return write(data, callback)
    queue.push({ data, ...(callback ? { cb: callback } : {}) })
    if (!timer) pump()
    return queue.length === 0
  }
  ;(res as unknown as { end: (...args: unknown[]) => Response }).end = (chunk?: unknown, encoding?: unknown, cb?: unknown) => {
    const callback = [chunk, encoding, cb].find((a) => typeof a === 'function') as (() => void) | undefined
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') {
      const data = toBuffer(chunk, encoding)
      if (data.length > 0) queue.push({ data })
    }
    ending = callback ? { cb: callback } : {}
    if (!timer) pump()
    return res
  }
}

/**
 * A stream passing its bytes on no faster than `bytesPerSec`, averaged from the first byte with
 * the same tenth of a second ahead: the relayed streams of an upgraded connection (exec,
 * attach, port-forward through a node agent or an extension server), which no response carries.
 */
export function pacedStream(bytesPerSec: number): Transform {
  let startedAt: number | undefined
  let sent = 0
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const push = (rest: Buffer): void => {
        const now = Date.now()
        startedAt ??= now
        const allowed = Math.floor(bytesPerSec * ((now - startedAt) / 1000 + SLICE_SECONDS)) - sent
        if (allowed > 0) {
          const piece = rest.subarray(0, allowed)
          sent += piece.length
          this.push(piece)
          rest = rest.subarray(piece.length)
        }
        if (rest.length === 0) return callback()
        const waitMs = Math.max(1, Math.ceil(((sent + 1) / bytesPerSec - SLICE_SECONDS) * 1000 - (now - startedAt)))
        setTimeout(() => push(rest), waitMs)
      }
      push(chunk)
    },
  })
}

/** The getter a property has on the object's prototype chain. */
function inheritedGetter(object: object, name: string): (() => unknown) | undefined {
  for (let proto = Object.getPrototypeOf(object) as object | null; proto; proto = Object.getPrototypeOf(proto) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name)
    if (descriptor) return descriptor.get
  }
  return undefined
}
