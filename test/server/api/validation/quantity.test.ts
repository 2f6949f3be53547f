/**
 * resource.Quantity as validation uses it: comparison (Cmp) across formats and magnitudes, on
 * both sides of the doubles' exact range, and parsing through the shared cache of parsed texts.
 * Expected values are the reference's (apimachinery pkg/api/resource quantity_test.go).
 */
import assert from 'node:assert/strict'
import { compareQuantity, parseQuantity, quantityString, type Quantity } from '../../../../src/server/api/validation/quantity.js'
import { byteLength } from '../../../../src/server/api/validation/strings.js'

const q = (text: string): Quantity => {
  const parsed = parseQuantity(text)
  assert.ok(parsed, `${text} should parse`)
  return parsed
}

describe('validation: quantities', () => {
  const cases: [string, string, number][] = [
    ['100m', '1', -1],
    ['1', '1000m', 0],
    ['1Gi', '1G', 1],
    ['1Ki', '1024', 0],
    ['-1', '0', -1],
    ['-2', '-1', -1],
    ['1e3', '1k', 0],
    ['1n', '0.000000001', 0],
    ['1E', '1000P', 0],
    ['999999999999999999', '1E', -1],
    // Beyond 2^53: 9007199254740993 is not a double, the bigint comparison decides.
    ['9007199254740993', '9007199254740992', 1],
    ['9007199254740993m', '9007199254740992m', 1],
    ['1Ei', '1152921504606846975', 1],
    ['1e-20', '0', 1],
    ['123456789012345678e-3', '123456789012345.678', 0],
  ]
  for (const [a, b, want] of cases) {
    it(`Cmp(${a}, ${b}) is ${want}, and the reverse ${-want}`, () => {
      assert.equal(compareQuantity(q(a), q(b)), want)
      assert.equal(compareQuantity(q(b), q(a)), -want || 0)
    })
  }

  it('a text parses to the same value every time (parsed once, shared, frozen)', () => {
    const first = q('250m')
    const again = q('250m')
    assert.deepEqual(again, first)
    assert.ok(Object.isFrozen(again))
    assert.equal(quantityString(again), '250m')
  })

  it('texts that are not quantities stay refused when asked again', () => {
    for (const text of [' 1', '1 ', '1.5.5', 'abc', '1Qi', '']) {
      assert.equal(parseQuantity(text), undefined, text)
      assert.equal(parseQuantity(text), undefined, `${text} (again)`)
    }
  })

  it('canonical forms, as the reference prints them', () => {
    assert.equal(quantityString(q('1000')), '1k')
    assert.equal(quantityString(q('1024Mi')), '1Gi')
    assert.equal(quantityString(q('0.5')), '500m')
    assert.equal(quantityString(parseQuantity(1.5)!), '1500m')
  })

  it('more distinct texts than the cache keeps still parse right', () => {
    for (let i = 0; i < 3000; i++) assert.equal(quantityString(q(`${i + 1}Mi`)), i + 1 === 1024 ? '1Gi' : i + 1 === 2048 ? '2Gi' : `${i + 1}Mi`)
  })
})

describe('validation: byteLength counts UTF-8 bytes as Go len()', () => {
  for (const [text, want] of [
    ['', 0],
    ['app', 3],
    ['é', 2],
    ['日本', 6],
    ['x'.repeat(64), 64],
    [`${'x'.repeat(63)}é`, 65],
    ['x'.repeat(70), 70],
    [`${'x'.repeat(70)}é`, 72],
  ] as const) {
    it(`${JSON.stringify(text.length > 10 ? `${text.slice(0, 4)}…(${text.length})` : text)}: ${want}`, () => assert.equal(byteLength(text), want))
  }
})
