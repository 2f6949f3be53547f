import assert from 'node:assert/strict'
import { AlwaysAdmit } from '../../../src/server/admission/always-admit.js'
import { AlwaysDeny } from '../../../src/server/admission/always-deny.js'
import type { AdmissionOperation } from '../../../src/server/admission/attributes.js'
import { allAdmissionPlugins } from '../../../src/server/admission/register.js'
import { attributesFor, noLog, refusal } from './table-support.js'

// The reference's admit/admission_test.go and deny/admission_test.go.
const OPERATIONS: AdmissionOperation[] = ['CREATE', 'CONNECT', 'UPDATE', 'DELETE']
const record = () => attributesFor({ kind: 'kind', resource: 'resource', subresource: 'subresource', namespace: 'namespace', name: 'name' })

describe('admission: AlwaysAdmit and AlwaysDeny', () => {
  it('AlwaysAdmit admits and validates every request, handles every operation, and says it is deprecated', async () => {
    const logged: string[] = []
    const plugin = new AlwaysAdmit({ log: (_level, message) => void logged.push(message) })
    await plugin.admit(record())
    await plugin.validate(record())
    for (const op of OPERATIONS) assert.ok(plugin.handles(op), op)
    assert.deepEqual(logged, ['AlwaysAdmit admission controller is deprecated. Please remove this controller from your configuration files and scripts.'])
  })

  it('AlwaysDeny refuses in both phases with the reference Forbidden, and handles every operation', async () => {
    const plugin = new AlwaysDeny(noLog)
    const expected = { code: 403, reason: 'Forbidden', message: 'resource "name" is forbidden: admission control is denying all modifications' }
    assert.deepEqual(await refusal(plugin.admit(record())), expected)
    assert.deepEqual(await refusal(plugin.validate(record())), expected)
    const pods = attributesFor({ name: '', object: { metadata: { generateName: 'web-' } } })
    assert.equal((await refusal(plugin.validate(pods)))?.message, 'pods "web-" is forbidden: admission control is denying all modifications')
    for (const op of OPERATIONS) assert.ok(plugin.handles(op), op)
  })

  it('both are registered under their names', () => {
    const plugins = allAdmissionPlugins()
    assert.ok(plugins.has('AlwaysAdmit') && plugins.has('AlwaysDeny'))
  })
})
