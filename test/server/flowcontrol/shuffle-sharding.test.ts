import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { dealHand, hashFlowID } from '../../../src/server/flowcontrol/shuffle-sharding.js'

describe('flow control: shuffle sharding', () => {
  it('hashes a flow as the first 8 bytes (little-endian) of SHA-256 over schema, NUL, distinguisher', () => {
    const digest = createHash('sha256').update('global-default\u0000alice').digest()
    let expected = 0n
    for (let i = 7; i >= 0; i--) expected = (expected << 8n) | BigInt(digest[i]!)
    assert.equal(hashFlowID('global-default', 'alice'), expected)
    assert.notEqual(hashFlowID('global-default', 'alice'), hashFlowID('global-default', 'bob'))
  })

  it('deals distinct cards of the deck, the same hand for the same hash', () => {
    for (const [deck, hand] of [[64, 6], [128, 6], [16, 4], [8, 8], [1, 1]] as const) {
      for (let n = 0; n < 200; n++) {
        const h = hashFlowID('s', String(n))
        const cards = dealHand(h, deck, hand)
        assert.equal(cards.length, hand)
        assert.equal(new Set(cards).size, hand, `duplicate card in ${cards}`)
        for (const c of cards) assert.ok(c >= 0 && c < deck)
        assert.deepEqual(dealHand(h, deck, hand), cards)
      }
    }
  })

  it('deals by mixed-radix digits of the hash, skipping cards already dealt', () => {
    // 7 = 1×4 + 3 in base 4, then 1 in base 3: first card 3; second digit 1 → the second of {0,1,2} = 1.
    assert.deepEqual(dealHand(7n, 4, 2), [3, 1])
    // 0 deals the lowest cards in order.
    assert.deepEqual(dealHand(0n, 10, 3), [0, 1, 2])
  })
})
