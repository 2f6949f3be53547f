import assert from 'node:assert/strict'
import { KINDS } from '../../../src/server/api/kinds/index.js'
import { apiEnablement, enabledKinds } from '../../../src/server/api/runtime-config.js'

const resources = (entries: Array<[string, string?]>) =>
  new Set(enabledKinds(KINDS, entries.map(([key, value]) => ({ key, ...(value !== undefined ? { value } : {}) }))).flatMap((k) => [`${k.group}/${k.resource}`, `${k.group}/${k.version}/${k.resource}`]))

describe('api: --runtime-config', () => {
  it('serves every GA group version by default; beta and alpha are off', () => {
    assert.equal(resources([]).size, new Set(KINDS.flatMap((k) => [`${k.group}/${k.resource}`, `${k.group}/${k.version}/${k.resource}`])).size)
    const e = apiEnablement([])
    assert.equal(e.versionEnabled('apps', 'v1'), true)
    assert.equal(e.versionEnabled('batch', 'v1beta1'), false)
    assert.equal(e.versionEnabled('resource.k8s.io', 'v1alpha3'), false)
  })

  it('<group>/<version>=false switches a group version off; a bare key means true', () => {
    const r = resources([['batch/v1', 'false']])
    assert.equal(r.has('batch/jobs'), false)
    assert.equal(r.has('batch/cronjobs'), false)
    assert.equal(r.has('apps/deployments'), true)
    assert.equal(apiEnablement([{ key: 'batch/v1beta1' }]).versionEnabled('batch', 'v1beta1'), true)
  })

  it('v1=false (also api/v1=false) is the legacy core group', () => {
    for (const key of ['v1', 'api/v1']) {
      const r = resources([[key, 'false']])
      assert.equal(r.has('/pods'), false)
      assert.equal(r.has('/namespaces'), false)
      assert.equal(r.has('apps/deployments'), true)
    }
  })

  it('api/all, then api/ga|beta|alpha, then group versions decide, in that order', () => {
    assert.deepEqual([...resources([['api/all', 'false'], ['v1', 'true']])].every((r) => r.startsWith('/')), true)
    assert.equal(resources([['api/all', 'false'], ['api/ga', 'true']]).size, resources([]).size)
    assert.equal(resources([['api/ga', 'false'], ['apps/v1', 'true']]).has('apps/deployments'), true)
    assert.equal(resources([['api/ga', 'false'], ['apps/v1', 'true']]).has('batch/jobs'), false)
    assert.equal(apiEnablement([{ key: 'api/beta', value: 'true' }]).versionEnabled('batch', 'v1beta1'), true)
    assert.equal(apiEnablement([{ key: 'api/alpha', value: 'true' }]).versionEnabled('batch', 'v1beta1'), false)
  })

  it('<group>/<version>/<resource> decides for that resource alone', () => {
    const r = resources([['apps/v1/deployments', 'false']])
    assert.equal(r.has('apps/deployments'), false)
    assert.equal(r.has('apps/replicasets'), true)
    const only = resources([['apps/v1', 'false'], ['apps/v1/deployments', 'true']])
    assert.equal(only.has('apps/deployments'), true)
    assert.equal(only.has('apps/replicasets'), false)
  })
})
