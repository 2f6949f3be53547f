/**
 * Handler behaviour beyond the research table: concurrency with ordered output, the
 * hasBeenReady signal, recorded results for metrics, methods, the empty registry, and
 * checks that misbehave.
 */
import assert from 'node:assert/strict'
import type { HealthCheck } from '../../../src/server/health/check.js'
import { healthHandlers } from '../../../src/server/health/handler.js'
import { HealthRegistry } from '../../../src/server/health/registry.js'
import { CheckResults } from '../../../src/server/health/results.js'
import { LifecycleSignals } from '../../../src/server/lifecycle/signals.js'
import { FakeCheck, FakeClock, PASSED, assertReply, assertTextHeaders, fixtureS, startServer, waitFor } from './harness.js'

/**
 * Checks that each wait until all of them have started, then finish in the order given: run one
 * after another, the first would wait for the others forever (and the request time out), so the
 * test shows they run concurrently without measuring time.
 */
function resolvable(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {}
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

function rendezvous(names: string[], finishOrder: string[], finished: string[]): HealthCheck[] {
  let started = 0
  let allStarted: () => void = () => {}
  const everyoneIn = new Promise<void>((resolve) => (allStarted = resolve))
  const turns = new Map(finishOrder.map((n) => [n, resolvable()]))
  return names.map((name) => ({
    name,
    check: async () => {
      if (++started === names.length) allStarted()
      await everyoneIn
      const position = finishOrder.indexOf(name)
      if (position > 0) await turns.get(finishOrder[position - 1]!)!.promise
      finished.push(name)
      turns.get(name)!.resolve()
    },
  }))
}

describe('health handler', () => {
  it('runs checks concurrently but lists them in registration order', async () => {
    const finished: string[] = []
    const registry = new HealthRegistry()
    for (const check of rendezvous(['slow', 'medium', 'fast'], ['fast', 'medium', 'slow'], finished)) registry.addToAll(check)
    const server = await startServer(healthHandlers(registry))
    try {
      const r = await server.get('/readyz?verbose')
      assertReply(r, 200, `[+]slow ok\n[+]medium ok\n[+]fast ok\n${PASSED}`)
      assert.deepEqual(finished, ['fast', 'medium', 'slow'])
    } finally {
      await server.close()
    }
  })

  it('a hanging check holds only its own request; other endpoints answer', async () => {
    const f = await fixtureS()
    try {
      f.log.mode = 'hang'
      const stuck = f.get('/livez')
      await waitFor(() => f.log.calls === 1, 'the hanging log check')
      assertReply(await f.get('/readyz/store'), 200, 'ok')
      f.log.release()
      assertReply(await stuck, 200, 'ok')
    } finally {
      await f.close()
    }
  })

  it('signals hasBeenReady the first time /readyz passes, not on other words, individual checks or failures', async () => {
    const f = await fixtureS()
    try {
      await f.get('/livez')
      await f.get('/healthz?verbose')
      await f.get('/readyz/ping')
      f.store.fail('down')
      assert.equal((await f.get('/readyz')).status, 500)
      assert.equal(f.signals.hasBeenReady.signalled, false)
      f.store.mode = 'pass'
      assertReply(await f.get('/readyz?verbose'), 200, `[+]ping ok\n[+]log ok\n[+]store ok\n[+]poststarthook/demo ok\n[+]shutdown ok\n${PASSED}`)
      assert.equal(f.signals.hasBeenReady.signalled, true)
    } finally {
      await f.close()
    }
  })

  it('records each run\'s last result, latency and counts per word; excluded checks are not recorded', async () => {
    const clock = new FakeClock(42)
    const registry = new HealthRegistry()
    const store = new FakeCheck('store')
    registry.addToAll(store)
    registry.addToAll(new FakeCheck('skipped'))
    const handlers = healthHandlers(registry, { results: new CheckResults(clock.clock) })
    const server = await startServer(handlers)
    try {
      await server.get('/livez?exclude=skipped')
      store.fail('down')
      await server.get('/livez/store')
      await server.get('/readyz?exclude=skipped')
      const results = handlers.lastResults()
      assert.deepEqual(
        results.map(({ latencyMs: _l, ...rest }) => rest),
        [
          { word: 'livez', name: 'store', ok: false, error: 'down', at: 42, successes: 1, failures: 1 },
          { word: 'readyz', name: 'store', ok: false, error: 'down', at: 42, successes: 0, failures: 1 },
        ],
      )
      for (const r of results) assert.ok(Number.isFinite(r.latencyMs) && r.latencyMs >= 0, `latency ${r.latencyMs}`)
    } finally {
      await server.close()
    }
  })

  it('measures latency of slow checks', async () => {
    // The check times itself; the handler's measurement encloses the check, so it is no shorter.
    let own = 0
    const registry = new HealthRegistry()
    registry.addToAll({
      name: 'slow',
      check: async () => {
        const start = performance.now()
        await new Promise((resolve) => setTimeout(resolve, 60))
        own = performance.now() - start
      },
    })
    const handlers = healthHandlers(registry)
    const server = await startServer(handlers)
    try {
      await server.get('/readyz')
      const [r] = handlers.lastResults()
      assert.ok(own > 0)
      assert.ok(r.latencyMs >= own, `latency ${r.latencyMs} ms, but the check itself took ${own} ms`)
    } finally {
      await server.close()
    }
  })

  it('HEAD and POST run the checks like GET (HEAD without a body)', async () => {
    const f = await fixtureS()
    try {
      f.store.fail('down')
      const head = await f.get('/readyz', 'HEAD')
      assertReply(head, 500, '')
      assertTextHeaders(head)
      const post = await f.get('/livez', 'POST')
      assert.equal(post.status, 500)
      assert.equal(f.store.calls, 2)
    } finally {
      await f.close()
    }
  })

  it('a group matched only as a group is not reported as unknown; name matches win over group matches', async () => {
    const registry = new HealthRegistry()
    const a = new FakeCheck('backend-a', 'backends')
    const b = new FakeCheck('backend-b', 'backends')
    registry.addToAll(a)
    registry.addToAll(b)
    const server = await startServer(healthHandlers(registry))
    try {
      assertReply(
        await server.get('/livez?verbose&exclude=backends'),
        200,
        `[+]backend-a excluded with backends: ok\n[+]backend-b excluded with backends: ok\n${PASSED}`,
      )
      assertReply(
        await server.get('/livez?verbose&exclude=backends&exclude=backend-b'),
        200,
        `[+]backend-a excluded with backends: ok\n[+]backend-b excluded: ok\n${PASSED}`,
      )
      assert.deepEqual([a.calls, b.calls], [0, 0])
    } finally {
      await server.close()
    }
  })

  it('an empty registry serves a single ping check', async () => {
    const server = await startServer(healthHandlers(new HealthRegistry()))
    try {
      assertReply(await server.get('/readyz?verbose'), 200, `[+]ping ok\n${PASSED}`)
      assertReply(await server.get('/livez/ping'), 200, 'ok')
      assertReply(await server.get('/healthz/log'), 404, '404 page not found\n')
    } finally {
      await server.close()
    }
  })

  it('a check that throws synchronously or rejects with a non-Error fails with its text', async () => {
    const registry = new HealthRegistry()
    registry.addToAll({
      name: 'sync',
      check: () => {
        throw new Error('sync boom')
      },
    })
    registry.addToAll({ name: 'text', check: () => Promise.reject('plain text') })
    const logs: Array<[number, string]> = []
    const server = await startServer(healthHandlers(registry, { log: (l, m) => logs.push([l, m]) }))
    try {
      assertReply(await server.get('/livez'), 500, '[-]sync failed: reason withheld\n[-]text failed: reason withheld\nlivez check failed\n')
      assertReply(await server.get('/livez/sync'), 500, 'internal server error: sync boom\n')
      assertReply(await server.get('/livez/text'), 500, 'internal server error: plain text\n')
      assert.deepEqual(logs, [[2, 'sync,text check failed: livez\n[-]sync failed: sync boom\n[-]text failed: plain text\n']])
    } finally {
      await server.close()
    }
  })

  it('serve() answers only its own word', async () => {
    const registry = new HealthRegistry()
    registry.addToAll(new FakeCheck('store'))
    const handlers = healthHandlers(registry, { signals: new LifecycleSignals() })
    const url = new URL('http://127.0.0.1/readyz')
    const fakeRes = {} as never
    assert.equal(await handlers.serve('livez', { url: '/readyz' } as never, fakeRes, url), false)
    assert.equal(await handlers.serve('livez', { url: '/livez/nope' } as never, fakeRes, url), false)
    assert.equal(await handlers.handle({ url: '/metrics' } as never, fakeRes, url), false)
  })
})
