/**
 * The relay of an upgraded connection (exec, attach, port-forward through a node agent or an
 * extension server): the request head and the client's early bytes reach the backend first,
 * then bytes flow both ways untouched; with --max-connection-bytes-per-sec the backend's answer
 * is paced, so it cannot arrive sooner than bytes / rate seconds less the first tenth of a
 * second's worth. Only that lower bound is asserted: a loaded machine makes things later, never
 * earlier.
 */
import assert from 'node:assert/strict'
import { Duplex, PassThrough } from 'node:stream'
import { relayUpgrade } from '../../../src/server/http/upgrade.js'

/** Two connected ends: what one writes the other reads. */
function pair(): [Duplex, Duplex] {
  const ab = new PassThrough()
  const ba = new PassThrough()
  const ends: [Duplex, Duplex] = [Duplex.from({ readable: ba, writable: ab }), Duplex.from({ readable: ab, writable: ba })]
  // Ending a test ends one side at once; what that aborts on the other is expected.
  for (const end of ends) end.on('error', () => undefined)
  return ends
}

/** Reads `stream` until `count` bytes came; the bytes and the milliseconds it took. */
function readBytes(stream: Duplex, count: number): Promise<{ data: Buffer; elapsedMs: number }> {
  const started = Date.now()
  const chunks: Buffer[] = []
  let total = 0
  return new Promise((resolve) => {
    stream.on('data', (d: Buffer) => {
      chunks.push(d)
      total += d.length
      if (total >= count) resolve({ data: Buffer.concat(chunks), elapsedMs: Date.now() - started })
    })
  })
}

describe('server: the relay of upgraded connections', function () {
  this.timeout(20_000)

  it('writes the request head and the early bytes first, then relays both ways', async () => {
    const [clientSide, client] = pair()
    const [backendSide, backend] = pair()
    const relayed = relayUpgrade({ socket: clientSide, head: Buffer.from('early') }, backendSide, 'GET /exec HTTP/1.1\r\n\r\n')
    const atBackend = readBytes(backend, 'GET /exec HTTP/1.1\r\n\r\nearly'.length + 5)
    client.write('stdin')
    assert.equal((await atBackend).data.toString(), 'GET /exec HTTP/1.1\r\n\r\nearlystdin')
    const atClient = readBytes(client, 6)
    backend.write('stdout')
    assert.equal((await atClient).data.toString(), 'stdout')
    backend.destroy()
    await relayed
  })

  it('paces the backend answer to the connection rate', async () => {
    const rate = 20_000
    const size = 12_000
    const [clientSide, client] = pair()
    const [backendSide, backend] = pair()
    const relayed = relayUpgrade({ socket: clientSide, head: Buffer.alloc(0), bytesPerSec: rate }, backendSide, 'GET / HTTP/1.1\r\n\r\n')
    const payload = Buffer.alloc(size, 'x')
    const atClient = readBytes(client, size)
    backend.write(payload)
    const { data, elapsedMs } = await atClient
    assert.ok(data.equals(payload), 'every byte, in order')
    const floorMs = (size / rate - 0.1) * 1000
    assert.ok(elapsedMs >= floorMs - 5, `${size} bytes at ${rate}/s took ${elapsedMs} ms, less than the ${floorMs} ms the rate allows`)
    backend.destroy()
    await relayed
  })

  it('does not pace without a rate', async () => {
    const [clientSide, client] = pair()
    const [backendSide, backend] = pair()
    const relayed = relayUpgrade({ socket: clientSide, head: Buffer.alloc(0) }, backendSide, 'GET / HTTP/1.1\r\n\r\n')
    const payload = Buffer.alloc(12_000, 'y')
    const atClient = readBytes(client, payload.length)
    backend.write(payload)
    assert.ok((await atClient).data.equals(payload))
    backend.destroy()
    await relayed
  })
})
