import assert from 'node:assert/strict'
import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { WatchSender } from '../../../../src/server/api/handlers/watch-sender.js'
import { chunkOf } from '../../../../src/server/api/handlers/watch-connection.js'

/** An HTTP/1.1 server whose one response is a chunked stream fed by `feed`; returns the raw bytes a client read. */
async function rawStream(feed: (sender: WatchSender, res: http.ServerResponse) => void): Promise<string> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.flushHeaders()
    feed(new WatchSender(res, () => {}), res)
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

  it('frames of different turns are separate chunks, in order', async () => {
    const raw = await rawStream((sender) => {
      sender.send(Buffer.from('{"n":1}\n'), true)
      setTimeout(() => {
        sender.send(Buffer.from('{"n":22}\n'), false)
        setTimeout(() => sender.end(), 20)
      }, 20)
    })
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4)
    assert.equal(body, '8\r\n{"n":1}\n\r\n9\r\n{"n":22}\n\r\n0\r\n\r\n')
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
})
