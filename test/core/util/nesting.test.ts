import assert from 'node:assert/strict'
import { MAX_NESTING_DEPTH, jsonTextTooDeep, valueTooDeep } from '../../../src/core/util/nesting.js'
import { GoJsonSyntaxError, parseGoJson } from '../../../src/core/patch/parse.js'

const deepText = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`

describe('core/util/nesting: the nesting bound of structured input', () => {
  it('finds JSON text nested past the bound without parsing it (brackets in strings do not count)', () => {
    assert.equal(jsonTextTooDeep(deepText(MAX_NESTING_DEPTH)), false)
    assert.equal(jsonTextTooDeep(deepText(MAX_NESTING_DEPTH + 1)), true)
    assert.equal(jsonTextTooDeep(`{"a":"${'['.repeat(5000)}"}`), false)
    assert.equal(jsonTextTooDeep(`{"a":"\\"${'['.repeat(5000)}"}`), false)
  })

  it('finds decoded values nested past the bound', () => {
    assert.equal(valueTooDeep(JSON.parse(deepText(MAX_NESTING_DEPTH))), false)
    assert.equal(valueTooDeep(JSON.parse(deepText(MAX_NESTING_DEPTH + 1))), true)
    assert.equal(valueTooDeep({ a: [1, 2, { b: 'c' }], d: Buffer.from('x') }), false)
  })

  it('the patch parser stops with Go\'s "exceeded max depth" instead of overflowing its stack', () => {
    assert.throws(() => parseGoJson(deepText(50_000)), (err: unknown) => err instanceof GoJsonSyntaxError && err.message === 'exceeded max depth')
    assert.deepEqual(parseGoJson('{"a":{"b":[1]}}'), { a: { b: [1] } })
  })
})
