/**
 * Research §11 cases 33–40 (unfinished post-start hooks, the livez grace period with a
 * fake clock) and the PostStartHooks registry itself.
 */
import assert from 'node:assert/strict'
import { PostStartHooks } from '../../../src/server/health/post-start-hooks.js'
import { HealthRegistry } from '../../../src/server/health/registry.js'
import { healthHandlers } from '../../../src/server/health/handler.js'
import { ping } from '../../../src/server/health/check.js'
import {
  FakeCheck,
  FakeClock,
  PASSED,
  assertPlainNoNosniff,
  assertReply,
  assertTextHeaders,
  fixtureS,
  startServer,
  type FixtureS,
} from './harness.js'

const LIVEZ_DEMO_FAILED = '[+]ping ok\n[+]log ok\n[+]store ok\n[-]poststarthook/demo failed: reason withheld\nlivez check failed\n'

describe('post-start hook checks and the livez grace period (research §11 #33–40)', () => {
  let f: FixtureS | undefined
  afterEach(async () => {
    await f?.close()
    f = undefined
  })

  describe('hook demo unfinished, grace 0', () => {
    beforeEach(async () => {
      f = await fixtureS({ hookFinished: false })
    })

    it('#33 /readyz/poststarthook/demo is 500 "internal server error: not finished"', async () => {
      const r = await f!.get('/readyz/poststarthook/demo')
      assertReply(r, 500, 'internal server error: not finished\n')
      assertTextHeaders(r)
    })

    it('#34 /livez is 500 with the demo line failed', async () => {
      const r = await f!.get('/livez')
      assertReply(r, 500, LIVEZ_DEMO_FAILED)
      assertTextHeaders(r)
    })

    it('once the hook finishes the check passes, and stays passing', async () => {
      await f!.finishDemo()
      for (let i = 0; i < 3; i++) {
        assertReply(await f!.get('/readyz/poststarthook/demo'), 200, 'ok')
        assertReply(await f!.get('/livez'), 200, 'ok')
      }
      assert.equal(f!.hooks.isFinished('demo'), true)
    })
  })

  describe('hook demo unfinished, grace 60 s', () => {
    const clock = new FakeClock()
    const registeredAt = clock.now
    beforeEach(async () => {
      clock.now = registeredAt
      f = await fixtureS({ hookFinished: false, graceMs: 60_000, clock })
      clock.now = registeredAt + 1_000
    })

    it('#35 at +1 s /livez?verbose passes with a normal "ok" line', async () => {
      const r = await f!.get('/livez?verbose')
      assertReply(r, 200, `[+]ping ok\n[+]log ok\n[+]store ok\n[+]poststarthook/demo ok\n${PASSED}`)
      assertTextHeaders(r)
    })

    it('#36 at +1 s /livez/poststarthook/demo is 200 "ok"', async () => {
      const r = await f!.get('/livez/poststarthook/demo')
      assertReply(r, 200, 'ok')
      assertPlainNoNosniff(r)
    })

    it('#37 at +1 s /healthz fails: no grace on healthz', async () => {
      const r = await f!.get('/healthz')
      assertReply(r, 500, '[+]ping ok\n[+]log ok\n[+]store ok\n[-]poststarthook/demo failed: reason withheld\nhealthz check failed\n')
      assertTextHeaders(r)
    })

    it('#38 at +1 s /readyz fails: no grace on readyz', async () => {
      const r = await f!.get('/readyz')
      assertReply(
        r,
        500,
        '[+]ping ok\n[+]log ok\n[+]store ok\n[-]poststarthook/demo failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n',
      )
      assertTextHeaders(r)
    })

    it('#39 at +61 s /livez fails as in #34', async () => {
      clock.now = registeredAt + 61_000
      const r = await f!.get('/livez')
      assertReply(r, 500, LIVEZ_DEMO_FAILED)
      assertTextHeaders(r)
    })
  })

  it('#40 fake clock, grace 10 s: exactly +10 s passes, +10.001 s fails (strictly after)', async () => {
    const clock = new FakeClock()
    const t0 = clock.now
    f = await fixtureS({ hookFinished: false, graceMs: 10_000, clock })
    clock.now = t0 + 10_000
    const atBoundary = await f.get('/livez')
    assertReply(atBoundary, 200, 'ok')
    assertTextHeaders(atBoundary)
    clock.now = t0 + 10_001
    const after = await f.get('/livez')
    assertReply(after, 500, LIVEZ_DEMO_FAILED)
    assertTextHeaders(after)
  })

  it('the grace clock starts at registration, and the wrapped check is not run inside it', async () => {
    const clock = new FakeClock()
    const registry = new HealthRegistry({ livezGracePeriodMs: 5_000, clock: clock.clock })
    clock.advance(3_000)
    const boot = new FakeCheck('autoregister-completion').fail('APIServices not available')
    registry.addBootSequenceCheck(boot)
    const server = await startServer(healthHandlers(registry))
    try {
      clock.advance(4_000) // 7 s after the registry was built, 4 s after registration
      assertReply(await server.get('/livez'), 200, 'ok')
      assert.equal(boot.calls, 0)
      assertReply(await server.get('/healthz/autoregister-completion'), 500, 'internal server error: APIServices not available\n')
      assert.equal(boot.calls, 1)
      clock.advance(1_001)
      assertReply(await server.get('/livez/autoregister-completion'), 500, 'internal server error: APIServices not available\n')
      assert.equal(boot.calls, 2)
    } finally {
      await server.close()
    }
  })

  it('checks added to all words (store) get no grace period on livez', async () => {
    const clock = new FakeClock()
    const registry = new HealthRegistry({ livezGracePeriodMs: 60_000, clock: clock.clock })
    registry.addToAll(ping)
    registry.addToAll(new FakeCheck('store', 'store').fail('down'))
    const server = await startServer(healthHandlers(registry))
    try {
      assertReply(await server.get('/livez'), 500, '[+]ping ok\n[-]store failed: reason withheld\nlivez check failed\n')
    } finally {
      await server.close()
    }
  })
})

