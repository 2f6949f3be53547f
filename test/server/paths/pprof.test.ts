import assert from 'node:assert/strict'
import { Mux } from '../../../src/server/http/mux.js'
import type { Handler } from '../../../src/server/http/types.js'
import { cpuProfileInProgress, installPprof, pprofHandlers, processCommandLine } from '../../../src/server/paths/pprof.js'
import { send, serve, sleep, type TestServer } from './harness.js'

const BAD_SECONDS = 'invalid value for "seconds" - must be a positive integer\n'

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await sleep(10)
  }
}

describe('server paths: pprof', () => {
  let server: TestServer
  const get = (path: string) => send(path, { port: server.port })

  describe('with contention profiling off', () => {
    before(async () => {
      server = await serve(installPprof(new Mux()).serve)
    })
    after(() => server.close())

    it('serves an index page listing the profiles, as Go does', async () => {
      const reply = await get('/debug/pprof/')
      assert.equal(reply.status, 200)
      assert.equal(reply.headers['content-type'], 'text/html; charset=utf-8')
      assert.match(reply.text, /^<html>\n<head>\n<title>\/debug\/pprof\/<\/title>/)
      const links = [...reply.text.matchAll(/<a href='([^']+)'>/g)].map((m) => m[1])
      assert.deepEqual(links, ['cmdline', 'goroutine', 'heap', 'profile'])
      assert.match(reply.text, /<li><div class=profile-name>heap: <\/div> /)
      assert.ok(reply.text.endsWith('</html>'))
    })

    it('redirects /debug/pprof to the index', async () => {
      const reply = await get('/debug/pprof')
      assert.equal(reply.status, 302)
      assert.equal(reply.headers.location, '/debug/pprof/')
    })

    it('answers an unknown profile with Go\'s 404', async () => {
      for (const name of ['nothing', 'block', 'mutex']) {
        const reply = await get(`/debug/pprof/${name}`)
        assert.equal(reply.status, 404, name)
        assert.equal(reply.text, 'Unknown profile\n')
        assert.equal(reply.headers['x-go-pprof'], '1')
      }
    })

    it('takes a real CPU profile of the process for ?seconds=1', async function () {
      this.timeout(10000)
      const started = Date.now()
      const pending = get('/debug/pprof/profile?seconds=1')
      // Some work for the profiler to see.
      let x = 0
      while (Date.now() - started < 200) x += Math.sqrt(x + 1)
      const reply = await pending
      assert.equal(reply.status, 200)
      assert.equal(reply.headers['content-type'], 'application/octet-stream')
      assert.equal(reply.headers['content-disposition'], 'attachment; filename="profile"')
      assert.equal(Number(reply.headers['content-length']), reply.body.length)
      const profile = JSON.parse(reply.text) as { nodes: Array<{ id: number; callFrame: { functionName: string } }>; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }
      assert.ok(Array.isArray(profile.nodes) && profile.nodes.length > 1, 'call tree nodes')
      assert.ok(Array.isArray(profile.samples) && profile.samples.length > 0, 'samples')
      assert.equal(profile.timeDeltas.length, profile.samples.length)
      // It ran for the second asked: the profile's own clock says so (the test's clock cannot, on a loaded machine).
      assert.ok(profile.endTime - profile.startTime >= 900_000, `profiled ${profile.endTime - profile.startTime}µs`)
      assert.ok(profile.nodes.some((n) => n.callFrame.functionName === '(root)'))
      assert.equal(cpuProfileInProgress(), false)
    })

    it('refuses a seconds value that is not a positive integer with 400', async () => {
      for (const s of ['0', '-1', '1.5', 'abc', '1e3', ' 2']) {
        const reply = await get(`/debug/pprof/profile?seconds=${encodeURIComponent(s)}`)
        assert.equal(reply.status, 400, s)
        assert.equal(reply.text, BAD_SECONDS)
        assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8')
        assert.equal(reply.headers['content-disposition'], undefined)
      }
      assert.equal(cpuProfileInProgress(), false)
    })

    it('refuses a second CPU profile while one is running with Go\'s 500', async function () {
      this.timeout(10000)
      const first = get('/debug/pprof/profile?seconds=1')
      await until(cpuProfileInProgress)
      const second = await get('/debug/pprof/profile?seconds=1')
      assert.equal(second.status, 500)
      assert.equal(second.text, 'Could not enable CPU profiling: cpu profiling already in use\n')
      assert.equal(second.headers['x-go-pprof'], '1')
      const firstReply = await first
      assert.equal(firstReply.status, 200)
      assert.ok(Array.isArray(JSON.parse(firstReply.text).samples))
    })

    it('stops a profile whose client went away, freeing the profiler', async function () {
      this.timeout(10000)
      const controller = new AbortController()
      const abandoned = send('/debug/pprof/profile?seconds=30', { port: server.port, signal: controller.signal }).catch(() => 'aborted')
      await until(cpuProfileInProgress)
      controller.abort()
      assert.equal(await abandoned, 'aborted')
      await until(() => !cpuProfileInProgress(), 3000)
      const next = await get('/debug/pprof/profile?seconds=1')
      assert.equal(next.status, 200)
    })

    it('streams a V8 heap snapshot', async function () {
      this.timeout(60000)
      const reply = await get('/debug/pprof/heap')
      assert.equal(reply.status, 200)
      assert.equal(reply.headers['content-type'], 'application/octet-stream')
      assert.equal(reply.headers['content-disposition'], 'attachment; filename="heap"')
      assert.equal(reply.headers['content-length'], undefined, 'streamed, not buffered')
      const snapshot = JSON.parse(reply.text) as { snapshot: { meta: { node_fields: string[] }; node_count: number }; nodes: number[]; strings: string[] }
      assert.ok('snapshot' in snapshot)
      assert.ok(snapshot.snapshot.node_count > 0)
      assert.equal(snapshot.nodes.length, snapshot.snapshot.node_count * snapshot.snapshot.meta.node_fields.length)
    })

    it('serves the command line NUL-separated, as Go writes os.Args', async () => {
      const reply = await get('/debug/pprof/cmdline')
      assert.equal(reply.status, 200)
      assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8')
      const args = reply.text.split('\0')
      assert.equal(args[0], process.execPath)
      assert.ok(args.includes(process.argv[1]), 'the script')
      assert.deepEqual(args, processCommandLine())
      assert.ok(!reply.text.endsWith('\0'))
    })

    it('dumps the active libuv handles and requests for goroutine', async () => {
      const reply = await get('/debug/pprof/goroutine')
      assert.equal(reply.status, 200)
      assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8')
      const m = /^goroutine profile: total (\d+)\n/.exec(reply.text)
      assert.ok(m, reply.text)
      const counts = [...reply.text.matchAll(/^(\d+) @ (\S+)$/gm)]
      assert.ok(counts.some((c) => c[2] === 'TCPServerWrap'), 'the listening server')
      assert.equal(counts.reduce((sum, c) => sum + Number(c[1]), 0), Number(m[1]))
    })
  })

  describe('with contention profiling on', () => {
    before(async () => {
      server = await serve(installPprof(new Mux(), { contentionProfiling: true, argv: ['/bin/client', 'server start', '--x=y'] }).serve)
    })
    after(() => server.close())

    it('lists block and mutex', async () => {
      const links = [...(await get('/debug/pprof/')).text.matchAll(/<a href='([^']+)'>/g)].map((m) => m[1])
      assert.deepEqual(links, ['block', 'cmdline', 'goroutine', 'heap', 'mutex', 'profile'])
    })

    it('serves the event-loop delay histogram for block and mutex', async () => {
      await sleep(50)
      for (const name of ['block', 'mutex']) {
        const reply = await get(`/debug/pprof/${name}`)
        assert.equal(reply.status, 200, name)
        assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8')
        assert.ok(reply.text.startsWith(`--- ${name}: event-loop delay\n`), reply.text)
        assert.match(reply.text, /^window: since \d{4}-/m)
        assert.match(reply.text, /^samples: \d+$/m)
        assert.match(reply.text, /^p99_ms: \d+\.\d{3}$/m)
      }
    })

    it('measures a fresh window for ?seconds=N, and sees the loop blocked', async function () {
      this.timeout(10000)
      const pending = get('/debug/pprof/block?seconds=1')
      await sleep(100)
      const blockedUntil = Date.now() + 150
      while (Date.now() < blockedUntil) {
        // Block the event loop for 150ms.
      }
      const reply = await pending
      assert.equal(reply.status, 200)
      assert.match(reply.text, /^window: last 1s$/m)
      const max = Number(/^max_ms: (\S+)$/m.exec(reply.text)?.[1])
      assert.ok(max >= 100, `max delay ${max}ms`)
      const bad = await get('/debug/pprof/mutex?seconds=0')
      assert.equal(bad.status, 400)
      assert.equal(bad.text, BAD_SECONDS)
    })

    it('serves the injected command line', async () => {
      assert.equal((await get('/debug/pprof/cmdline')).text, '/bin/client\0server start\0--x=y')
    })
  })

  it('refuses a profile longer than the request may run', async () => {
    const s = await serve(installPprof(new Mux()).serve, { deadlineMs: 5000 })
    try {
      const reply = await send('/debug/pprof/profile?seconds=10', { port: s.port })
      assert.equal(reply.status, 400)
      assert.equal(reply.text, "profile duration exceeds server's WriteTimeout\n")
      assert.equal(cpuProfileInProgress(), false)
    } finally {
      await s.close()
    }
  })

  it('lists its paths for a mux: exact per profile, the index as a prefix', () => {
    const table = pprofHandlers({ contentionProfiling: false }).map(([p, , kind]) => `${kind} ${p}`)
    assert.deepEqual(table.sort(), [
      'exact /debug/pprof',
      'exact /debug/pprof/cmdline',
      'exact /debug/pprof/goroutine',
      'exact /debug/pprof/heap',
      'exact /debug/pprof/profile',
      'prefix /debug/pprof/',
    ])
    const handlers: Handler[] = pprofHandlers().map(([, h]) => h)
    assert.ok(handlers.every((h) => typeof h === 'function'))
  })
})
