/**
 * The `store` check: research §11 cases 56–59 through the handler, and the reference's
 * rate limiting (one probe per timeout/2, burst 1, results stamped by send order).
 */
import assert from 'node:assert/strict'
import { mock } from 'node:test'
import { ping } from '../../../src/server/health/check.js'
import { healthHandlers } from '../../../src/server/health/handler.js'
import { HealthRegistry } from '../../../src/server/health/registry.js'
import { NOT_ESTABLISHED, TokenBucket, storeCheck, storeChecks } from '../../../src/server/health/store-check.js'
import type { NamedHealthCheck } from '../../../src/server/store/types.js'
import { FakeClock, assertReply, assertTextHeaders, startServer, waitFor, type TestServer } from './harness.js'

/** A probe stub that counts calls, records the timeouts it got, and passes, fails or hangs. */
class ProbeStub implements NamedHealthCheck {
  calls = 0
  timeouts: Array<number | undefined> = []
  mode: 'pass' | 'fail' | 'hang' = 'pass'
  failText = 'boom'
  private pending: Array<{ resolve: () => void; reject: (e: Error) => void }> = []

  constructor(readonly name: string) {}

  check(timeoutMs?: number): Promise<void> {
    this.calls++
    this.timeouts.push(timeoutMs)
    if (this.mode === 'fail') return Promise.reject(new Error(this.failText))
    if (this.mode === 'hang') return new Promise((resolve, reject) => this.pending.push({ resolve, reject }))
    return Promise.resolve()
  }

  /** Settles the oldest hanging call. */
  settleOldest(error?: string): void {
    const p = this.pending.shift()
    assert.ok(p, 'a hanging probe call')
    if (error === undefined) p.resolve()
    else p.reject(new Error(error))
  }
}

interface StoreFixture {
  health: ProbeStub[]
  ready: ProbeStub[]
  drained: { signalled: boolean }
  server: TestServer
}

async function storeFixture(options: { overrides?: number; healthTimeoutMs?: number; readyTimeoutMs?: number; clock?: FakeClock } = {}): Promise<StoreFixture> {
  const names = ['store', ...Array.from({ length: options.overrides ?? 0 }, (_, i) => `store-override-${i}`)]
  const health = names.map((n) => new ProbeStub(n))
  const ready = names.map((n) => new ProbeStub(`${n}-readiness`))
  const drained = { signalled: false }
  const checks = storeChecks({
    probes: { healthChecks: () => health, readyChecks: () => ready },
    healthTimeoutMs: options.healthTimeoutMs ?? 2_000,
    readyTimeoutMs: options.readyTimeoutMs ?? 2_000,
    drained,
    ...(options.clock ? { clock: options.clock.clock } : {}),
  })
  const registry = new HealthRegistry()
  registry.addToAll(ping)
  checks.health.forEach((c, i) => registry.addToAll(c, checks.ready[i]))
  return { health, ready, drained, server: await startServer(healthHandlers(registry)) }
}

