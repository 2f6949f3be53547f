import assert from 'node:assert/strict'
import { parseInt64, queryFlag, queryInt64 } from '../../../src/server/api/query.js'

const q = (s: string) => new URLSearchParams(s)

describe('server/api/query: query parameters as the reference converts them', () => {
  it('a boolean is false only for 0 and false in any case; every other value, empty included, is true', () => {
    for (const v of ['True', 'TRUE', 'true', 't', '1', 'yes', '']) assert.equal(queryFlag(q(`watch=${v}`), 'watch'), true, v)
    for (const v of ['False', 'FALSE', 'false', 'fAlSe', '0']) assert.equal(queryFlag(q(`watch=${v}`), 'watch'), false, v)
    assert.equal(queryFlag(q(''), 'watch'), undefined)
  })

  it('an integer is strconv.ParseInt in base 10 within int64, with its 400 texts', () => {
    assert.equal(parseInt64('42'), 42)
    assert.equal(parseInt64('+7'), 7)
    assert.equal(parseInt64('-3'), -3)
    assert.equal(parseInt64('9223372036854775807'), Number.MAX_SAFE_INTEGER)
    const bad = (v: string, why: string) =>
      assert.throws(
        () => parseInt64(v),
        (err: { status?: { code: number; message: string } }) => err.status?.code === 400 && err.status.message === `strconv.ParseInt: parsing ${JSON.stringify(v)}: ${why}`,
      )
    bad('9223372036854775808', 'value out of range')
    bad('-9223372036854775809', 'value out of range')
    bad('99999999999999999999', 'value out of range')
    bad('1e3', 'invalid syntax')
    bad('0x10', 'invalid syntax')
    bad('1_000', 'invalid syntax')
    bad(' 5', 'invalid syntax')
    assert.equal(queryInt64(q('limit='), 'limit'), undefined)
  })
})
