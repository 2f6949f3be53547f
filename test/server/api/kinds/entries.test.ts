import assert from 'node:assert/strict'
import { RESOURCES } from '../../../../src/server/api/generated/resources.js'
import { ENTRIES } from '../../../../src/server/api/kinds/builtin.js'

describe('kinds: the entries of the API groups', () => {
  it('every entry names a generated kind (a mistyped key would be ignored)', () => {
    const generated = new Set(RESOURCES.map((r) => `${r.group}/${r.version}/${r.resource}`))
    assert.deepEqual(
      Object.keys(ENTRIES).filter((key) => !generated.has(key)),
      [],
    )
  })
})
