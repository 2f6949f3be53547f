/**
 * Research §11 cases 24–32: the individual check endpoints `/<word>/<checkName>` and the
 * paths that are not health paths (404 from the caller).
 */
import assert from 'node:assert/strict'
import { STORE_FAILURE, assertPlainNoNosniff, assertReply, assertTextHeaders, fixtureS, type FixtureS } from './harness.js'

describe('health individual check endpoints (research §11 #24–32)', () => {
  let f: FixtureS
  beforeEach(async () => {
    f = await fixtureS()
  })
  afterEach(async () => {
    await f.close()
  })

  it('#24 /readyz/store passing: 200 "ok", text/plain, NO nosniff', async () => {
    const r = await f.get('/readyz/store')
    assertReply(r, 200, 'ok')
    assertPlainNoNosniff(r)
    assert.equal(f.store.calls, 1)
  })

  it('#25 /readyz/store failing: 500 discloses the error text, text headers', async () => {
    f.store.fail(STORE_FAILURE)
    const r = await f.get('/readyz/store')
    assertReply(r, 500, `internal server error: ${STORE_FAILURE}\n`)
    assertTextHeaders(r)
  })

  it('#26 /livez/store?verbose&exclude=store ignores the query and runs the check', async () => {
    f.store.fail(STORE_FAILURE)
    const r = await f.get('/livez/store?verbose&exclude=store')
    assertReply(r, 500, `internal server error: ${STORE_FAILURE}\n`)
    assertTextHeaders(r)
    assert.equal(f.store.calls, 1)
  })

  it('#27 /healthz/ping?verbose is 200 "ok" with text/plain', async () => {
    const r = await f.get('/healthz/ping?verbose')
    assertReply(r, 200, 'ok')
    assertPlainNoNosniff(r)
  })

  const notFoundCases: Array<[string, string]> = [
    ['#28', '/livez/shutdown'],
    ['#28', '/healthz/shutdown'],
    ['#29', '/healthz/store-readiness'],
    ['#29', '/readyz/store-readiness'],
    ['#30', '/readyz/does-not-exist'],
    ['#31', '/readyz/'],
    ['', '/readyz/store/'],
    ['', '/readyz//store'],
    ['', '/readyz/../livez'],
    ['', '/readyzfoo'],
    ['', '/READYZ'],
    ['', '/readyz/STORE'],
    ['', '/readyz/%zz'],
  ]
  for (const [n, path] of notFoundCases) {
    it(`${n ? `${n} ` : ''}${path} is not a health path: 404 "404 page not found"`, async () => {
      const r = await f.get(path)
      assertReply(r, 404, '404 page not found\n')
      assertTextHeaders(r)
    })
  }

  it('#32 /readyz/shutdown is 200 "ok" with text/plain', async () => {
    const r = await f.get('/readyz/shutdown')
    assertReply(r, 200, 'ok')
    assertPlainNoNosniff(r)
  })

  it('a check name containing "/" is served at its exact path', async () => {
    const r = await f.get('/livez/poststarthook/demo')
    assertReply(r, 200, 'ok')
  })

  it('an encoded slash in the path decodes (poststarthook%2Fdemo)', async () => {
    const hookless = await fixtureS({ hookFinished: false })
    try {
      const r = await hookless.get('/readyz/poststarthook%2Fdemo')
      assertReply(r, 500, 'internal server error: not finished\n')
      assertTextHeaders(r)
    } finally {
      await hookless.close()
    }
  })

  it('percent-encoded letters decode too (/readyz/%73tore)', async () => {
    f.store.fail('x')
    const r = await f.get('/readyz/%73tore')
    assertReply(r, 500, 'internal server error: x\n')
  })
})
