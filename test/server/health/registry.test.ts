/**
 * The check registries and createHealth's wiring in the spec's order (spec 2.1).
 */
import assert from 'node:assert/strict'
import { ping, type HealthCheck } from '../../../src/server/health/check.js'
import {
  LATE_POST_START_HOOKS,
  POST_START_HOOKS,
  createHealth,
  type StandardChecks,
} from '../../../src/server/health/index.js'
import { HealthRegistry, delayedLivezCheck } from '../../../src/server/health/registry.js'
import { LifecycleSignals } from '../../../src/server/lifecycle/signals.js'
import { FakeCheck, FakeClock, assertReply, startServer } from './harness.js'
import { SPEC_CHECKS } from '../../support/spec-checks.js'

const names = (checks: readonly HealthCheck[]): string[] => checks.map((c) => c.name)

describe('HealthRegistry', () => {
  it('keeps registration order per word; addReadyOnly stays last on readyz whatever comes later', () => {
    const r = new HealthRegistry()
    r.addToAll(ping)
    r.addReadyOnly(new FakeCheck('shutdown'))
    r.addToAll(new FakeCheck('log'))
    r.addBootSequenceCheck(new FakeCheck('poststarthook/a'))
    assert.deepEqual(names(r.checksFor('healthz')), ['ping', 'log', 'poststarthook/a'])
    assert.deepEqual(names(r.checksFor('livez')), ['ping', 'log', 'poststarthook/a'])
    assert.deepEqual(names(r.checksFor('readyz')), ['ping', 'log', 'poststarthook/a', 'shutdown'])
  })

  it('refuses a name registered twice on a word, leaving the lists unchanged', () => {
    const r = new HealthRegistry()
    r.addToAll(new FakeCheck('log'))
    r.addReadyOnly(new FakeCheck('shutdown'))
    assert.throws(() => r.addBootSequenceCheck(new FakeCheck('log')), /"log" is already registered/)
    assert.throws(() => r.addToAll(new FakeCheck('shutdown')), /"shutdown" is already registered on \/readyz/)
    assert.deepEqual(names(r.checksFor('healthz')), ['log'])
    assert.deepEqual(names(r.checksFor('readyz')), ['log', 'shutdown'])
  })

  it('addToAll with a readyz variant puts the variant on readyz only; names must match', () => {
    const r = new HealthRegistry()
    const health = new FakeCheck('store', 'store')
    const ready = new FakeCheck('store', 'store')
    r.addToAll(health, ready)
    assert.equal(r.checksFor('healthz')[0], health)
    assert.equal(r.checksFor('livez')[0], health)
    assert.equal(r.checksFor('readyz')[0], ready)
    assert.throws(() => r.addToAll(new FakeCheck('a'), new FakeCheck('b')), /must be named like "a"/)
  })

  it('boot-sequence checks are wrapped on livez only, and only with a grace period', () => {
    const boot = new FakeCheck('poststarthook/x', 'g')
    const withGrace = new HealthRegistry({ livezGracePeriodMs: 1_000 })
    withGrace.addBootSequenceCheck(boot)
    assert.equal(withGrace.checksFor('healthz')[0], boot)
    assert.equal(withGrace.checksFor('readyz')[0], boot)
    const wrapped = withGrace.checksFor('livez')[0]
    assert.notEqual(wrapped, boot)
    assert.deepEqual([wrapped.name, wrapped.group], ['poststarthook/x', 'g'])
    const noGrace = new HealthRegistry({ livezGracePeriodMs: 0 })
    noGrace.addBootSequenceCheck(boot)
    assert.equal(noGrace.checksFor('livez')[0], boot)
  })

  it('delayedLivezCheck: passes without running until strictly after registration + grace', async () => {
    const clock = new FakeClock()
    const inner = new FakeCheck('x').fail('not finished')
    const d = delayedLivezCheck(inner, clock.clock, 100)
    clock.advance(100)
    await d.check()
    assert.equal(inner.calls, 0)
    clock.advance(1)
    await assert.rejects(d.check(), { message: 'not finished' })
    assert.equal(inner.calls, 1)
  })

  it('checksFor returns a list callers cannot change, made again when a check is added', () => {
    const r = new HealthRegistry()
    r.addToAll(ping)
    const first = r.checksFor('readyz')
    assert.throws(() => (first as HealthCheck[]).pop(), TypeError)
    assert.deepEqual(names(r.checksFor('readyz')), ['ping'])
    assert.equal(r.checksFor('readyz'), first)
    r.addReadyOnly({ name: 'shutdown', check: () => Promise.resolve() })
    assert.deepEqual(names(r.checksFor('readyz')), ['ping', 'shutdown'])
    assert.deepEqual(names(first), ['ping'])
  })
})

