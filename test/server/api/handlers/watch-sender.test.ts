import assert from 'node:assert/strict'
import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { WATCHER_BUFFER_EVENTS, WATCHER_FULL_BUDGET_MS, WatchSender } from '../../../../src/server/api/handlers/watch-sender.js'
import { chunkOf, chunkOfBatch } from '../../../../src/server/api/handlers/watch-connection.js'

/** An HTTP/1.1 server whose one response is a chunked stream fed by `feed`; returns the raw bytes a client read. */
async function rawStream(feed: (sender: WatchSender, res: http.ServerResponse) => void, flushWindowMs?: number, busyFlushWindowMs?: number): Promise<string> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.flushHeaders()
    feed(new WatchSender(res, () => {}, WATCHER_BUFFER_EVENTS, WATCHER_FULL_BUDGET_MS, flushWindowMs, busyFlushWindowMs), res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const { port } = server.address() as AddressInfo
    return await new Promise<string>((resolve, reject) => {
      let raw = ''
      const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /watch HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'))
      socket.setEncoding('latin1')
      socket.on('data', (d: string) => (raw += d))
      socket.on('end', () => resolve(raw))
      socket.on('error', reject)
    })
  } finally {
    server.close()
  }
}

describe('watch: WatchSender writes a turn\'s frames as one chunk', () => {
  it('three frames sent in one turn leave as one HTTP/1.1 chunk, then the stream ends with the last chunk', async () => {
    const frames = ['{"type":"ADDED","n":1}\n', '{"type":"ADDED","n":2}\n', '{"type":"MODIFIED","n":3}\n'].map((f) => Buffer.from(f))
    const raw = await rawStream((sender) => {
      for (const f of frames) sender.send(f, true)
      setTimeout(() => sender.end(), 20)
    })
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4)
    const all = Buffer.concat(frames).toString()
    assert.match(raw, /^HTTP\/1\.1 200 OK\r\n/)
    assert.ok(raw.toLowerCase().includes('transfer-encoding: chunked'))
    assert.equal(body, `${Buffer.byteLength(all).toString(16)}\r\n${all}\r\n0\r\n\r\n`)
  })

  it('without a flush window, frames of different turns are separate chunks, in order', async () => {
    const raw = await rawStream((sender) => {
      sender.send(Buffer.from('{"n":1}\n'), true)
      setTimeout(() => {
        sender.send(Buffer.from('{"n":22}\n'), false)
        setTimeout(() => sender.end(), 20)
      }, 20)
    }, 0)
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4)
    assert.equal(body, '8\r\n{"n":1}\n\r\n9\r\n{"n":22}\n\r\n0\r\n\r\n')
  })

  it('an idle watcher gets its first frame at once; frames of later turns within the window leave together when it closes', async () => {
    let firstWrittenWithin: number | undefined
    const raw = await rawStream((sender, res) => {
      const before = res.socket!.bytesWritten
      sender.send(Buffer.from('{"n":1}\n'), true)
      // The first frame is written at the end of this turn, long before the window closes.
      setImmediate(() => {
        firstWrittenWithin = res.socket!.bytesWritten - before
        sender.send(Buffer.from('{"n":2}\n'), true)
        setImmediate(() => sender.send(Buffer.from('{"n":3}\n'), false))
      })
      // Timers fire in the order of their due times: the window's (300 ms after the first
      // write) before this end.
      setTimeout(() => sender.end(), 600)
    }, 300)
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4)
    assert.equal(firstWrittenWithin, '8\r\n{"n":1}\n\r\n'.length)
    assert.equal(body, '8\r\n{"n":1}\n\r\n10\r\n{"n":2}\n{"n":3}\n\r\n0\r\n\r\n')
  })

  it('a frame sent after the window has passed is written at once, without waiting', async () => {
    let secondWrittenWithin: number | undefined
    const raw = await rawStream((sender, res) => {
      sender.send(Buffer.from('{"n":1}\n'), true)
      setTimeout(() => {
        const before = res.socket!.bytesWritten
        sender.send(Buffer.from('{"n":2}\n'), true)
        // Written at the end of this turn (setImmediate), not by the window's timer.
        setImmediate(() => {
          secondWrittenWithin = res.socket!.bytesWritten - before
          sender.end()
        })
      }, 120)
    }, 100)
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4)
    assert.equal(secondWrittenWithin, '8\r\n{"n":2}\n\r\n'.length)
    assert.equal(body, '8\r\n{"n":1}\n\r\n8\r\n{"n":2}\n\r\n0\r\n\r\n')
  })

  it('while the event loop is busy, the longer window holds frames of later turns and they leave together', async () => {
    let heldBack: number | undefined
    const raw = await rawStream(
      (sender, res) => {
        sender.send(Buffer.from('{"n":1}\n'), true)
        setImmediate(() => {
          // The loop busy for 150 ms: more than half of the period the next frame judges it by.
          const until = performance.now() + 150
          while (performance.now() < until);
          const before = res.socket!.bytesWritten
          sender.send(Buffer.from('{"n":2}\n'), true)
          setImmediate(() => {
            sender.send(Buffer.from('{"n":3}\n'), false)
            heldBack = res.socket!.bytesWritten - before
          })
          setTimeout(() => sender.end(), 800)
        })
      },
      1,
      400,
    )
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4)
    // The short window (1 ms) had long passed: only the busy window held frame 2 back.
    assert.equal(heldBack, 0)
    assert.equal(body, '8\r\n{"n":1}\n\r\n10\r\n{"n":2}\n{"n":3}\n\r\n0\r\n\r\n')
  })

  it('while the event loop is idle, the busy window does not apply', async function () {
    // "Idle" is this process's own loop: in the whole suite, work left by earlier tests can keep
    // it busy through the 150 ms; a retry gets an idle one (a broken window fails every try).
    this.retries(2)
    let writtenWithin: number | undefined
    const raw = await rawStream(
      (sender, res) => {
        sender.send(Buffer.from('{"n":1}\n'), true)
        // 150 ms of an idle loop, well within the busy window (400 ms) of the first write.
        setTimeout(() => {
          const before = res.socket!.bytesWritten
          sender.send(Buffer.from('{"n":2}\n'), true)
          setImmediate(() => {
            writtenWithin = res.socket!.bytesWritten - before
            sender.end()
          })
        }, 150)
      },
      1,
      400,
    )
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4)
    assert.equal(writtenWithin, '8\r\n{"n":2}\n\r\n'.length)
    assert.equal(body, '8\r\n{"n":1}\n\r\n8\r\n{"n":2}\n\r\n0\r\n\r\n')
  })

  it('end() writes what still waits before the last chunk', async () => {
    const raw = await rawStream((sender) => {
      sender.send(Buffer.from('{"type":"ERROR"}\n'), false)
      sender.end()
    })
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4)
    assert.equal(body, '11\r\n{"type":"ERROR"}\n\r\n0\r\n\r\n')
  })

  it("a shared frame's chunk is made once and is the same Buffer for every watcher", () => {
    const frame = Buffer.from('{"type":"ADDED"}\n')
    const a = chunkOf(frame, true)
    assert.equal(chunkOf(frame, true), a)
    assert.equal(a.toString(), '11\r\n{"type":"ADDED"}\n\r\n')
    assert.notEqual(chunkOf(frame, false), a)
  })

  it('a batch of the same frames (the same Buffers, in order) is one chunk for every watcher; other frames make their own', () => {
    const a = Buffer.from('{"n":1}\n')
    const b = Buffer.from('{"n":2}\n')
    const first = chunkOfBatch([a, b], a.length + b.length)
    assert.equal(first.toString(), '10\r\n{"n":1}\n{"n":2}\n\r\n')
    assert.equal(chunkOfBatch([a, b], a.length + b.length), first)
    // Equal bytes in other Buffers, another order, or another count: made again.
    const c = Buffer.from('{"n":2}\n')
    assert.notEqual(chunkOfBatch([a, c], a.length + c.length), first)
    assert.equal(chunkOfBatch([b, a], a.length + b.length).toString(), '10\r\n{"n":2}\n{"n":1}\n\r\n')
    assert.equal(chunkOfBatch([a], a.length).toString(), '8\r\n{"n":1}\n\r\n')
  })

  it('a watcher whose frames fill a TLS record is written at once, not held for the window', async () => {
    const big = Buffer.from(`${'x'.repeat(20_000)}\n`)
    let writtenWithin: number | undefined
    const raw = await rawStream((sender, res) => {
      sender.send(Buffer.from('{"n":1}\n'), true)
      setImmediate(() => {
        // Within the (long) window of the first write: a large frame still goes this turn.
        const before = res.socket!.bytesWritten
        sender.send(big, true)
        setImmediate(() => {
          writtenWithin = res.socket!.bytesWritten - before
          sender.end()
        })
      })
    }, 60_000)
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4)
    assert.equal(writtenWithin, big.length + `${big.length.toString(16)}\r\n\r\n`.length)
    assert.equal(body, `8\r\n{"n":1}\n\r\n${big.length.toString(16)}\r\n${big.toString()}\r\n0\r\n\r\n`)
  })
})
