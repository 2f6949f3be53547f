import assert from 'node:assert/strict'
import { existsSync, linkSync, lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Mux } from '../../../src/server/http/mux.js'
import { serveDebugSocket, type DebugSocket } from '../../../src/server/paths/debug-socket.js'
import { installPprof } from '../../../src/server/paths/pprof.js'
import { send } from './harness.js'

function listen(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy())
    server.once('error', reject)
    server.listen(path, () => resolve(server))
  })
}

function closeNet(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()))
}

describe('server paths: debug socket', () => {
  let dir: string
  let socketPath: string
  let debug: DebugSocket | undefined
  const pprofMux = () => installPprof(new Mux(), { argv: ['client', 'server', 'start'] }).serve

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'debug-socket-'))
    socketPath = join(dir, 'debug.sock')
  })
  afterEach(async () => {
    await debug?.close()
    debug = undefined
    rmSync(dir, { recursive: true, force: true })
  })

  it('serves the pprof handlers over plain HTTP on the unix socket', async () => {
    debug = await serveDebugSocket(socketPath, pprofMux())
    assert.ok(lstatSync(socketPath).isSocket())
    const cmdline = await send('/debug/pprof/cmdline', { socketPath })
    assert.equal(cmdline.status, 200)
    assert.equal(cmdline.text, 'client\0server\0start')
    const index = await send('/debug/pprof/', { socketPath })
    assert.equal(index.status, 200)
    assert.match(index.text, /<a href='profile'>profile<\/a>/)
    const other = await send('/metrics', { socketPath })
    assert.equal(other.status, 404)
  })

  it('removes the socket file on close', async () => {
    debug = await serveDebugSocket(socketPath, pprofMux())
    await debug.close()
    assert.equal(existsSync(socketPath), false)
    await assert.rejects(send('/debug/pprof/', { socketPath }), /ENOENT|ECONNREFUSED/)
  })

  it('replaces a stale socket file left by an earlier run', async () => {
    // A socket nobody listens on: a second name for a socket, kept after its server closed.
    const other = join(dir, 'other.sock')
    const old = await listen(other)
    linkSync(other, socketPath)
    await closeNet(old)
    assert.ok(lstatSync(socketPath).isSocket(), 'the stale socket is there')
    debug = await serveDebugSocket(socketPath, pprofMux())
    assert.equal((await send('/debug/pprof/cmdline', { socketPath })).status, 200)
  })

  it('refuses a socket another server still listens on', async () => {
    const live = await listen(socketPath)
    try {
      await assert.rejects(serveDebugSocket(socketPath, pprofMux()), /debug socket path .*debug\.sock: another server is listening on it/)
      assert.ok(lstatSync(socketPath).isSocket(), 'left alone')
    } finally {
      await closeNet(live)
    }
  })

  it('refuses to replace a path that is not a socket', async () => {
    writeFileSync(socketPath, 'precious')
    await assert.rejects(serveDebugSocket(socketPath, pprofMux()), /exists and is not a socket/)
    assert.equal(readFileSync(socketPath, 'utf8'), 'precious')
  })

  it('says clearly when the directory does not exist', async () => {
    const missing = join(dir, 'no-such-dir', 'debug.sock')
    await assert.rejects(serveDebugSocket(missing, pprofMux()), (err: Error) => {
      assert.equal(err.message, `debug socket path ${missing}: directory ${join(dir, 'no-such-dir')} does not exist`)
      return true
    })
  })

  it('answers a handler that throws with 500', async () => {
    debug = await serveDebugSocket(socketPath, () => {
      throw new Error('boom')
    })
    const reply = await send('/debug/pprof/', { socketPath })
    assert.equal(reply.status, 500)
    assert.equal(reply.text, 'Internal Server Error\n')
  })
})
