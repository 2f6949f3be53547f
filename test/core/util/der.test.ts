/** src/core/util/der.ts: DER elements read one at a time (X.690 definite lengths). */
import assert from 'node:assert/strict'
import { DerError, derChildren, readDerElement } from '../../../src/core/util/der.js'

describe('core/util/der', () => {
  it('reads a short-form element: tag, where it starts, where its contents start and end', () => {
    const der = Uint8Array.from([0x04, 0x02, 0xaa, 0xbb])
    assert.deepEqual(readDerElement(der, 0, der.length), { tag: 0x04, start: 0, contentStart: 2, end: 4 })
  })

  it('reads a long-form length (0x82: two length bytes)', () => {
    const der = new Uint8Array(4 + 300)
    der.set([0x04, 0x82, 0x01, 0x2c])
    assert.deepEqual(readDerElement(der, 0, der.length), { tag: 0x04, start: 0, contentStart: 4, end: 304 })
  })

  it('refuses contents running past the limit, a missing length, and lengths of 0 or more than 4 bytes', () => {
    assert.throws(() => readDerElement(Uint8Array.from([0x04, 0x03, 0x00]), 0, 3), DerError)
    assert.throws(() => readDerElement(Uint8Array.from([0x04]), 0, 1), DerError)
    assert.throws(() => readDerElement(Uint8Array.from([0x04, 0x80, 0x00]), 0, 3), DerError)
    assert.throws(() => readDerElement(Uint8Array.from([0x04, 0x85, 0, 0, 0, 0, 1, 0]), 0, 8), DerError)
  })

  it('lists the elements directly inside a SEQUENCE, not their insides', () => {
    // SEQUENCE { INTEGER 5, SEQUENCE { NULL }, OCTET STRING 'a' }
    const der = Uint8Array.from([0x30, 0x0a, 0x02, 0x01, 0x05, 0x30, 0x02, 0x05, 0x00, 0x04, 0x01, 0x61])
    const children = derChildren(der, readDerElement(der, 0, der.length))
    assert.deepEqual(
      children.map((c) => [c.tag, c.start, c.end]),
      [
        [0x02, 2, 5],
        [0x30, 5, 9],
        [0x04, 9, 12],
      ],
    )
  })
})