describe('store check (research §11 #56–59)', () => {
  let s: StoreFixture
  afterEach(async () => {
    await s.server.close()
  })

  it('#56 while the first probe is in flight, /readyz/store is 500 "store client connection not yet established"', async () => {
    s = await storeFixture()
    s.ready[0].mode = 'hang'
    const first = s.server.get('/readyz/store')
    await waitFor(() => s.ready[0].calls === 1, 'the first probe')
    const second = await s.server.get('/readyz/store')
    assertReply(second, 500, `internal server error: ${NOT_ESTABLISHED}\n`)
    assertTextHeaders(second)
    s.ready[0].settleOldest()
    assertReply(await first, 200, 'ok')
    assert.equal(s.ready[0].calls, 1)
  })

  it('#57 5 × /readyz within 200 ms: all 200, the ready probe is called once, the health probe never', async () => {
    // A stopped clock: the whole burst falls within timeout/2, however long it really takes.
    const clock = new FakeClock()
    s = await storeFixture({ healthTimeoutMs: 2_000, readyTimeoutMs: 2_000, clock })
    const replies = await Promise.all(Array.from({ length: 5 }, () => s.server.get('/readyz')))
    assert.deepEqual(
      replies.map((r) => [r.status, r.body]),
      Array.from({ length: 5 }, () => [200, 'ok']),
    )
    assert.equal(s.ready[0].calls, 1)
    assert.equal(s.health[0].calls, 0)
  })

  it('#57 /healthz and /livez share one instance: 5 calls, one health probe', async () => {
    s = await storeFixture()
    for (const path of ['/healthz', '/livez', '/healthz', '/livez/store', '/healthz/store']) {
      assertReply(await s.server.get(path), 200, 'ok')
    }
    assert.equal(s.health[0].calls, 1)
    assert.equal(s.ready[0].calls, 0)
  })

  it('#57 after timeout/2 exactly one more probe (fake clock; boundary at timeout/2)', async () => {
    const clock = new FakeClock()
    s = await storeFixture({ readyTimeoutMs: 2_000, clock })
    await Promise.all(Array.from({ length: 5 }, () => s.server.get('/readyz')))
    assert.equal(s.ready[0].calls, 1)
    clock.advance(999)
    await Promise.all(Array.from({ length: 5 }, () => s.server.get('/readyz')))
    assert.equal(s.ready[0].calls, 1)
    clock.advance(1)
    await Promise.all(Array.from({ length: 5 }, () => s.server.get('/readyz')))
    assert.equal(s.ready[0].calls, 2)
  })

  it('probes get the health timeout on /healthz and /livez and the ready timeout on /readyz', async () => {
    s = await storeFixture({ healthTimeoutMs: 3_000, readyTimeoutMs: 7_000 })
    await s.server.get('/livez')
    await s.server.get('/readyz')
    assert.deepEqual([s.health[0].timeouts, s.ready[0].timeouts], [[3_000], [7_000]])
  })

  it('a failed probe reads "error getting data from store: <cause>", and rate-limited callers get it too', async () => {
    s = await storeFixture()
    s.ready[0].mode = 'fail'
    s.ready[0].failText = 'connection refused'
    const text = 'internal server error: error getting data from store: connection refused\n'
    assertReply(await s.server.get('/readyz/store'), 500, text)
    s.ready[0].mode = 'pass'
    // Limited: no probe, the stored failure.
    assertReply(await s.server.get('/readyz/store'), 500, text)
    const agg = await s.server.get('/readyz')
    assertReply(agg, 500, '[+]ping ok\n[-]store failed: reason withheld\nreadyz check failed\n')
    assert.equal(s.ready[0].calls, 1)
  })

  it('#58 after InFlightRequestsDrained: 500 "server is shutting down", no probe', async () => {
    s = await storeFixture()
    assertReply(await s.server.get('/livez/store'), 200, 'ok')
    s.drained.signalled = true
    const r = await s.server.get('/livez/store')
    assertReply(r, 500, 'internal server error: server is shutting down\n')
    assertTextHeaders(r)
    assertReply(await s.server.get('/readyz/store'), 500, 'internal server error: server is shutting down\n')
    assert.deepEqual([s.health[0].calls, s.ready[0].calls], [1, 0])
  })

  it('#59 exclude=store excludes store by name and store-override-0 by group, no warn line', async () => {
    s = await storeFixture({ overrides: 1 })
    const r = await s.server.get('/livez?verbose&exclude=store')
    assertReply(r, 200, '[+]ping ok\n[+]store excluded: ok\n[+]store-override-0 excluded with store: ok\nhealthz check passed\n')
    assertTextHeaders(r)
    assert.deepEqual([s.health[0].calls, s.health[1].calls], [0, 0])
  })

  it('exclude=store-override-0 excludes only the override, by name', async () => {
    s = await storeFixture({ overrides: 2 })
    const r = await s.server.get('/readyz?verbose&exclude=store-override-0')
    assertReply(
      r,
      200,
      '[+]ping ok\n[+]store ok\n[+]store-override-0 excluded: ok\n[+]store-override-1 ok\nhealthz check passed\n',
    )
    assert.deepEqual(
      s.ready.map((p) => p.calls),
      [1, 0, 1],
    )
  })

  it('/readyz/store-override-0 probes the override\'s readiness probe', async () => {
    s = await storeFixture({ overrides: 1, readyTimeoutMs: 1_500 })
    s.ready[1].mode = 'fail'
    s.ready[1].failText = 'override down'
    assertReply(await s.server.get('/readyz/store-override-0'), 500, 'internal server error: error getting data from store: override down\n')
    assertReply(await s.server.get('/livez/store-override-0'), 200, 'ok')
    assert.deepEqual(s.ready[1].timeouts, [1_500])
  })
})

