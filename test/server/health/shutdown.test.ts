/**
 * Research §11 cases 41–45: after ShutdownInitiated only /readyz fails (the `shutdown`
 * check); /livez and /healthz keep passing.
 *
 * Not here, because they need the full server's filter chain: #46–51 (retry-after 429,
 * exempt paths, Connection: close), #52 (listener closed), #53 (max-in-flight 429),
 * #54 (request timeout 504) and #55 (invalid `timeout` 400).
 */
import assert from 'node:assert/strict'
import { shutdownCheck } from '../../../src/server/health/check.js'
import { LifecycleSignals } from '../../../src/server/lifecycle/signals.js'
import { PASSED, S_HEALTH_LINES, assertReply, assertTextHeaders, fixtureS, type FixtureS } from './harness.js'

describe('health endpoints after ShutdownInitiated (research §11 #41–45)', () => {
  let f: FixtureS
  beforeEach(async () => {
    f = await fixtureS()
    assertReply(await f.get('/readyz'), 200, 'ok')
    f.signals.shutdownInitiated.signal()
  })
  afterEach(async () => {
    await f.close()
  })

  it('#41 /readyz is 500 with shutdown failed last', async () => {
    const r = await f.get('/readyz')
    assertReply(
      r,
      500,
      '[+]ping ok\n[+]log ok\n[+]store ok\n[+]poststarthook/demo ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n',
    )
    assertTextHeaders(r)
    assert.deepEqual(f.logs, [[2, 'shutdown check failed: readyz\n[-]shutdown failed: process is shutting down\n']])
  })

  it('#42 /readyz/shutdown is 500 "internal server error: process is shutting down"', async () => {
    const r = await f.get('/readyz/shutdown')
    assertReply(r, 500, 'internal server error: process is shutting down\n')
    assertTextHeaders(r)
  })

  for (const word of ['livez', 'healthz']) {
    it(`#43 /${word} is still 200 "ok" (and verbose lists no shutdown line)`, async () => {
      const r = await f.get(`/${word}`)
      assertReply(r, 200, 'ok')
      assertTextHeaders(r)
      assertReply(await f.get(`/${word}?verbose`), 200, `${S_HEALTH_LINES}${PASSED}`)
    })
  }

  it('#44 /readyz?exclude=shutdown is 200 "ok"', async () => {
    const r = await f.get('/readyz?exclude=shutdown')
    assertReply(r, 200, 'ok')
    assertTextHeaders(r)
  })

  it('#45 non-health paths are left to the rest of the server (served normally)', async () => {
    const r = await f.get('/api/v1/namespaces')
    assertReply(r, 200, 'api')
  })
})

describe('shutdownCheck', () => {
  it('passes until ShutdownInitiated, then fails for good', async () => {
    const signals = new LifecycleSignals()
    const check = shutdownCheck(signals)
    assert.equal(check.name, 'shutdown')
    await check.check()
    signals.shutdownInitiated.signal()
    await assert.rejects(check.check(), { message: 'process is shutting down' })
    signals.hasBeenReady.signal()
    await assert.rejects(check.check(), { message: 'process is shutting down' })
  })
})
