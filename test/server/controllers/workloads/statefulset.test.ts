/**
 * The StatefulSet controller over a registry, the test playing the nodes: OrderedReady creates
 * `<set>-0`, `<set>-1`, ... one at a time as each becomes Ready, with the identity labels,
 * hostname, subdomain and claims `<claim>-<set>-<ordinal>`; scale down goes from the highest
 * ordinal; Parallel creates all at once; a RollingUpdate with a partition replaces only the
 * ordinals at or above it. Expected strings are the reference's (stateful_pod_control.go
 * recordPodEvent and recordClaimEvent).
 */
import assert from 'node:assert/strict'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { StatefulSetController } from '../../../../src/server/controllers/statefulset.js'
import { type Cluster, eventually, events, openCluster, podTemplate } from './support.js'

describe('controllers: statefulset-controller', function () {
  this.timeout(30_000)
  let c: Cluster
  const sets = () => c.store('apps', 'statefulsets')
  const names = async () => (await c.pods()).map((p) => p.metadata.name!).sort()
  const status = async () => ((await sets().get('default', 'web')).status ?? {}) as Record<string, unknown>
  const set = (replicas: number, extra: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas,
      serviceName: 'web',
      selector: { matchLabels: { app: 'web' } },
      template: podTemplate({ app: 'web' }),
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      ...extra,
    },
  })
  const patchSpec = (change: (spec: Record<string, unknown>) => void) =>
    sets().update('default', 'web', (cur) => {
      const spec = structuredClone(cur.spec) as Record<string, unknown>
      change(spec)
      return { ...cur, spec }
    }, { retryOnConflict: true })

  beforeEach(async () => {
    c = await openCluster('sts-', [new StatefulSetController()])
  })
  afterEach(() => c.close())

  it('creates pods in order, each after the one before is Ready, with identity and claims', async () => {
    await sets().create(set(3))
    await eventually(async () => (await names()).length === 1, 'web-0')
    await c.settle()
    assert.deepEqual(await names(), ['web-0'])
    const pod = await c.store('', 'pods').get('default', 'web-0')
    const labels = pod.metadata.labels as Record<string, string>
    assert.equal(labels['statefulset.kubernetes.io/pod-name'], 'web-0')
    assert.equal(labels['apps.kubernetes.io/pod-index'], '0')
    assert.match(labels['controller-revision-hash']!, /^web-[bcdfghjklmnpqrstvwxz2456789]+$/)
    const spec = pod.spec as { hostname: string; subdomain: string; volumes: Array<{ name: string; persistentVolumeClaim?: { claimName: string } }> }
    assert.equal(spec.hostname, 'web-0')
    assert.equal(spec.subdomain, 'web')
    assert.deepEqual(spec.volumes.find((v) => v.name === 'data')?.persistentVolumeClaim, { claimName: 'data-web-0' })
    const claim = await c.store('', 'persistentvolumeclaims').get('default', 'data-web-0')
    assert.deepEqual(claim.metadata.labels, { app: 'web' })
    await c.markAllReady()
    await eventually(async () => (await names()).length === 2, 'web-1')
    assert.deepEqual(await names(), ['web-0', 'web-1'])
    await c.markAllReady()
    await eventually(async () => (await names()).length === 3, 'web-2')
    await c.markAllReady()
    await eventually(async () => (await status()).readyReplicas === 3, 'three ready')
    const s = await status()
    assert.equal(s.replicas, 3)
    assert.equal(s.currentReplicas, 3)
    assert.equal(s.updatedReplicas, 3)
    assert.equal(s.currentRevision, s.updateRevision)
    assert.equal(s.currentRevision, labels['controller-revision-hash'])
    const messages = (await events(c, 'web')).map((e) => e.message)
    assert.ok(messages.includes('create Pod web-0 in StatefulSet web successful'))
    assert.ok(messages.includes('create Claim data-web-0 Pod web-0 in StatefulSet web success'))
    assert.equal((await events(c, 'web'))[0]!.component, 'statefulset-controller')
  })

  it('Parallel scale down deletes the ordinals beyond the replicas', async () => {
    await sets().create(set(3, { podManagementPolicy: 'Parallel' }))
    await eventually(async () => (await names()).length === 3, 'three pods')
    await c.markAllReady()
    await patchSpec((spec) => {
      spec.replicas = 1
      spec.podManagementPolicy = 'Parallel'
    })
    await eventually(async () => JSON.stringify(await names()) === JSON.stringify(['web-0']), 'web-0 alone')
    assert.ok((await events(c, 'web')).some((e) => e.message === 'delete Pod web-2 in StatefulSet web successful'))
  })

  it('OrderedReady scale down removes web-2 and waits for it to be gone before web-1', async () => {
    await sets().create(set(3))
    for (let i = 1; i <= 3; i++) {
      await eventually(async () => (await names()).length === i, `${i} pods`)
      await c.markAllReady()
    }
    // A finalizer keeps web-2 terminating: the controller must wait for it.
    await c.store('', 'pods').update('default', 'web-2', (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: ['test/hold'] } }), { retryOnConflict: true })
    await patchSpec((spec) => {
      spec.replicas = 1
    })
    await eventually(async () => (await c.store('', 'pods').get('default', 'web-2')).metadata.deletionTimestamp !== undefined, 'web-2 terminating')
    await c.settle(300)
    assert.ok((await names()).includes('web-1'), 'web-1 deleted while web-2 was still terminating')
    await c.store('', 'pods').update('default', 'web-2', (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: [] } }), { retryOnConflict: true })
    await eventually(async () => JSON.stringify(await names()) === JSON.stringify(['web-0']), 'web-0 alone')
  })

  it("copies the set's annotations onto a new ControllerRevision (newRevision: kubectl apply --record's change-cause)", async () => {
    const cause = 'kubectl apply --filename=web.yaml --record=true'
    await sets().create({ ...set(0), metadata: { name: 'web', namespace: 'default', annotations: { 'kubernetes.io/change-cause': cause } } })
    await eventually(async () => (await c.store('apps', 'controllerrevisions').list({ namespace: 'default' })).items.length === 1, 'a revision')
    const [revision] = (await c.store('apps', 'controllerrevisions').list({ namespace: 'default' })).items
    assert.equal(revision?.metadata.annotations?.['kubernetes.io/change-cause'], cause)
  })

  it('Parallel creates every pod at once', async () => {
    await sets().create(set(3, { podManagementPolicy: 'Parallel' }))
    await eventually(async () => (await names()).length === 3, 'three pods at once')
  })

  it('a RollingUpdate with a partition replaces only the ordinals at or above it', async () => {
    await sets().create(set(3, { podManagementPolicy: 'Parallel', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } }))
    await eventually(async () => (await names()).length === 3, 'three pods')
    await c.markAllReady()
    await eventually(async () => (await status()).readyReplicas === 3, 'ready')
    const first = (await status()).currentRevision as string
    await patchSpec((spec) => {
      ;(spec.template as { spec: { containers: Array<{ image: string }> } }).spec.containers[0]!.image = 'nginx:1.26'
    })
    const revisionOf = async (name: string) => ((await c.store('', 'pods').get('default', name)).metadata.labels as Record<string, string>)['controller-revision-hash']
    for (let step = 0; step < 20; step++) {
      await c.settle()
      await c.markAllReady()
      if ((await status()).updatedReplicas === 2 && (await status()).readyReplicas === 3) break
    }
    const s = await status()
    assert.equal(s.updatedReplicas, 2)
    assert.equal(s.currentRevision, first)
    assert.notEqual(s.updateRevision, first)
    assert.equal(await revisionOf('web-0'), first)
    assert.equal(await revisionOf('web-1'), s.updateRevision)
    assert.equal(await revisionOf('web-2'), s.updateRevision)
    await patchSpec((spec) => {
      spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 0 } }
    })
    for (let step = 0; step < 20; step++) {
      await c.settle()
      await c.markAllReady()
      if ((await status()).currentRevision === (await status()).updateRevision) break
    }
    assert.equal((await status()).currentRevision, s.updateRevision)
    assert.equal(await revisionOf('web-0'), s.updateRevision)
  })

  it('gives claims owner references by persistentVolumeClaimRetentionPolicy: the set when deleted, the pod when scaled down', async () => {
    const created = await sets().create(set(2, { podManagementPolicy: 'Parallel', persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' } }))
    await eventually(async () => (await names()).length === 2, 'two pods')
    const claim = (name: string) => c.store('', 'persistentvolumeclaims').get('default', name)
    const owners = async (name: string) => ((await claim(name)).metadata.ownerReferences as Array<{ kind: string; name: string; uid: string; controller?: boolean }> | undefined)?.map((r) => `${r.kind}/${r.name}/${r.uid}`)
    assert.deepEqual(await owners('data-web-0'), [`StatefulSet/web/${created.metadata.uid}`])
    assert.deepEqual(await owners('data-web-1'), [`StatefulSet/web/${created.metadata.uid}`])
    await c.markAllReady()
    const pod1 = await c.store('', 'pods').get('default', 'web-1')
    await patchSpec((spec) => {
      spec.replicas = 1
    })
    await eventually(async () => !(await names()).includes('web-1'), 'web-1 gone')
    assert.deepEqual(await owners('data-web-1'), [`Pod/web-1/${pod1.metadata.uid}`])
    assert.deepEqual(await owners('data-web-0'), [`StatefulSet/web/${created.metadata.uid}`])
  })
})
