/**
 * Wall-clock bounds flake on a loaded machine (the suite shares 2 cores with everything else):
 * a test asserts behaviour (the order of events, that a timeout fired and said so) and leaves
 * speed to the benchmarks in bench/. This test greps every test file for an assertion that
 * compares a measured time (Date.now(), performance.now(), process.hrtime, or a variable
 * computed from them) with a bound under 5 s, in either direction. Exceptions are listed below,
 * each with the reason it cannot flake.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { codeFiles, ROOT, showHits, type Hit } from '../support/source-scan.js'

/** The tightest bound a test may put on a measured time. */
const LOOSEST_TIGHT_BOUND_MS = 5_000

/** A clock read. */
const CLOCK = /\b(?:Date\.now\(\)|performance\.now\(\)|process\.hrtime(?:\.bigint)?\(|endedAt\b|startedAt\b)/
/** Names that hold a measured duration whatever they are computed from. */
const DURATION_NAMES = ['elapsed', 'took', 'ms', 'duration', 'durations', 'expiredAfter', 'waited', 'latencyMs']
/** `const took = Date.now() - started`, `let elapsed = run.endedAt - t0`: a name that holds a measured time. */
const ASSIGNED_FROM_CLOCK = /\b(?:const|let|var)\s+(\w+)\s*(?::[^=]+)?=\s*([^;]*)/

/** A comparison with a number, on either side: `x < 1_000`, `950 <= x`. */
const COMPARED = /([\w.$()[\]!?]+(?:\s*-\s*[\w.$()[\]!?]+)?)\s*(<=|>=|<|>)\s*(\d[\d_]*(?:\.\d+)?)\b|\b(\d[\d_]*(?:\.\d+)?)\s*(<=|>=|<|>)\s*([\w.$()[\]!?]+)/g

/** file -> the line's text (trimmed) -> why this bound cannot flake. */
const ALLOWED: Record<string, Record<string, string>> = {
  // "Not before" bounds: what a TTL or a minimum means. The test's clock starts before the
  // server's, and load only makes things later, so these cannot fail on a slow machine.
  'test/server/store/contract.ts': {
    "assert.ok(Date.now() - started >= 900, 'not before the TTL')": 'a 1 s TTL must not expire a key early (etcd leases have whole seconds; 100 ms covers clock granularity)',
  },
  'test/server/api/event-ttl.e2e.test.ts': {
    'assert.ok(expiredAfter >= 1_900, `the event expired ${expiredAfter} ms after its creation, before --event-ttl=2s`)': 'an event must not be deleted before --event-ttl ran out',
    'assert.ok(ms >= 950, `a watch ended after ${ms} ms, before --min-request-timeout=1`)': 'a watch without timeoutSeconds must not end before --min-request-timeout',
  },
  'test/server/store/etcd-store.test.ts': {
    'assert.ok(took >= 900, `gave up after ${took}ms, before the initialization timeout`)': 'start-up must keep trying until the initialization timeout, not give up at the first refusal',
  },
}

/** The assertions of one file that compare a measured time with a bound under 5 s. */
function tightTimings(file: string, text: string): Hit[] {
  const lines = text.split('\n')
  const timed = new Set(DURATION_NAMES)
  for (const line of lines) {
    const m = ASSIGNED_FROM_CLOCK.exec(line)
    if (m && CLOCK.test(m[2]!)) timed.add(m[1]!)
  }
  const hits: Hit[] = []
  lines.forEach((source, i) => {
    if (!/\b(?:assert|expect)\b/.test(source)) return
    for (const c of source.matchAll(COMPARED)) {
      const [operand, number] = c[1] !== undefined ? [c[1], c[3]!] : [c[6]!, c[4]!]
      const measured = CLOCK.test(operand) || operand.split(/[^\w$]+/).some((w) => timed.has(w))
      const bound = Number(number.replace(/_/g, ''))
      // A bound of 0 only says a time is not negative.
      if (measured && bound > 0 && bound < LOOSEST_TIGHT_BOUND_MS) hits.push({ file, line: i + 1, text: source.trim(), source })
    }
  })
  return hits
}

describe('project: no wall-clock bound under 5 s in a test', () => {
  // This file's own examples are what the grep must catch.
  const files = codeFiles('test').filter((f) => /\.(ts|js|mjs)$/.test(f) && !f.startsWith('test/fixtures/') && f !== 'test/project/no-tight-timings.test.ts')

  it('no test asserts a measured time against a bound under 5 s (speed belongs in bench/)', () => {
    const hits = files.flatMap((f) => tightTimings(f, readFileSync(join(ROOT, f), 'utf8'))).filter((h) => ALLOWED[h.file]?.[h.text] === undefined)
    assert.equal(showHits(hits), '', 'assert the behaviour (order, the timeout message, fake timers) or raise the bound to 5 s or more; put speed in a benchmark')
  })

  it('every allowed bound is still there (the allow-list does not rot)', () => {
    const found = new Set(files.flatMap((f) => tightTimings(f, readFileSync(join(ROOT, f), 'utf8'))).map((h) => `${h.file} ${h.text}`))
    const stale = Object.entries(ALLOWED).flatMap(([file, lines]) => Object.keys(lines).map((l) => `${file} ${l}`)).filter((k) => !found.has(k))
    assert.deepEqual(stale, [])
  })

  it('the grep catches the forms it is meant to catch, and leaves the rest', () => {
    const caught = (text: string): number => tightTimings('x.test.ts', text).length
    assert.equal(caught('assert.ok(Date.now() - t0 < 100, `late`)'), 1)
    assert.equal(caught('const took = Date.now() - started\nassert.ok(took <= 1_500)'), 1)
    assert.equal(caught('const elapsed = run.endedAt - readyAt\nassert.ok(elapsed < 1000)'), 1)
    assert.equal(caught('for (const ms of durations) assert.ok(ms >= 950 && ms < 2_600)'), 2)
    assert.equal(caught('assert.ok(Date.now() - started >= 30)'), 1, 'lower bounds too')
    assert.equal(caught('const t = performance.now() - a\nexpect(t).to.be.below(10)\nassert.ok(300 > t)'), 1)
    assert.equal(caught('assert.ok(Date.now() - t0 < 5_000)'), 0, 'a 5 s ceiling is generous enough')
    assert.equal(caught('assert.ok(took >= 30_000)'), 0)
    assert.equal(caught('assert.equal(items.length < 3, true)'), 0, 'not a time')
    assert.equal(caught('while (Date.now() - started < 200) x += 1'), 0, 'not an assertion')
  })
})
