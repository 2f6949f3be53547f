/**
 * Where a watch's frames go: the response's connection, written in batches. A watcher's
 * frames of one turn of the event loop leave as one write (so one TLS record, one syscall),
 * where one write per event and watcher made a thousand watchers cost a hundred thousand TLS
 * records a second (the reference's writer likewise flushes only when its channel is empty).
 *
 * On HTTP/1.1 with chunked encoding the batch goes to the socket as one ready-made chunk: the
 * chunk of a single shared frame is made once for every watcher (`chunkOf`) and written as is,
 * without the response's per-write framing, cork and uncork. On HTTP/2 (or an HTTP/1.0
 * response, which is not chunked) the batch goes through the response as one write.
 */
import type { Socket } from 'node:net'
import type { ServerResponse } from 'node:http'
import { isThrottled } from '../../http/throttle.js'
import type { Response } from '../../http/types.js'

const CRLF = Buffer.from('\r\n')
const chunks = new WeakMap<Buffer, Buffer>()

/**
 * The last batch of several frames made into one write, and that write (a chunk, or the
 * frames joined for HTTP/2). Senders are flushed together (at the end of a turn, or when the
 * flush window's shared timer fires), and watchers of the same events then hold the very same
 * frames: the first one's write is reused by the next ones instead of being copied again for
 * each, which was a tenth of the server's CPU with 1,000 watchers and, while the server is
 * behind, a thousand copies of each batch in the sockets' queues. Frames are never changed
 * once sent, so the same Buffers in the same order are the same bytes.
 */
class BatchMemo {
  private frames: readonly Buffer[] = []
  private made: Buffer | undefined

  get(frames: readonly Buffer[], make: () => Buffer): Buffer {
    const last = this.frames
    if (this.made !== undefined && last.length === frames.length) {
      let same = true
      for (let i = 0; i < frames.length && same; i++) same = frames[i] === last[i]
      if (same) return this.made
    }
    const made = make()
    this.frames = frames
    this.made = made
    return made
  }
}
const chunkedBatches = new BatchMemo()
const joinedBatches = new BatchMemo()

/** One HTTP/1.1 chunk of several frames; the same as the last batch's when its frames are the same Buffers. */
export function chunkOfBatch(frames: readonly Buffer[], size: number): Buffer {
  return chunkedBatches.get(frames, () => chunkOfFrames(frames, size))
}

/** `<size in hex>\r\n<frame>\r\n`: one HTTP/1.1 chunk; a shared frame's chunk is made once. */
export function chunkOf(frame: Buffer, shared: boolean): Buffer {
  let chunk = shared ? chunks.get(frame) : undefined
  if (chunk === undefined) {
    chunk = chunkOfFrames([frame], frame.length)
    if (shared) chunks.set(frame, chunk)
  }
  return chunk
}

function chunkOfFrames(frames: readonly Buffer[], size: number): Buffer {
  const head = `${size.toString(16)}\r\n`
  const chunk = Buffer.allocUnsafe(head.length + size + 2)
  let at = chunk.write(head, 0, 'latin1')
  for (const f of frames) at += f.copy(chunk, at)
  CRLF.copy(chunk, at)
  return chunk
}

export class WatchConnection {
  /** The socket once the response's own buffer is empty: from then on chunks are written to it. */
  private socket: Socket | undefined
  private readonly onDrain: () => void

  constructor(
    private readonly res: Response,
    onDrain: () => void,
  ) {
    this.onDrain = onDrain
    res.on('drain', onDrain)
  }

  /** Bytes handed to the connection and not yet sent. */
  get writableLength(): number {
    return this.socket ? this.socket.writableLength : (this.res.writableLength ?? 0)
  }

  /**
   * Writes `frames` (`size` bytes in all) as one write; `shared` says a single frame is shared
   * by other watchers (its chunk can be too). False: the connection is full by Node's measure.
   */
  write(frames: readonly Buffer[], size: number, shared: boolean): boolean {
    const socket = this.socket ?? this.directSocket()
    if (socket) return socket.write(frames.length === 1 ? chunkOf(frames[0]!, shared) : chunkOfBatch(frames, size))
    return (this.res as { write(chunk: Buffer): boolean }).write(frames.length === 1 ? frames[0]! : joinedBatches.get(frames, () => Buffer.concat(frames, size)))
  }

  /** Stops listening to the socket (it may serve the next request of a keep-alive connection). */
  close(): void {
    this.res.off('drain', this.onDrain)
    this.socket?.off('drain', this.onDrain)
  }

  /**
   * The HTTP/1.1 socket, once writing to it directly keeps the response's framing: the
   * response is chunked, its headers were sent, and nothing of it waits in its own buffer.
   */
  private directSocket(): Socket | undefined {
    const res = this.res as ServerResponse & { chunkedEncoding?: boolean }
    const socket = res.socket
    // A response paced by --max-connection-bytes-per-sec is written through its pacing.
    if (!socket || 'stream' in res || res.chunkedEncoding !== true || !res.headersSent || isThrottled(res)) return undefined
    // The response's writableLength is its own buffer plus the socket's.
    if (res.writableLength !== socket.writableLength) return undefined
    this.socket = socket
    socket.on('drain', this.onDrain)
    return socket
  }
}
