import assert from 'node:assert/strict'
import { API_GROUP_VERSIONS } from '../../../src/core/options/api-groups.js'
import { KINDS } from '../../../src/server/api/kinds/index.js'

// `flags validate` and `server start` check --runtime-config against this table: a version the
// server serves but the table lacks would be refused by name although the server can enable it.
describe('API_GROUP_VERSIONS', () => {
  it('names every group version the server serves', () => {
    const missing = [...new Set(KINDS.map((k) => `${k.group}/${k.version}`))].filter((gv) => {
      const [group, version] = gv.includes('/') ? [gv.slice(0, gv.lastIndexOf('/')), gv.slice(gv.lastIndexOf('/') + 1)] : ['', gv]
      return !(API_GROUP_VERSIONS[group] ?? []).includes(version)
    })
    assert.deepEqual(missing, [])
  })
})
