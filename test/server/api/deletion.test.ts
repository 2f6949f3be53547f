import assert from 'node:assert/strict'
import { forEachWithWorkers } from '../../../src/server/api/handlers/delete.js'
import type { ApiWatchEvent, GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { Registry } from '../../../src/server/api/registry/registry.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { type TestRegistry, eventually, openTestRegistry } from './support.js'
import { startControllers } from '../controllers/support.js'

async function rejectsWith(p: Promise<unknown>, code: number, reason: string, message: string): Promise<ApiError> {
  try {
    await p
  } catch (err) {
    assert.ok(err instanceof ApiError, `not an ApiError: ${String(err)}`)
    assert.equal(err.status.code, code)
    assert.equal(err.status.reason, reason)
    assert.equal(err.status.message, message)
    return err
  }
  assert.fail('expected a rejection')
}

async function take(it: AsyncIterator<ApiWatchEvent>, n: number): Promise<ApiWatchEvent[]> {
  const out: ApiWatchEvent[] = []
  while (out.length < n) {
    const r = await it.next()
    if (r.done) break
    out.push(r.value)
  }
  return out
}

const without = (finalizer: string) => (cur: KubeObject) => ({
  ...cur,
  metadata: { ...cur.metadata, finalizers: ((cur.metadata.finalizers as string[] | undefined) ?? []).filter((f) => f !== finalizer) },
})

describe('api: deletion (finalizers, graceful pods, propagation, namespaces)', function () {
  let t: TestRegistry
  const store = (resource: string, group = '', version = 'v1'): GenericStore => t.registry.lookup(group, version, resource)!
  const configmaps = () => store('configmaps')
  const cm = (name: string, finalizers?: string[], ns = 'default') => ({ metadata: { name, namespace: ns, ...(finalizers ? { finalizers } : {}) }, data: { k: 'v' } })

  beforeEach(async () => {
    t = await openTestRegistry('deletion-')
  })
  afterEach(async () => {
    await t.close()
  })

  it('an object with finalizers is only marked deleted, stays until an update removes the last finalizer', async () => {
    const created = await configmaps().create(cm('x', ['example.com/keep']))
    const watch = await configmaps().watch({ namespace: 'default', resourceVersion: created.metadata.resourceVersion! })
    const it = watch[Symbol.asyncIterator]()

    const first = await configmaps().deleteObject('default', 'x')
    assert.equal(first.deleted, false)
    assert.equal(first.updated, true)
    assert.match(first.object.metadata.deletionTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    assert.equal(first.object.metadata.deletionGracePeriodSeconds, 0)
    const stored = await configmaps().get('default', 'x')
    assert.equal(stored.metadata.deletionTimestamp, first.object.metadata.deletionTimestamp)

    // A second DELETE answers the object again and changes nothing.
    const second = await configmaps().deleteObject('default', 'x')
    assert.equal(second.deleted, false)
    assert.equal(second.object.metadata.deletionTimestamp, first.object.metadata.deletionTimestamp)
    assert.equal(second.object.metadata.resourceVersion, first.object.metadata.resourceVersion)

    await rejectsWith(
      configmaps().update('default', 'x', (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: ['example.com/keep', 'b', 'a'] } })),
      422,
      'Invalid',
      'ConfigMap "x" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a", "b"}',
    )
    await rejectsWith(
      configmaps().update('default', 'x', (cur) => ({ ...cur, metadata: { ...cur.metadata, deletionGracePeriodSeconds: 5 } })),
      422,
      'Invalid',
      'ConfigMap "x" is invalid: metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable',
    )
    // deletionTimestamp stays whatever the client sends.
    const kept = await configmaps().update('default', 'x', (cur) => {
      const { deletionTimestamp: _d, ...metadata } = cur.metadata
      void _d
      return { ...cur, metadata, data: { k: 'v2' } }
    })
    assert.equal(kept.metadata.deletionTimestamp, first.object.metadata.deletionTimestamp)

    const last = await configmaps().update('default', 'x', without('example.com/keep'))
    assert.deepEqual(last.metadata.finalizers, [])
    await rejectsWith(configmaps().get('default', 'x'), 404, 'NotFound', 'configmaps "x" not found')

    const events = await take(it, 3)
    watch.cancel()
    assert.deepEqual(
      events.map((e) => e.type),
      ['MODIFIED', 'MODIFIED', 'DELETED'],
    )
  })

  it('dry run changes nothing; without finalizers the object goes at once', async () => {
    await configmaps().create(cm('x', ['example.com/keep']))
    const dry = await configmaps().deleteObject('default', 'x', { dryRun: true })
    assert.equal(dry.deleted, false)
    assert.ok(dry.object.metadata.deletionTimestamp)
    assert.equal((await configmaps().get('default', 'x')).metadata.deletionTimestamp, undefined)

    await configmaps().create(cm('y'))
    const gone = await configmaps().deleteObject('default', 'y')
    assert.equal(gone.deleted, true)
    await rejectsWith(configmaps().get('default', 'y'), 404, 'NotFound', 'configmaps "y" not found')
  })

  it('without the garbage collector the propagation policy adds no finalizer', async () => {
    await configmaps().create(cm('o'))
    assert.equal((await configmaps().deleteObject('default', 'o', { propagationPolicy: 'Orphan' })).deleted, true)
    await configmaps().create(cm('f', ['example.com/keep']))
    assert.deepEqual((await configmaps().deleteObject('default', 'f', { propagationPolicy: 'Foreground' })).object.metadata.finalizers, ['example.com/keep'])
  })

  it('propagationPolicy Orphan / Foreground add the garbage collector finalizers; events support none', async () => {
    await t.close()
    t = await openTestRegistry('deletion-gc-', ['default'], { garbageCollector: true })
    await configmaps().create(cm('o'))
    const orphan = await configmaps().deleteObject('default', 'o', { propagationPolicy: 'Orphan' })
    assert.deepEqual(orphan.object.metadata.finalizers, ['orphan'])
    await configmaps().create(cm('f', ['example.com/keep']))
    const foreground = await configmaps().deleteObject('default', 'f', { propagationPolicy: 'Foreground' })
    assert.deepEqual(foreground.object.metadata.finalizers, ['example.com/keep', 'foregroundDeletion'])
    await configmaps().create(cm('legacy'))
    const legacy = await configmaps().deleteObject('default', 'legacy', { orphanDependents: true })
    assert.deepEqual(legacy.object.metadata.finalizers, ['orphan'])
    await configmaps().create(cm('b'))
    assert.equal((await configmaps().deleteObject('default', 'b', { propagationPolicy: 'Background' })).deleted, true)

    const events = store('events')
    await events.create({ metadata: { name: 'e', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'R', message: 'm' })
    assert.equal((await events.deleteObject('default', 'e', { propagationPolicy: 'Orphan' })).deleted, true)
  })

  it('pods on a node are deleted gracefully; unscheduled ones at once; the grace period runs out here', async () => {
    const pods = store('pods')
    const pod = (name: string, spec: Record<string, unknown>) => ({ metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } })
    await pods.create(pod('a', { nodeName: 'n1', terminationGracePeriodSeconds: 30 }))
    const before = Date.now()
    const graceful = await pods.deleteObject('default', 'a')
    assert.equal(graceful.deleted, false)
    assert.equal(graceful.object.metadata.deletionGracePeriodSeconds, 30)
    const at = Date.parse(graceful.object.metadata.deletionTimestamp!)
    assert.ok(at >= before + 29_000 && at <= Date.now() + 31_000, `deletionTimestamp ${graceful.object.metadata.deletionTimestamp}`)
    // A longer or equal grace period changes nothing; 0 deletes now.
    const again = await pods.deleteObject('default', 'a', { gracePeriodSeconds: 60 })
    assert.equal(again.deleted, false)
    assert.equal(again.updated, false)
    assert.equal(again.object.metadata.deletionGracePeriodSeconds, 30)
    assert.equal((await pods.deleteObject('default', 'a', { gracePeriodSeconds: 0 })).deleted, true)

    await pods.create(pod('unscheduled', { terminationGracePeriodSeconds: 30 }))
    assert.equal((await pods.deleteObject('default', 'unscheduled')).deleted, true)

    await pods.create(pod('short', { nodeName: 'n1' }))
    const short = await pods.deleteObject('default', 'short', { gracePeriodSeconds: 1 })
    assert.equal(short.deleted, false)
    await eventually(async () => (await pods.list({ namespace: 'default' })).items.length === 0, 'the pod to go when its grace period ends', 4000)
  })

  it('a namespace goes Terminating, refuses new content, and goes once its contents are gone', async () => {
    const namespaces = store('namespaces')
    await namespaces.create({ metadata: { name: 'team' } })
    await configmaps().create(cm('plain', undefined, 'team'))
    await configmaps().create(cm('held', ['example.com/keep'], 'team'))
    const marked = await namespaces.deleteObject(undefined, 'team')
    assert.equal(marked.deleted, false)
    assert.equal((marked.object.status as { phase: string }).phase, 'Terminating')
    assert.ok(marked.object.metadata.deletionTimestamp)
    assert.deepEqual((marked.object.spec as { finalizers: string[] }).finalizers, ['kubernetes'])

    const refused = await rejectsWith(
      configmaps().create(cm('new', undefined, 'team')),
      403,
      'Forbidden',
      'configmaps "new" is forbidden: unable to create new content in namespace team because it is being terminated',
    )
    assert.deepEqual(refused.status.details?.causes, [{ reason: 'NamespaceTerminating', message: 'namespace team is being terminated', field: 'metadata.namespace' }])
    await rejectsWith(
      configmaps().create({ metadata: { generateName: 'gen-', namespace: 'team' } }),
      403,
      'Forbidden',
      'configmaps "gen-" is forbidden: unable to create new content in namespace team because it is being terminated',
    )

    await eventually(async () => (await configmaps().list({ namespace: 'team' })).items.length === 1, 'the plain config map to go')
    const held = await configmaps().get('team', 'held')
    assert.ok(held.metadata.deletionTimestamp)
    // The namespace waits for the finalizer; a DELETE meanwhile answers it again.
    const waiting = await namespaces.deleteObject(undefined, 'team')
    assert.equal(waiting.deleted, false)
    assert.equal((waiting.object.status as { phase: string }).phase, 'Terminating')

    await configmaps().update('team', 'held', without('example.com/keep'))
    await eventually(async () => (await namespaces.list()).items.every((n) => n.metadata.name !== 'team'), 'the namespace to go')
  })

  it('after a restart, Terminating namespaces and pods in graceful deletion are finished', async () => {
    const raw = (obj: unknown) => Buffer.from(JSON.stringify(obj))
    // The contents first: the namespace written last is the state a restart finds.
    await t.store.create('/configmaps/left/c', raw({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'left', uid: 'u-c' } }))
    await t.store.create(
      '/pods/default/p',
      raw({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: 'default', uid: 'u-p', deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 },
        spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] },
      }),
    )
    await t.store.create(
      '/namespaces/left',
      raw({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'left', uid: 'u-left', deletionTimestamp: '2026-01-01T00:00:00Z' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Terminating' } }),
    )
    const restarted = new Registry(t.store)
    const controllers = await startControllers(restarted)
    try {
      await eventually(async () => !(await t.store.get('/namespaces/left')) && !(await t.store.get('/configmaps/left/c')), 'the namespace and its contents to go')
      await eventually(async () => !(await t.store.get('/pods/default/p')), 'the pod to go')
    } finally {
      await controllers.stop()
      restarted.stop()
    }
  })

  it('the finalize subresource writes only spec.finalizers; emptying it removes a terminating namespace', async () => {
    const namespaces = store('namespaces')
    await namespaces.create({ metadata: { name: 'fin' } })
    const untouched = await namespaces.update(undefined, 'fin', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { a: 'b' } }, spec: { finalizers: ['example.com/x'] } }), {
      subresource: 'finalize',
    })
    assert.deepEqual((untouched.spec as { finalizers: string[] }).finalizers, ['example.com/x'])
    assert.equal(untouched.metadata.labels?.a, undefined)
    await namespaces.deleteObject(undefined, 'fin')
    // The namespace controller is done with it (no content); example.com/x keeps it.
    await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal(((await namespaces.get(undefined, 'fin')).status as { phase: string }).phase, 'Terminating')
    await namespaces.update(undefined, 'fin', (cur) => ({ ...cur, spec: { finalizers: [] } }), { subresource: 'finalize' })
    await rejectsWith(namespaces.get(undefined, 'fin'), 404, 'NotFound', 'namespaces "fin" not found')
  })

  it('deletecollection workers run at most that many deletions at once', async () => {
    for (const workers of [1, 3]) {
      let running = 0
      let most = 0
      const done: number[] = []
      await forEachWithWorkers([1, 2, 3, 4, 5, 6, 7], workers, async (n) => {
        running++
        most = Math.max(most, running)
        await new Promise((resolve) => setTimeout(resolve, 5))
        done.push(n)
        running--
      })
      assert.equal(most, workers)
      assert.deepEqual(done.sort(), [1, 2, 3, 4, 5, 6, 7])
    }
    await assert.rejects(
      forEachWithWorkers([1, 2], 2, async (n) => {
        if (n === 2) throw new Error('boom')
      }),
      /boom/,
    )
  })
})
