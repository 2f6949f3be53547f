/**
 * The JSONPatch library (`jsonpatch.escapeKey`): RFC 6901's escaping of a reference token
 * (section 3: `~` as `~0`, `/` as `~1`), the examples of the reference's library tests.
 */
import assert from 'node:assert/strict'
import { celEnvironment, compileCel } from '../../../../src/core/cel/index.js'
import { escapeJsonPointerKey, registerJsonPatchLibrary } from '../../../../src/core/cel/libraries/jsonpatch.js'

describe('cel: the JSONPatch library', () => {
  it('escapes ~ and / in a key, in that order', () => {
    assert.equal(escapeJsonPointerKey('k8s.io/my~label'), 'k8s.io~1my~0label')
    assert.equal(escapeJsonPointerKey('~1'), '~01')
    assert.equal(escapeJsonPointerKey('plain'), 'plain')
  })

  it('jsonpatch.escapeKey type-checks as a string and evaluates', () => {
    const env = celEnvironment({})
    registerJsonPatchLibrary(env)
    const program = compileCel(env, '"/metadata/labels/" + jsonpatch.escapeKey("app.kubernetes.io/name")', ['string'])
    assert.equal(program.evaluate({}), '/metadata/labels/app.kubernetes.io~1name')
    assert.throws(() => compileCel(env, 'jsonpatch.escapeKey(1)'), /compilation failed/)
  })
})
