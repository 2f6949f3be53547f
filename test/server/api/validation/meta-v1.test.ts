/**
 * ValidateFieldManager (apimachinery meta/v1 validation): printable characters only, at most
 * 128 bytes. The printable-ASCII fast path must agree with the per-character rule.
 */
import assert from 'node:assert/strict'
import { Path } from '../../../../src/server/api/validation/field/path.js'
import { validateFieldManager } from '../../../../src/server/api/validation/meta-v1.js'

const at = Path.of('metadata', 'managedFields').index(0).child('manager')
const details = (manager: string) => validateFieldManager(manager, at).map((e) => `${e.field}: ${e.type}: ${e.detail}`)

describe('validation: field managers', () => {
  it('every printable ASCII character is accepted', () => {
    let all = ''
    for (let c = 0x20; c <= 0x7e; c++) all += String.fromCharCode(c)
    assert.deepEqual(details(all.slice(0, 95)), [])
    assert.deepEqual(details('kubectl-client-side-apply'), [])
  })

  it('a control character is refused with its code point and byte position', () => {
    assert.deepEqual(details('a\tb'), ['metadata.managedFields[0].manager: FieldValueInvalid: invalid character U+0009 (at position 1)'])
    assert.deepEqual(details('é\u0007'), ['metadata.managedFields[0].manager: FieldValueInvalid: invalid character U+0007 (at position 2)'])
    assert.deepEqual(details('\u007f'), ['metadata.managedFields[0].manager: FieldValueInvalid: invalid character U+007F (at position 0)'])
  })

  it('printable non-ASCII is accepted, and counted in bytes against the limit', () => {
    assert.deepEqual(details('gestionnaire-é'), [])
    assert.equal(details('é'.repeat(64)).length, 0)
    assert.equal(details('é'.repeat(65)).length, 1)
  })

  it('more than 128 bytes is too long', () => {
    assert.deepEqual(details('x'.repeat(128)), [])
    assert.deepEqual(details('x'.repeat(129)).map((d) => d.split(': ')[1]), ['FieldValueTooLong'])
  })
})
