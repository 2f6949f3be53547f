import assert from 'node:assert/strict'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { type TestRegistry, openTestRegistry } from './support.js'

const TWO_VERSIONS: KubeObject = {
  metadata: { name: 'widgets.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', kind: 'Widget' },
    versions: [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 5 } } } } } } },
      { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    ],
  },
}

describe('api: custom resources across served versions (conversion None)', () => {
  let t: TestRegistry
  beforeEach(async () => {
    t = await openTestRegistry('api-crd-versions-')
  })
  afterEach(async () => {
    await t.close()
  })

  it('an object written through one version reads through the other with its apiVersion rewritten', async () => {
    await t.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!.create(structuredClone(TWO_VERSIONS))
    const v1 = (await t.registry.resolve('stable.example.com', 'v1', 'widgets'))!
    const beta = (await t.registry.resolve('stable.example.com', 'v1beta1', 'widgets'))!
    await v1.create({ apiVersion: 'stable.example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { size: 2 } })
    const read = await beta.get('default', 'w')
    assert.equal(read.apiVersion, 'stable.example.com/v1beta1')
    assert.deepEqual(read.spec, { size: 2 })
    assert.equal((await v1.get('default', 'w')).apiVersion, 'stable.example.com/v1')
    // Each version validates with its own schema.
    await assert.rejects(v1.create({ apiVersion: 'stable.example.com/v1', kind: 'Widget', metadata: { name: 'big', namespace: 'default' }, spec: { size: 9 } }), (err: Error) => {
      assert.equal(err.message, 'Widget.stable.example.com "big" is invalid: spec.size: Invalid value: 9: spec.size in body should be less than or equal to 5')
      return true
    })
    await beta.create({ apiVersion: 'stable.example.com/v1beta1', kind: 'Widget', metadata: { name: 'big', namespace: 'default' }, spec: { size: 9 } })
  })
})
