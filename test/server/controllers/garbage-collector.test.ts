import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { Registry } from '../../../src/server/api/registry/registry.js'
import { DEFAULT_STORAGE_MEDIA_TYPE, StorageCodec } from '../../../src/server/api/registry/storage-codec.js'
import { RetryTimer } from '../../../src/server/controllers/retry-timer.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

const ref = (owner: KubeObject, extra: Record<string, unknown> = {}) => ({
  apiVersion: owner.apiVersion!,
  kind: owner.kind!,
  name: owner.metadata.name!,
  uid: owner.metadata.uid!,
  ...extra,
})

describe('gc: the garbage collector over the registry', function () {
  this.timeout(10_000)
  let t: TestRegistry
  const store = (resource: string, group = '', version = 'v1'): GenericStore => t.registry.lookup(group, version, resource)!
  const configmaps = () => store('configmaps')
  const deployments = () => store('deployments', 'apps')
  const exists = async (s: GenericStore, ns: string | undefined, name: string) => (await s.list(ns ? { namespace: ns } : {})).items.some((o) => o.metadata.name === name)
  const deployment = (name: string, ns = 'default') => ({
    metadata: { name, namespace: ns },
    spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  })
  const dependent = (name: string, owners: unknown[], extra: Record<string, unknown> = {}, ns = 'default') => ({
    metadata: { name, namespace: ns, ownerReferences: owners, ...extra },
  })

  beforeEach(async () => {
    t = await openTestRegistry('gc-', ['default', 'other'], { garbageCollector: true })
  })
  afterEach(async () => {
    await t.close()
  })

  it('background: dependents whose owners are all gone are deleted; a remaining owner keeps one', async () => {
    const owner = await deployments().create(deployment('web'))
    const second = await configmaps().create({ metadata: { name: 'second', namespace: 'default' } })
    await configmaps().create(dependent('only-web', [ref(owner)]))
    await configmaps().create(dependent('shared', [ref(owner), ref(second)]))
    const result = await deployments().deleteObject('default', 'web')
    assert.equal(result.deleted, true)
    await eventually(async () => !(await exists(configmaps(), 'default', 'only-web')), 'the dependent to go')
    await eventually(async () => ((await configmaps().get('default', 'shared')).metadata.ownerReferences as unknown[]).length === 1, 'the dangling reference to go')
    assert.equal(((await configmaps().get('default', 'shared')).metadata.ownerReferences as Array<{ uid: string }>)[0]!.uid, second.metadata.uid)
  })

  it('a pass reads only the objects that name owners or are being deleted', async () => {
    const owner = await deployments().create(deployment('web'))
    for (let i = 0; i < 20; i++) await configmaps().create({ metadata: { name: `plain-${i}`, namespace: 'default' }, data: { a: 'b' } })
    await configmaps().create(dependent('owned', [ref(owner)]))
    const mentioned = await configmaps().listWithMetadata(['ownerReferences', 'deletionTimestamp'])
    assert.deepEqual(mentioned.map((o) => o.metadata.name), ['owned'])
    // Stored as protobuf (the server's default), the plain ones are remembered by version, not decoded again.
    const codec = new StorageCodec(DEFAULT_STORAGE_MEDIA_TYPE)
    await codec.ready()
    const protobuf = new Registry(codec.wrap(t.store), undefined, undefined, {}).lookup('', 'v1', 'configmaps')!
    for (let i = 0; i < 5; i++) await protobuf.create({ metadata: { name: `pb-${i}`, namespace: 'other' }, data: { a: 'b' } })
    const memo = new Map<string, number>()
    assert.deepEqual((await protobuf.listWithMetadata(['ownerReferences', 'deletionTimestamp'], memo)).map((o) => o.metadata.name), ['owned'])
    assert.equal([...memo.keys()].filter((k) => k.includes('/pb-')).length, 5)
    await protobuf.deleteObject('other', 'pb-1')
    assert.deepEqual((await protobuf.listWithMetadata(['ownerReferences', 'deletionTimestamp'], memo)).map((o) => o.metadata.name), ['owned'])
    assert.equal([...memo.keys()].filter((k) => k.includes('/pb-')).length, 4)
    // An owner outside that set (a Deployment without owners) is still found by name.
    await deployments().deleteObject('default', 'web')
    await eventually(async () => !(await exists(configmaps(), 'default', 'owned')), 'the dependent to go')
    assert.ok(await exists(configmaps(), 'default', 'plain-0'))
  })

  it('an owner that never existed, or of the same name but another uid, is gone', async () => {
    await deployments().create(deployment('web'))
    await configmaps().create(dependent('ghost', [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: randomUUID() }]))
    await configmaps().create(dependent('kept', [{ apiVersion: 'example.com/v1', kind: 'Unserved', name: 'x', uid: randomUUID() }]))
    await eventually(async () => !(await exists(configmaps(), 'default', 'ghost')), 'the dependent to go')
    assert.ok(await exists(configmaps(), 'default', 'kept'))
  })

  it('orphan: the references go from the dependents, then the owner goes', async () => {
    const owner = await deployments().create(deployment('web'))
    await configmaps().create(dependent('d', [ref(owner, { controller: true, blockOwnerDeletion: true })]))
    const result = await deployments().deleteObject('default', 'web', { propagationPolicy: 'Orphan' })
    assert.equal(result.deleted, false)
    assert.deepEqual(result.object.metadata.finalizers, ['orphan'])
    await eventually(async () => !(await exists(deployments(), 'default', 'web')), 'the owner to go')
    const orphaned = await configmaps().get('default', 'd')
    assert.equal(orphaned.metadata.ownerReferences, undefined)
  })

  it('foreground: the owner waits for blocking dependents, which go first', async () => {
    const owner = await deployments().create(deployment('web'))
    await configmaps().create(dependent('blocking', [ref(owner, { blockOwnerDeletion: true })], { finalizers: ['example.com/hold'] }))
    await configmaps().create(dependent('loose', [ref(owner)]))
    const result = await deployments().deleteObject('default', 'web', { propagationPolicy: 'Foreground' })
    assert.deepEqual(result.object.metadata.finalizers, ['foregroundDeletion'])
    await eventually(async () => !(await exists(configmaps(), 'default', 'loose')), 'the loose dependent to go')
    await eventually(async () => Boolean((await configmaps().get('default', 'blocking')).metadata.deletionTimestamp), 'the blocking dependent to be deleted')
    await new Promise((resolve) => setTimeout(resolve, 200))
    const waiting = await deployments().get('default', 'web')
    assert.deepEqual(waiting.metadata.finalizers, ['foregroundDeletion'])
    // The dependent was deleted in the foreground too; having no dependents, it keeps only its own finalizer.
    await eventually(async () => (await configmaps().get('default', 'blocking')).metadata.finalizers?.toString() === 'example.com/hold', 'its foregroundDeletion to go')
    await configmaps().update('default', 'blocking', (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: [] } }))
    await eventually(async () => !(await exists(configmaps(), 'default', 'blocking')), 'the blocking dependent to go')
    await eventually(async () => !(await exists(deployments(), 'default', 'web')), 'the owner to go')
  })

  it('cluster-scoped owners across namespaces, and custom resources as dependents', async () => {
    const crds = store('customresourcedefinitions', 'apiextensions.k8s.io')
    await crds.create({
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    })
    const widgets = (await t.registry.resolve('example.com', 'v1', 'widgets'))!
    const owner = await store('namespaces').create({ metadata: { name: 'owner-ns' } })
    await widgets.create({ apiVersion: 'example.com/v1', kind: 'Widget', ...dependent('w', [ref(owner)], {}, 'other') })
    await store('namespaces').deleteObject(undefined, 'owner-ns')
    await eventually(async () => !(await exists(widgets, 'other', 'w')), 'the custom resource to go')
  })

  it('without --enable-garbage-collector dependents stay', async () => {
    const off = await openTestRegistry('gc-off-', ['default'])
    try {
      const deploys = off.registry.lookup('apps', 'v1', 'deployments')!
      const cms = off.registry.lookup('', 'v1', 'configmaps')!
      const owner = await deploys.create(deployment('web'))
      await cms.create(dependent('d', [ref(owner)]))
      await deploys.deleteObject('default', 'web')
      await new Promise((resolve) => setTimeout(resolve, 200))
      assert.equal((await cms.list({ namespace: 'default' })).items.length, 1)
    } finally {
      await off.close()
    }
  })

  it('a run asking for a later run while running waits that long (no busy loop)', async () => {
    const runs: number[] = []
    let timer: RetryTimer | undefined = undefined
    timer = new RetryTimer(
      async () => {
        runs.push(Date.now())
        if (runs.length === 1) timer!.schedule(150)
      },
      () => {},
    )
    timer.schedule(0)
    await eventually(async () => runs.length === 2, 'the second run')
    await new Promise((resolve) => setTimeout(resolve, 100))
    timer.stop()
    assert.equal(runs.length, 2)
    assert.ok(runs[1]! - runs[0]! >= 140, `ran again after ${runs[1]! - runs[0]!} ms`)
  })

  it('a failing pass runs again', async () => {
    let calls = 0
    const errors: unknown[] = []
    const timer = new RetryTimer(
      async () => {
        calls++
        if (calls === 1) throw new Error('store unavailable')
      },
      (err) => errors.push(err),
      50,
    )
    timer.schedule(0)
    await eventually(async () => calls === 2, 'the retry')
    timer.stop()
    assert.equal((errors[0] as Error).message, 'store unavailable')
  })
})
