/**
 * The ReplicaSet and ReplicationController controllers over a registry: pods made from the
 * template with the controller reference, scale up and down, adoption of matching orphans and
 * release of pods relabelled away, status counts as pods become Ready. Expected strings are the
 * reference's (pkg/controller/controller_utils.go: "Created pod: %v", "Deleted pod: %v").
 */
import assert from 'node:assert/strict'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { ReplicaSetController } from '../../../../src/server/controllers/replicaset.js'
import { replicationControllerController } from '../../../../src/server/controllers/replication-controller.js'
import { type Cluster, eventually, events, openCluster, podTemplate } from './support.js'

describe('controllers: replicaset-controller', function () {
  this.timeout(20_000)
  let c: Cluster
  const rs = (replicas: number): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web', namespace: 'default' },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: podTemplate({ app: 'web' }) },
  })
  const getRS = () => c.store('apps', 'replicasets').get('default', 'web')
  const owned = async () => (await c.pods()).filter((p) => (p.metadata.ownerReferences as Array<{ name: string }> | undefined)?.some((r) => r.name === 'web'))

  beforeEach(async () => {
    c = await openCluster('rs-', [new ReplicaSetController(), replicationControllerController()])
  })
  afterEach(() => c.close())

  it('creates the pods from the template with the controller reference and generated names, and records SuccessfulCreate', async () => {
    const created = await c.store('apps', 'replicasets').create(rs(3))
    await eventually(async () => (await owned()).length === 3, 'three pods')
    for (const pod of await owned()) {
      assert.match(pod.metadata.name!, /^web-[a-z0-9]{5}$/)
      assert.equal(pod.metadata.generateName, 'web-')
      assert.deepEqual(pod.metadata.labels, { app: 'web' })
      assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }])
    }
    await eventually(async () => (await events(c, 'web')).filter((e) => e.reason === 'SuccessfulCreate').length === 3, 'three events')
    const names = (await owned()).map((p) => p.metadata.name).sort()
    const messages = (await events(c, 'web')).filter((e) => e.reason === 'SuccessfulCreate').map((e) => e.message).sort()
    assert.deepEqual(messages, names.map((n) => `Created pod: ${n}`))
    assert.equal((await events(c, 'web'))[0]!.component, 'replicaset-controller')
  })

  it('counts ready and available pods in status with observedGeneration', async () => {
    await c.store('apps', 'replicasets').create(rs(2))
    await eventually(async () => (await owned()).length === 2, 'two pods')
    await eventually(async () => ((await getRS()).status as { replicas?: number }).replicas === 2, 'status.replicas 2')
    assert.equal(((await getRS()).status as { readyReplicas?: number }).readyReplicas, undefined)
    await c.markAllReady()
    await eventually(async () => {
      const s = (await getRS()).status as Record<string, unknown>
      return s.readyReplicas === 2 && s.availableReplicas === 2 && s.fullyLabeledReplicas === 2 && s.observedGeneration === 1
    }, 'ready and available 2')
  })

  it('scales down, unready pods first, with SuccessfulDelete', async () => {
    await c.store('apps', 'replicasets').create(rs(3))
    await eventually(async () => (await owned()).length === 3, 'three pods')
    const [first, second] = await owned()
    await c.markReady(first!)
    await c.markReady(second!)
    await c.store('apps', 'replicasets').update('default', 'web', (cur) => ({ ...cur, spec: { ...(cur.spec as object), replicas: 2 } }), { retryOnConflict: true })
    await eventually(async () => (await owned()).length === 2, 'two pods')
    const left = (await owned()).map((p) => p.metadata.name).sort()
    assert.deepEqual(left, [first!.metadata.name, second!.metadata.name].sort())
    await eventually(async () => (await events(c, 'web')).some((e) => e.reason === 'SuccessfulDelete' && /^Deleted pod: web-/.test(e.message)), 'SuccessfulDelete')
  })

  it('adopts a matching orphan instead of creating a pod, and releases a pod relabelled away', async () => {
    await c.store('', 'pods').create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'orphan', namespace: 'default', labels: { app: 'web' } }, spec: { containers: [{ name: 'a', image: 'nginx' }] } })
    const created = await c.store('apps', 'replicasets').create(rs(2))
    await eventually(async () => (await owned()).length === 2, 'two pods')
    const orphan = await c.store('', 'pods').get('default', 'orphan')
    assert.equal((orphan.metadata.ownerReferences as Array<{ uid: string }>)[0]!.uid, created.metadata.uid)
    await c.store('', 'pods').update('default', 'orphan', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { app: 'other' } } }))
    await eventually(async () => (await c.store('', 'pods').get('default', 'orphan')).metadata.ownerReferences === undefined, 'released')
    await eventually(async () => (await owned()).length === 2, 'a replacement pod')
  })

  it('runs ReplicationControllers with the same engine and the replication-controller source', async () => {
    await c.store('', 'replicationcontrollers').create({
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'rc', namespace: 'default' },
      spec: { replicas: 2, selector: { app: 'rc' }, template: podTemplate({ app: 'rc' }) },
    })
    await eventually(async () => (await c.pods()).filter((p) => (p.metadata.ownerReferences as Array<{ kind: string }> | undefined)?.[0]?.kind === 'ReplicationController').length === 2, 'two pods')
    await c.markAllReady()
    await eventually(async () => ((await c.store('', 'replicationcontrollers').get('default', 'rc')).status as { readyReplicas?: number }).readyReplicas === 2, 'rc ready')
    assert.equal((await events(c, 'rc'))[0]!.component, 'replication-controller')
  })

  it('reports the ReplicaFailure condition and FailedCreate events when admission refuses its pods (a quota)', async () => {
    await c.store('', 'resourcequotas').create({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'two', namespace: 'default' }, spec: { hard: { pods: '2' } } })
    await eventually(async () => ((await c.store('', 'resourcequotas').get('default', 'two')).status as { hard?: unknown } | undefined)?.hard !== undefined, 'the quota counted')
    await c.store('apps', 'replicasets').create(rs(3))
    await eventually(async () => ((await getRS()).status as { conditions?: unknown[] } | undefined)?.conditions !== undefined, 'ReplicaFailure', 8000)
    const [condition] = ((await getRS()).status as { conditions: Array<Record<string, string>> }).conditions
    assert.equal(condition!.type, 'ReplicaFailure')
    assert.equal(condition!.status, 'True')
    assert.equal(condition!.reason, 'FailedCreate')
    assert.match(condition!.message!, /forbidden: exceeded quota: two/)
    assert.equal((await owned()).length, 2)
    const failed = (await events(c, 'web')).find((e) => e.reason === 'FailedCreate')
    assert.match(failed!.message, /^Error creating: pods "web-[a-z0-9]*" is forbidden: exceeded quota: two/)
    // The quota raised: the third pod is made and the condition goes.
    await c.store('', 'resourcequotas').update('default', 'two', (cur) => ({ ...cur, spec: { hard: { pods: '5' } } }), { retryOnConflict: true })
    await eventually(async () => (await owned()).length === 3 && ((await getRS()).status as { conditions?: unknown[] }).conditions === undefined, 'recovered', 15_000)
  })
})