describe('PostStartHooks', () => {
  const collect = (): { fatal: Array<[string, string]>; hooks: PostStartHooks } => {
    const fatal: Array<[string, string]> = []
    return { fatal, hooks: new PostStartHooks({ onFatal: (name, err) => fatal.push([name, err.message]) }) }
  }

  it('names the check poststarthook/<name>, which fails "not finished" until run() resolves', async () => {
    const { hooks } = collect()
    let finish!: () => void
    const check = hooks.add('rbac/bootstrap-roles', () => new Promise((r) => (finish = r)))
    assert.equal(check.name, 'poststarthook/rbac/bootstrap-roles')
    await assert.rejects(check.check(), { message: 'not finished' })
    const all = hooks.startAll()
    await assert.rejects(check.check(), { message: 'not finished' })
    finish()
    await all
    await check.check()
  })

  it('fails before startAll even if run() would succeed at once', async () => {
    const { hooks } = collect()
    let ran = false
    const check = hooks.add('x', async () => {
      ran = true
    })
    await assert.rejects(check.check(), { message: 'not finished' })
    assert.equal(ran, false)
  })

  it('starts every hook in parallel', async () => {
    const { hooks, fatal } = collect()
    let releaseA!: () => void
    const aWaits = new Promise<void>((r) => (releaseA = r))
    // a waits for b to have started: run serially, a would never finish.
    hooks.add('a', () => aWaits)
    hooks.add('b', async () => releaseA())
    await hooks.startAll()
    assert.deepEqual([hooks.isFinished('a'), hooks.isFinished('b'), fatal], [true, true, []])
  })

  it('a rejecting hook is fatal: onFatal(name, err), its check keeps failing, others finish', async () => {
    const { hooks, fatal } = collect()
    const bad = hooks.add('bad', () => Promise.reject(new Error('cannot bootstrap roles')))
    const good = hooks.add('good', async () => {})
    await hooks.startAll()
    assert.deepEqual(fatal, [['bad', 'cannot bootstrap roles']])
    await assert.rejects(bad.check(), { message: 'not finished' })
    await good.check()
  })

  it('a hook throwing synchronously or rejecting a non-Error is fatal too', async () => {
    const { hooks, fatal } = collect()
    hooks.add('sync', () => {
      throw new Error('sync boom')
    })
    hooks.add('string', () => Promise.reject('plain text'))
    await hooks.startAll()
    assert.deepEqual(fatal, [
      ['sync', 'sync boom'],
      ['string', 'plain text'],
    ])
  })

  it('refuses duplicate names and hooks added after start; startAll is idempotent', async () => {
    const { hooks } = collect()
    let runs = 0
    hooks.add('once', async () => {
      runs++
    })
    assert.throws(() => hooks.add('once', async () => {}), /already registered/)
    const first = hooks.startAll()
    assert.equal(hooks.startAll(), first)
    await first
    assert.equal(runs, 1)
    assert.throws(() => hooks.add('late', async () => {}), /already been executed/)
    assert.deepEqual(hooks.names, ['once'])
  })
})