describe('storeCheck rate limiting (unit)', () => {
  const hanging = (): { probe: (t: number) => Promise<void>; settle: Array<(err?: Error) => void>; calls: () => number } => {
    const settle: Array<(err?: Error) => void> = []
    let calls = 0
    return {
      probe: () => {
        calls++
        return new Promise<void>((resolve, reject) => settle.push((err) => (err ? reject(err) : resolve())))
      },
      settle,
      calls: () => calls,
    }
  }
  const tick = (): Promise<void> => new Promise((r) => setImmediate(r))

  it('is named as asked and in group store', () => {
    const c = storeCheck({ name: 'store-override-3', probe: async () => {}, timeoutMs: 2_000 })
    assert.deepEqual([c.name, c.group], ['store-override-3', 'store'])
  })

  it('before any probe completes, limited callers get "store client connection not yet established"', async () => {
    const clock = new FakeClock()
    const h = hanging()
    const c = storeCheck({ name: 'store', probe: h.probe, timeoutMs: 2_000, clock: clock.clock })
    const first = c.check()
    await tick()
    await assert.rejects(c.check(), { message: NOT_ESTABLISHED })
    h.settle[0]()
    await first
    await c.check() // limited: the stored success
    assert.equal(h.calls(), 1)
  })

  it('results are stamped by send order: an older probe finishing late does not overwrite a newer result', async () => {
    const clock = new FakeClock()
    const h = hanging()
    const c = storeCheck({ name: 'store', probe: h.probe, timeoutMs: 2_000, clock: clock.clock })
    const older = c.check()
    await tick()
    clock.advance(1_000)
    const newer = c.check()
    await tick()
    assert.equal(h.calls(), 2)
    h.settle[1](new Error('newer failed'))
    await assert.rejects(newer, { message: 'error getting data from store: newer failed' })
    h.settle[0]()
    await older // the caller that sent it gets its own result
    await assert.rejects(c.check(), { message: 'error getting data from store: newer failed' })
    assert.equal(h.calls(), 2)
  })

  it('the most recent COMPLETED probe counts: an in-flight newer probe does not hide an older result', async () => {
    const clock = new FakeClock()
    const h = hanging()
    const c = storeCheck({ name: 'store', probe: h.probe, timeoutMs: 2_000, clock: clock.clock })
    const first = c.check()
    await tick()
    h.settle[0](new Error('first failed'))
    await assert.rejects(first)
    clock.advance(1_000)
    const second = c.check() // sent, still in flight
    await tick()
    await assert.rejects(c.check(), { message: 'error getting data from store: first failed' })
    h.settle[1]()
    await second
    await c.check()
  })

  it('a probe that never answers fails after the timeout with "context deadline exceeded"', async () => {
    // Fake timers: the check fails exactly when its timeout runs out, not before.
    mock.timers.enable({ apis: ['setTimeout'] })
    try {
      const h = hanging()
      const c = storeCheck({ name: 'store', probe: h.probe, timeoutMs: 40 })
      let outcome: unknown = 'pending'
      const checking = c.check().then(
        () => (outcome = 'passed'),
        (e: Error) => (outcome = e.message),
      )
      mock.timers.tick(39)
      await tick()
      assert.equal(outcome, 'pending')
      mock.timers.tick(1)
      await checking
      assert.equal(outcome, 'error getting data from store: context deadline exceeded')
    } finally {
      mock.timers.reset()
    }
  })

  it('a probe that throws synchronously fails the check with its text', async () => {
    const c = storeCheck({
      name: 'store',
      probe: () => {
        throw new Error('no client')
      },
      timeoutMs: 2_000,
    })
    await assert.rejects(c.check(), { message: 'error getting data from store: no client' })
  })

  it('TokenBucket: burst 1, one token per interval', () => {
    const clock = new FakeClock()
    const b = new TokenBucket(1_000, clock.clock)
    assert.deepEqual([b.allow(), b.allow()], [true, false])
    clock.advance(500)
    assert.equal(b.allow(), false)
    clock.advance(499)
    assert.equal(b.allow(), false)
    clock.advance(1)
    assert.equal(b.allow(), true)
    clock.advance(10_000)
    assert.deepEqual([b.allow(), b.allow()], [true, false], 'the bucket holds one token at most')
  })

  it('storeChecks names checks after the liveness probes, stripping "-readiness"', () => {
    const probe = (name: string): NamedHealthCheck => ({ name, check: async () => {} })
    const { health, ready } = storeChecks({
      probes: {
        healthChecks: () => [probe('store'), probe('store-override-0')],
        readyChecks: () => [probe('store-readiness'), probe('store-override-0-readiness')],
      },
      healthTimeoutMs: 2_000,
      readyTimeoutMs: 2_000,
    })
    assert.deepEqual(
      [...health, ...ready].map((c) => `${c.name}/${c.group}`),
      ['store/store', 'store-override-0/store', 'store/store', 'store-override-0/store'],
    )
    assert.notEqual(health[0], ready[0])
  })
})
