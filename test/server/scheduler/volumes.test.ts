/**
 * VolumeBinding for claims, as pkg/scheduler/framework/plugins/volumebinding does it: a bound
 * claim's volume must be reachable from the node (ErrReasonNodeConflict "node(s) had volume
 * node affinity conflict"); an unbound WaitForFirstConsumer claim gets the chosen node in its
 * `volume.kubernetes.io/selected-node` annotation, and the pod is bound once the claim is
 * (here the test plays the provisioner); with no provisioner and no volume that fits,
 * ErrReasonBindConflict "node(s) didn't find available persistent volumes to bind".
 */
import assert from 'node:assert/strict'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { SchedulerHarness, eventually } from './support.js'

describe('scheduler: volume binding', function () {
  this.timeout(20_000)
  let h: SchedulerHarness

  beforeEach(async () => {
    h = await SchedulerHarness.open()
  })
  afterEach(async () => {
    await h.close()
  })

  const claim = (name: string, storageClassName: string, volumeName?: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName, ...(volumeName ? { volumeName } : {}) },
  })
  const storageClass = (name: string, provisioner: string): KubeObject => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner, volumeBindingMode: 'WaitForFirstConsumer' })
  const usesClaim = (claimName: string) => ({ volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] })

  it('a bound claim whose volume is pinned to another node', async () => {
    await h.node('a')
    await h.node('b')
    await h.store('', 'v1', 'persistentvolumes').create(
      {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'local-pv' },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          csi: { driver: 'local.csi.example.com', volumeHandle: 'disk-1' },
          storageClassName: 'local',
          nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['b'] }] }] } },
        },
      },
      { admission: false },
    )
    await h.store('', 'v1', 'persistentvolumeclaims').create(claim('data', 'local', 'local-pv'), { admission: false })
    await h.pod('pinned', usesClaim('data'))
    await h.pod('pinned-away', { ...usesClaim('data'), nodeSelector: { 'kubernetes.io/hostname': 'a' } })
    await h.start()
    assert.equal(await h.waitBound('pinned'), 'b')
    const condition = await h.waitUnschedulable('pinned-away')
    assert.equal(
      condition.message,
      "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had volume node affinity conflict. no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    )
  })

  it('WaitForFirstConsumer: the claim gets the chosen node, and the pod is bound once the claim is', async () => {
    await h.node('a')
    await h.store('storage.k8s.io', 'v1', 'storageclasses').create(storageClass('standard', 'example.com/simulated'), { admission: false })
    await h.store('', 'v1', 'persistentvolumeclaims').create(claim('data', 'standard'), { admission: false })
    await h.pod('db', usesClaim('data'))
    await h.start()
    const pvcs = h.store('', 'v1', 'persistentvolumeclaims')
    await eventually(async () => (await pvcs.get('default', 'data')).metadata.annotations?.['volume.kubernetes.io/selected-node'] === 'a', 'the selected-node annotation')
    assert.equal(await h.nodeOf('db'), undefined, 'the pod waits for its claim')
    // The provisioner's part: a volume made and the claim bound to it.
    await pvcs.update('default', 'data', (c) => ({ ...c, spec: { ...(c.spec as object), volumeName: 'pvc-data' } }), { admission: false })
    assert.equal(await h.waitBound('db'), 'a')
  })

  it('WaitForFirstConsumer without a provisioner and without a volume that fits', async () => {
    await h.node('a')
    await h.store('storage.k8s.io', 'v1', 'storageclasses').create(storageClass('manual', 'kubernetes.io/no-provisioner'), { admission: false })
    await h.store('', 'v1', 'persistentvolumeclaims').create(claim('data', 'manual'), { admission: false })
    await h.pod('db', usesClaim('data'))
    await h.start()
    const condition = await h.waitUnschedulable('db')
    assert.equal(
      condition.message,
      "0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
    )
  })
})
