/**
 * The params a binding hands its policy (the reference's generic CollectParams in
 * policy_dispatcher.go, its messages): by name or selector, in the ref's or the request's
 * namespace, for namespaced and cluster-scoped paramKinds, and parameterNotFoundAction.
 */
import assert from 'node:assert/strict'
import { type KindMapping, mapKind } from '../../../../src/server/admission/policy/kinds.js'
import { collectParams } from '../../../../src/server/admission/policy/params.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { type TestRegistry, openTestRegistry } from '../../api/support.js'

describe('admission policies: params (CollectParams)', function () {
  this.timeout(20_000)
  let world: TestRegistry
  let configMaps: KindMapping
  let namespaces: KindMapping
  const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' }
  const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' }

  before(async () => {
    world = await openTestRegistry('vap-params-', ['default', 'other'])
    const store = world.registry.lookup('', 'v1', 'configmaps')!
    for (const [ns, name, labels] of [['default', 'a', { p: 'yes' }], ['default', 'b', { p: 'yes' }], ['other', 'c', { p: 'yes' }]] as const) {
      await store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels }, data: {} } as KubeObject)
    }
    configMaps = (await mapKind(world.registry, { group: '', version: 'v1', kind: 'ConfigMap' }))!
    namespaces = (await mapKind(world.registry, { group: '', version: 'v1', kind: 'Namespace' }))!
  })
  after(async () => world.close())

  const names = (params: Array<KubeObject | null>) => params.map((p) => (p ? `${p.metadata.namespace ?? ''}/${p.metadata.name}` : null))

  it('no paramKind or no paramRef: one evaluation with null params', async () => {
    assert.deepEqual(await collectParams(undefined, undefined, { name: 'a' }, 'default'), [null])
    assert.deepEqual(await collectParams(CONFIGMAP, configMaps, undefined, 'default'), [null])
  })

  it("by name in the request's namespace, or paramRef.namespace", async () => {
    assert.deepEqual(names(await collectParams(CONFIGMAP, configMaps, { name: 'a' }, 'default')), ['default/a'])
    assert.deepEqual(names(await collectParams(CONFIGMAP, configMaps, { name: 'c', namespace: 'other' }, 'default')), ['other/c'])
  })

  it('by selector, every selected object of the namespace', async () => {
    assert.deepEqual(names(await collectParams(CONFIGMAP, configMaps, { selector: { matchLabels: { p: 'yes' } } }, 'default')), ['default/a', 'default/b'])
    assert.deepEqual(names(await collectParams(CONFIGMAP, configMaps, { selector: {} }, 'other')), ['other/c'])
  })

  it('none found: Allow evaluates nothing, Deny is the error', async () => {
    assert.deepEqual(await collectParams(CONFIGMAP, configMaps, { name: 'absent', parameterNotFoundAction: 'Allow' }, 'default'), [])
    await assert.rejects(collectParams(CONFIGMAP, configMaps, { name: 'absent', parameterNotFoundAction: 'Deny' }, 'default'), {
      message: 'no params found for policy binding with `Deny` parameterNotFoundAction',
    })
    await assert.rejects(collectParams(CONFIGMAP, configMaps, { selector: { matchLabels: { p: 'no' } }, parameterNotFoundAction: 'Deny' }, 'default'), /no params found/)
  })

  it('the configuration errors', async () => {
    await assert.rejects(collectParams(CONFIGMAP, configMaps, { name: 'a' }, ''), { message: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' })
    await assert.rejects(collectParams(NAMESPACE, namespaces, { name: 'default', namespace: 'x' }, 'default'), { message: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`' })
    await assert.rejects(collectParams(CONFIGMAP, configMaps, { name: 'a', selector: {} }, 'default'), { message: 'paramRef.name and paramRef.selector are mutually exclusive' })
    await assert.rejects(collectParams(CONFIGMAP, configMaps, {}, 'default'), { message: 'one of name or selector must be provided' })
    assert.deepEqual(names(await collectParams(NAMESPACE, namespaces, { name: 'other' }, 'default')), ['/other'])
  })
})
