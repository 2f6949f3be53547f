/**
 * Writes to the standard output or error without process.stdout / process.stderr: the first use
 * of either makes Node load its stream modules (node:stream and the rest, a tenth of a short
 * command's start-up), and a short command prints a few lines in one go. The text goes straight
 * to the file descriptor, whole (looping over short writes); a descriptor that would block (a
 * non-blocking pipe that is full) or fails otherwise hands the rest of this text and every later
 * one to the stream, so that the order is kept and failures (EPIPE) behave as they do there.
 */
import { writeSync } from 'node:fs'

/** Whether a writer has handed over to a stream, whose writes may still be pending. */
let handedOver = false

/**
 * True when every write so far went whole to its descriptor: nothing is left in a stream's
 * buffer, so a command that is done may end the process at once (bin/run.js) instead of
 * waiting for Node's teardown of the heap.
 */
export function allWrittenDirectly(): boolean {
  return !handedOver
}

export function directWriter(fd: 1 | 2): (text: string) => void {
  let useStream = false
  const stream = () => (fd === 1 ? process.stdout : process.stderr)
  return (text) => {
    if (useStream) {
      stream().write(text)
      return
    }
    const bytes = Buffer.from(text, 'utf8')
    let written = 0
    try {
      while (written < bytes.length) written += writeSync(fd, bytes, written)
    } catch {
      useStream = true
      handedOver = true
      stream().write(bytes.subarray(written))
    }
  }
}
