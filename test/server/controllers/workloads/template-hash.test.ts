/**
 * The hash pieces against their definitions: FNV-1a and FNV-1 32-bit test vectors (the FNV
 * reference's: "" and "a"), apimachinery's rand.SafeEncodeString over its alphabet
 * "bcdfghjklmnpqrstvwxz2456789" (byte % 27), and ComputeHash's shape: the decimal of the sum
 * encoded, changed by the collision count.
 */
import assert from 'node:assert/strict'
import { canonicalJson, computeHash, fnv32, fnv32a, safeEncodeString } from '../../../../src/server/controllers/workloads/template-hash.js'

describe('controllers: template hashes', () => {
  it('FNV-32a and FNV-32 match the published test vectors', () => {
    assert.equal(fnv32a(Buffer.from('')), 0x811c9dc5)
    assert.equal(fnv32a(Buffer.from('a')), 0xe40c292c)
    assert.equal(fnv32a(Buffer.from('foobar')), 0xbf9cf968)
    assert.equal(fnv32(Buffer.from('a')), 0x050c5d7e)
    assert.equal(fnv32(Buffer.from('foobar')), 0x31f0b262)
  })

  it('SafeEncodeString maps each byte to alphanums[b % 27]', () => {
    // '0'..'9' are bytes 48..57: 48 % 27 = 21 -> '4', ..., 54 % 27 = 0 -> 'b'.
    assert.equal(safeEncodeString('0123456789'), '456789bcdf')
  })

  it('ComputeHash renders the decimal of the sum and changes with the collision count', () => {
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'a', image: 'nginx' }] } }
    assert.equal(computeHash(template), safeEncodeString(String(fnv32a(Buffer.from(canonicalJson(template))))))
    assert.match(computeHash(template), /^[456789bcdf]{1,10}$/)
    assert.notEqual(computeHash(template, 1), computeHash(template))
    assert.equal(computeHash({ spec: template.spec, metadata: template.metadata }), computeHash(template))
  })
})
