/**
 * Go's query parsing and %q quoting, on which `verbose`, `exclude` and the warn line rest.
 */
import assert from 'node:assert/strict'
import { formatQuoted, goParseQuery, goQuote, goUnescape, toByteString } from '../../../src/server/health/go-url.js'
import { PASSED, S_HEALTH_LINES, assertReply, fixtureS, type FixtureS } from './harness.js'

const entries = (q: string): Array<[string, string[]]> => [...goParseQuery(q).entries()]

describe('Go url.ParseQuery', () => {
  it('splits on &, keeps every value, keys without = get ""', () => {
    assert.deepEqual(entries('verbose&exclude=a&exclude=b&exclude'), [
      ['verbose', ['']],
      ['exclude', ['a', 'b', '']],
    ])
  })

  it('drops a pair containing ";" whole, and skips empty pairs', () => {
    assert.deepEqual(entries('verbose;x=1&&a=1;b&c=2'), [['c', ['2']]])
  })

  it('unescapes %XX and + (space); a pair with a bad escape is dropped', () => {
    assert.deepEqual(entries('a=x+y%2Fz&b=%zz&c%=1&d=%4'), [['a', ['x y/z']]])
  })

  it('splits key and value at the first "="', () => {
    assert.deepEqual(entries('exclude=a=b&=v'), [
      ['exclude', ['a=b']],
      ['', ['v']],
    ])
  })

  it('path unescaping keeps +, decodes %2F, rejects bad escapes', () => {
    assert.equal(goUnescape('/a+b%2Fc', 'path'), '/a+b/c')
    assert.equal(goUnescape('/a%2', 'path'), null)
  })
})

describe('Go %q', () => {
  const q = (s: string): string => goQuote(toByteString(s))

  it('escapes quotes, backslashes and control characters like strconv.Quote', () => {
    assert.equal(q('a"b\\c'), '"a\\"b\\\\c"')
    assert.equal(q('\x07\b\f\n\r\t\v'), '"\\a\\b\\f\\n\\r\\t\\v"')
    assert.equal(q('\x00\x1f\x7f'), '"\\x00\\x1f\\x7f"')
  })

  it('keeps printable Unicode, escapes non-printable runes and invalid UTF-8 bytes', () => {
    assert.equal(q('é😀 x'), '"é😀 x"')
    assert.equal(q('\u00a0\ue000\u{e0001}'), '"\\u00a0\\ue000\\U000e0001"')
    assert.equal(goQuote('a\xffb'), '"a\\xffb"')
    assert.equal(goQuote('\xc3'), '"\\xc3"')
  })

  it('formatQuoted sorts by bytes', () => {
    assert.equal(formatQuoted(['b', 'a', 'B', '']), '"","B","a","b"')
  })
})

describe('query semantics through the handler', () => {
  let f: FixtureS
  beforeEach(async () => {
    f = await fixtureS()
  })
  afterEach(async () => {
    await f.close()
  })

  const warn = (list: string): string =>
    `${S_HEALTH_LINES}warn: some health checks cannot be excluded: no matches for ${list}\n${PASSED}`

  it('quotes odd exclude values the Go way', async () => {
    assertReply(await f.get('/livez?verbose&exclude=%22x%22'), 200, warn('"\\"x\\""'))
    assertReply(await f.get('/livez?verbose&exclude=a%FFb'), 200, warn('"a\\xffb"'))
    assertReply(await f.get('/livez?verbose&exclude=a+b&exclude=%C3%A9'), 200, warn('"a b","é"'))
  })

  it('an exclude pair containing ";" is dropped, not kept literally (no warn line)', async () => {
    assertReply(await f.get('/livez?verbose&exclude=a;b'), 200, `${S_HEALTH_LINES}${PASSED}`)
  })

  it('an exclude pair with a bad escape is dropped (no warn line)', async () => {
    assertReply(await f.get('/livez?verbose&exclude=%zz'), 200, `${S_HEALTH_LINES}${PASSED}`)
  })

  it('verbose with a bad escape in its value is dropped: not verbose', async () => {
    assertReply(await f.get('/livez?verbose=%zz'), 200, 'ok')
  })

  it('logs unknown excludes at verbosity 6', async () => {
    await f.get('/livez?exclude=zeta&exclude=alpha')
    assert.deepEqual(f.logs, [[6, 'cannot exclude some health checks, no health checks are installed matching "alpha","zeta"']])
  })
})
