import assert from 'node:assert/strict'
import { randomUuid } from '../../../src/core/util/random-uuid.js'

describe('randomUuid', () => {
  it('makes version 4 UUIDs in the canonical form, all different', () => {
    const seen = new Set<string>()
    // More than one batch of the pool, so that refilling it is exercised.
    for (let i = 0; i < 1000; i++) {
      const id = randomUuid()
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      seen.add(id)
    }
    assert.equal(seen.size, 1000)
  })

  it('uses every hex digit in every free position over many draws (the bytes are random, not patterned)', () => {
    const digits = Array.from({ length: 36 }, () => new Set<string>())
    for (let i = 0; i < 2000; i++) [...randomUuid()].forEach((c, j) => digits[j]!.add(c))
    for (let j = 0; j < 36; j++) {
      if ([8, 13, 18, 23].includes(j)) assert.deepEqual([...digits[j]!], ['-'])
      else if (j === 14) assert.deepEqual([...digits[j]!], ['4'])
      else if (j === 19) assert.deepEqual([...digits[j]!].sort(), ['8', '9', 'a', 'b'])
      else assert.equal(digits[j]!.size, 16, `position ${j}`)
    }
  })
})
