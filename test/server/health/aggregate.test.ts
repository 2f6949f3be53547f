/**
 * Research §11 cases 1–23 and 60: the aggregate /healthz, /livez, /readyz handler on
 * fixture S (translated: `etcd` → `store`, no `etcd-readiness`, the spec's
 * `healthz check passed` as the verbose success line on every endpoint).
 */
import assert from 'node:assert/strict'
import {
  PASSED,
  S_HEALTH_LINES,
  S_READY_LINES,
  STORE_FAILURE,
  assertReply,
  assertTextHeaders,
  fixtureS,
  type FixtureS,
} from './harness.js'

describe('health aggregate endpoints (research §11 #1–23, #60)', () => {
  let f: FixtureS
  beforeEach(async () => {
    f = await fixtureS()
  })
  afterEach(async () => {
    await f.close()
  })

  describe('all checks pass', () => {
    for (const [n, word] of [
      [1, 'healthz'],
      [2, 'livez'],
      [3, 'readyz'],
    ] as const) {
      it(`#${n} /${word} is 200 "ok" with text headers and no trailing newline`, async () => {
        const r = await f.get(`/${word}`)
        assertReply(r, 200, 'ok')
        assertTextHeaders(r)
        assert.equal(r.headers['content-length'], '2')
      })
    }

    it('#4 /healthz?verbose lists every check then "healthz check passed"', async () => {
      const r = await f.get('/healthz?verbose')
      assertReply(r, 200, `${S_HEALTH_LINES}${PASSED}`)
      assertTextHeaders(r)
    })

    it('#5 /livez?verbose ends with "healthz check passed" (spec override)', async () => {
      const r = await f.get('/livez?verbose')
      assertReply(r, 200, `${S_HEALTH_LINES}${PASSED}`)
      assertTextHeaders(r)
    })

    it('#6 /readyz?verbose lists shutdown last and ends with "healthz check passed"', async () => {
      const r = await f.get('/readyz?verbose')
      assertReply(r, 200, `${S_READY_LINES}${PASSED}`)
      assertTextHeaders(r)
    })

    it('#7 /readyz?verbose=false is verbose (presence of the key counts)', async () => {
      const r = await f.get('/readyz?verbose=false')
      assertReply(r, 200, `${S_READY_LINES}${PASSED}`)
      assertTextHeaders(r)
    })

    it('#8 /readyz?verbose=0&foo=bar is verbose, other parameters ignored', async () => {
      const r = await f.get('/readyz?verbose=0&foo=bar')
      assertReply(r, 200, `${S_READY_LINES}${PASSED}`)
      assertTextHeaders(r)
    })

    it('#9 /readyz?Verbose is not verbose (case-sensitive key)', async () => {
      const r = await f.get('/readyz?Verbose')
      assertReply(r, 200, 'ok')
      assertTextHeaders(r)
    })

    it('#10 /readyz?verbose&exclude=store marks store excluded and does not run it', async () => {
      const r = await f.get('/readyz?verbose&exclude=store')
      assertReply(
        r,
        200,
        '[+]ping ok\n[+]log ok\n[+]store excluded: ok\n[+]poststarthook/demo ok\n[+]shutdown ok\n' + PASSED,
      )
      assertTextHeaders(r)
      assert.equal(f.store.calls, 0)
    })

    it('#11 /readyz?exclude=nonexistent is "ok" (warning not visible)', async () => {
      const r = await f.get('/readyz?exclude=nonexistent')
      assertReply(r, 200, 'ok')
      assertTextHeaders(r)
    })

    it('#12 /readyz?verbose&exclude=nonexistent inserts the warn line before the last line', async () => {
      const r = await f.get('/readyz?verbose&exclude=nonexistent')
      assertReply(
        r,
        200,
        `${S_READY_LINES}warn: some health checks cannot be excluded: no matches for "nonexistent"\n${PASSED}`,
      )
      assertTextHeaders(r)
    })

    it('#13 unknown excludes are sorted and %q-quoted, joined by ","', async () => {
      const r = await f.get('/livez?verbose&exclude=zeta&exclude=alpha')
      assertReply(
        r,
        200,
        `${S_HEALTH_LINES}warn: some health checks cannot be excluded: no matches for "alpha","zeta"\n${PASSED}`,
      )
      assertTextHeaders(r)
    })

    it('#14 exclude values are not split on commas', async () => {
      const r = await f.get('/livez?verbose&exclude=store,log')
      assertReply(
        r,
        200,
        `${S_HEALTH_LINES}warn: some health checks cannot be excluded: no matches for "store,log"\n${PASSED}`,
      )
      assertTextHeaders(r)
      assert.equal(f.store.calls, 1)
      assert.equal(f.log.calls, 1)
    })

    it('#15 an empty exclude value counts as ""', async () => {
      const r = await f.get('/livez?verbose&exclude=')
      assertReply(r, 200, `${S_HEALTH_LINES}warn: some health checks cannot be excluded: no matches for ""\n${PASSED}`)
      assertTextHeaders(r)
    })

    it('#15b a valueless exclude also counts as ""', async () => {
      const r = await f.get('/livez?verbose&exclude')
      assertReply(r, 200, `${S_HEALTH_LINES}warn: some health checks cannot be excluded: no matches for ""\n${PASSED}`)
    })

    it('#16 every exclude occurrence counts; duplicates collapse; no warn line', async () => {
      const r = await f.get('/livez?verbose&exclude=store&exclude=store&exclude=log')
      assertReply(r, 200, '[+]ping ok\n[+]log excluded: ok\n[+]store excluded: ok\n[+]poststarthook/demo ok\n' + PASSED)
      assertTextHeaders(r)
      assert.deepEqual([f.log.calls, f.store.calls], [0, 0])
    })

    it('#17 an encoded slash in an exclude value decodes', async () => {
      const r = await f.get('/readyz?verbose&exclude=poststarthook%2Fdemo')
      assertReply(
        r,
        200,
        '[+]ping ok\n[+]log ok\n[+]store ok\n[+]poststarthook/demo excluded: ok\n[+]shutdown ok\n' + PASSED,
      )
      assertTextHeaders(r)
    })

    it('#60 /readyz?verbose;exclude=store drops the whole pair: not verbose', async () => {
      const r = await f.get('/readyz?verbose;exclude=store')
      assertReply(r, 200, 'ok')
      assertTextHeaders(r)
      assert.equal(f.store.calls, 1)
    })
  })

  describe('store fails with "error getting data from store: context deadline exceeded"', () => {
    beforeEach(() => {
      f.store.fail(STORE_FAILURE)
    })

    it('#18 /readyz is 500 with the full listing and "readyz check failed"', async () => {
      const r = await f.get('/readyz')
      assertReply(
        r,
        500,
        '[+]ping ok\n[+]log ok\n[-]store failed: reason withheld\n[+]poststarthook/demo ok\n[+]shutdown ok\nreadyz check failed\n',
      )
      assertTextHeaders(r)
      assert.ok(!r.body.includes('deadline'), 'the error text is withheld')
    })

    it('#18 logs the failure at verbosity 2 in the reference shape', async () => {
      await f.get('/readyz')
      assert.deepEqual(f.logs, [[2, `store check failed: readyz\n[-]store failed: ${STORE_FAILURE}\n`]])
    })

    it('#19 /livez is 500 ending "livez check failed"', async () => {
      const r = await f.get('/livez')
      assertReply(r, 500, '[+]ping ok\n[+]log ok\n[-]store failed: reason withheld\n[+]poststarthook/demo ok\nlivez check failed\n')
      assertTextHeaders(r)
    })

    it('#20 /healthz?verbose is 500 ending "healthz check failed"', async () => {
      const r = await f.get('/healthz?verbose')
      assertReply(r, 500, '[+]ping ok\n[+]log ok\n[-]store failed: reason withheld\n[+]poststarthook/demo ok\nhealthz check failed\n')
      assertTextHeaders(r)
    })

    it('#21 /readyz?exclude=store is 200 "ok"', async () => {
      const r = await f.get('/readyz?exclude=store')
      assertReply(r, 200, 'ok')
      assertTextHeaders(r)
      assert.equal(f.store.calls, 0)
    })

    it('#22 /livez?exclude=bogus keeps the warn line in the failure listing', async () => {
      const r = await f.get('/livez?exclude=bogus')
      assertReply(
        r,
        500,
        '[+]ping ok\n[+]log ok\n[-]store failed: reason withheld\n[+]poststarthook/demo ok\n' +
          'warn: some health checks cannot be excluded: no matches for "bogus"\nlivez check failed\n',
      )
      assertTextHeaders(r)
    })

    it('#23 log and store failing: both lines in registration order, error text never returned', async () => {
      f.log.fail('logging blocked')
      const r = await f.get('/livez')
      assertReply(
        r,
        500,
        '[+]ping ok\n[-]log failed: reason withheld\n[-]store failed: reason withheld\n[+]poststarthook/demo ok\nlivez check failed\n',
      )
      assertTextHeaders(r)
      assert.ok(!r.body.includes('logging blocked') && !r.body.includes('error getting data'))
      assert.deepEqual(f.logs, [
        [2, `log,store check failed: livez\n[-]log failed: logging blocked\n[-]store failed: ${STORE_FAILURE}\n`],
      ])
    })

    it('a semicolon pair cannot exclude the failing check', async () => {
      const r = await f.get('/readyz?exclude=store;x')
      assert.equal(r.status, 500)
      assert.ok(r.body.includes('[-]store failed: reason withheld\n'))
    })
  })
})