describe('createHealth', () => {
  const SPEC_ORDER = SPEC_CHECKS

  const standard = (overrides: Partial<StandardChecks> = {}): StandardChecks => ({
    log: new FakeCheck('log'),
    store: {
      probes: {
        healthChecks: () => [{ name: 'store', check: async () => {} }],
        readyChecks: () => [{ name: 'store-readiness', check: async () => {} }],
      },
      healthTimeoutMs: 2_000,
      readyTimeoutMs: 2_000,
    },
    hooks: Object.fromEntries([...POST_START_HOOKS, ...LATE_POST_START_HOOKS].map((n) => [n, async () => {}])),
    autoregisterCompletion: new FakeCheck('autoregister-completion'),
    ...overrides,
  })

  const make = (onFatal?: (name: string, err: Error) => void, graceMs = 0) => {
    const signals = new LifecycleSignals()
    const logs: Array<[number, string]> = []
    const health = createHealth({
      livezGracePeriodMs: graceMs,
      signals,
      log: (l, m) => logs.push([l, m]),
      onFatal: onFatal ?? (() => assert.fail('no hook should fail')),
    })
    return { signals, logs, health }
  }

  it('registers the checks of spec 2.1 in order; shutdown last on readyz only', () => {
    const { health } = make()
    health.install(standard())
    assert.deepEqual(names(health.registry.checksFor('healthz')), SPEC_ORDER)
    assert.deepEqual(names(health.registry.checksFor('livez')), SPEC_ORDER)
    assert.deepEqual(names(health.registry.checksFor('readyz')), [...SPEC_ORDER, 'shutdown'])
  })

  it('end to end: not ready until the hooks ran, then /readyz?verbose lists the spec order and signals hasBeenReady', async () => {
    const { health, signals } = make()
    health.install(standard())
    const server = await startServer(health)
    try {
      const before = await server.get('/readyz')
      assert.equal(before.status, 500)
      assert.ok(before.body.includes('[-]poststarthook/rbac/bootstrap-roles failed: reason withheld\n'))
      assert.equal(signals.hasBeenReady.signalled, false)
      await health.startPostStartHooks()
      const r = await server.get('/readyz?verbose')
      assertReply(r, 200, [...SPEC_ORDER, 'shutdown'].map((n) => `[+]${n} ok\n`).join('') + 'healthz check passed\n')
      assert.equal(signals.hasBeenReady.signalled, true)
      assertReply(await server.get('/livez/shutdown'), 404, '404 page not found\n')
      signals.inFlightRequestsDrained.signal()
      assertReply(await server.get('/livez/store'), 500, 'internal server error: server is shutting down\n')
    } finally {
      await server.close()
    }
  })

  it('livez grace covers the hooks and autoregister-completion, not store', async () => {
    const { health } = make(undefined, 60_000)
    const autoregister = new FakeCheck('autoregister-completion').fail('waiting')
    health.install(standard({ autoregisterCompletion: autoregister }))
    const server = await startServer(health)
    try {
      assertReply(await server.get('/livez'), 200, 'ok')
      assert.equal(autoregister.calls, 0)
      assert.equal((await server.get('/healthz')).status, 500)
    } finally {
      await server.close()
    }
  })

  it('a failing hook is reported to onFatal with its name', async () => {
    const fatal: string[] = []
    const { health } = make((name, err) => fatal.push(`${name}: ${err.message}`))
    const hooks = { ...standard().hooks, 'rbac/bootstrap-roles': () => Promise.reject(new Error('denied')) }
    health.install(standard({ hooks }))
    await health.startPostStartHooks()
    assert.deepEqual(fatal, ['rbac/bootstrap-roles: denied'])
  })

  it('refuses a hook list without one of the spec\'s, misnamed checks and a second install', () => {
    const { hooks } = standard()
    const { 'crd-informer-synced': _dropped, ...missing } = hooks
    assert.throws(() => make().health.install(standard({ hooks: missing })), /missing: \[crd-informer-synced\]/)
    assert.throws(() => make().health.install(standard({ log: new FakeCheck('logs') })), /must be named "log"/)
    assert.throws(
      () => make().health.install(standard({ autoregisterCompletion: new FakeCheck('autoregister') })),
      /must be named "autoregister-completion"/,
    )
    const { health } = make()
    health.install(standard())
    assert.throws(() => health.install(standard()), /already installed/)
  })

  it('lists a hook beyond the spec\'s where the table puts it, autoregister-completion after the autoregistration', () => {
    const { hooks } = standard()
    const { health } = make()
    health.install(standard({ hooks: { ...hooks, 'example/extra-hook': async () => {} } }))
    const readyz = health.registry.checksFor('readyz').map((c) => c.name)
    const at = (name: string) => readyz.indexOf(name)
    assert.ok(at('poststarthook/example/extra-hook') > at('poststarthook/apiservice-openapi-controller'), readyz.join(' '))
    assert.equal(at('autoregister-completion'), at('poststarthook/apiserver-autoregistration') + 1, readyz.join(' '))
  })

  it('paths() lists every health path, individual ones included', () => {
    const { health } = make()
    health.install(standard())
    const paths = health.paths()
    for (const p of ['/healthz', '/livez', '/readyz', '/healthz/ping', '/livez/log', '/readyz/shutdown', '/readyz/poststarthook/rbac/bootstrap-roles']) {
      assert.ok(paths.includes(p), p)
    }
    assert.ok(!paths.includes('/livez/shutdown'))
  })
})
