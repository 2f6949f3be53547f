/**
 * Slow watchers (issue 13 item 8): a watcher that stops reading is closed once its buffer
 * stays full, as the reference's cacheWatcher does ("Forcing ... watcher close due to
 * unresponsiveness"), over HTTP/1.1 and HTTP/2; one that reads gets every event; and the
 * server's memory comes back once the slow watchers are gone.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { connect as http2Connect } from 'node:http2'
import { request as httpsRequest } from 'node:https'
import type { IncomingMessage } from 'node:http'
import { ApiServer } from '../../support/api-server.js'
import { createConfigMaps } from '../../support/bulk-configmaps.js'
import { describeEachStore } from '../../support/stores.js'

const PATH = '/api/v1/namespaces/default/configmaps'

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(m![1]) / 1024
}

/** A watch over HTTP/1.1 whose client does not read until `resume()`; counts events and the end. */
function pausedWatch1(server: ApiServer, resourceVersion: string) {
  const state = { events: 0, ended: false, res: undefined as IncomingMessage | undefined }
  const opened = new Promise<void>((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port: server.port, path: `${PATH}?watch=1&resourceVersion=${resourceVersion}`, agent: false, rejectUnauthorized: false, ...server.tlsClient() },
      (res) => {
        state.res = res
        res.pause()
        let partial = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          partial += chunk
          const lines = partial.split('\n')
          partial = lines.pop()!
          state.events += lines.filter((l) => l !== '').length
        })
        res.on('end', () => (state.ended = true))
        res.on('error', () => (state.ended = true))
        resolve()
      },
    )
    req.on('error', reject)
    req.end()
  })
  return { state, opened, resume: () => state.res?.resume() }
}

/** The same over HTTP/2: a paused stream keeps the server within its flow-control window. */
function pausedWatch2(server: ApiServer, resourceVersion: string) {
  const state = { events: 0, ended: false }
  const session = http2Connect(`https://127.0.0.1:${server.port}`, { rejectUnauthorized: false, ...server.tlsClient() })
  session.on('error', () => {})
  const stream = session.request({ ':path': `${PATH}?watch=1&resourceVersion=${resourceVersion}` })
  stream.pause()
  let partial = ''
  stream.setEncoding('utf8')
  stream.on('data', (chunk: string) => {
    partial += chunk
    const lines = partial.split('\n')
    partial = lines.pop()!
    state.events += lines.filter((l) => l !== '').length
  })
  stream.on('end', () => (state.ended = true))
  stream.on('error', () => (state.ended = true))
  const opened = new Promise<void>((resolve) => stream.once('response', () => resolve()))
  return { state, opened, resume: () => stream.resume(), close: () => session.destroy() }
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describeEachStore('slow watchers', 'slow-watchers', function (store) {
  this.timeout(240_000)
  let server: ApiServer

  before(async function () {
    this.timeout(60_000)
    server = await ApiServer.start({ args: [...store.args, '-v=1'], waitFor: 'ready' })
  })
  after(async () => {
    await server?.stop()
  })

  it('closes watchers that stop reading, over HTTP/1.1 and HTTP/2, keeps one that reads, and memory comes back', async () => {
    const start = JSON.parse((await server.get(PATH)).body).metadata.resourceVersion as string
    const idle = rssMiB(server.pid)
    const count = 1200
    const slow1 = pausedWatch1(server, start)
    const slow2 = pausedWatch2(server, start)
    const reader = pausedWatch1(server, start)
    await Promise.all([slow1.opened, slow2.opened, reader.opened])
    reader.resume()

    // 1200 events of 20 kB: far more than the kernel's socket buffers and the watchers' buffers hold.
    await createConfigMaps(server, { prefix: 'slow', count, bytes: 20_000 })
    await until('the reading watcher to see every event', () => reader.state.events === count, 60_000)
    const peak = rssMiB(server.pid)

    // The slow ones were closed: once they read again they get what was sent, then the end.
    slow1.resume()
    slow2.resume()
    await until('the slow watchers to end', () => slow1.state.ended && slow2.state.ended, 30_000)
    assert.ok(slow1.state.events < count, `the HTTP/1.1 slow watcher got ${slow1.state.events} of ${count} events`)
    assert.ok(slow2.state.events < count, `the HTTP/2 slow watcher got ${slow2.state.events} of ${count} events`)
    assert.equal(reader.state.ended, false, 'the reading watcher is still open')
    // The reference's "Forcing ... watcher close" log line is not asserted: the watchers can also
    // end by the transport's own limits before a buffer fills (an open question, closing note of
    // 2026-11-26); the behaviour above (closed, re-list needed, the reader kept) is what counts.
    slow2.close()
    reader.state.res?.destroy()

    // Memory: nothing of the closed watchers is kept (generous bounds: a busy, shared machine).
    let after = Infinity
    for (let i = 0; i < 20 && after > 2 * idle + 100; i++) {
      await new Promise((r) => setTimeout(r, 500))
      after = Math.min(after, rssMiB(server.pid))
    }
    assert.ok(after < 2 * idle + 100, `RSS after ${after.toFixed(0)} MiB (idle ${idle.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB)`)
  })
})
