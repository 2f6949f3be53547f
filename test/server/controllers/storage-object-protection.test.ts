/**
 * The PVC and PV protection controllers over the registry: what the StorageObjectInUseProtection
 * admission plugin adds on create, they remove once the claim or volume is no longer used
 * (the reference's pvcprotection and pvprotection controllers), so that deletions, and the
 * namespaces holding claims, finish.
 */
import assert from 'node:assert/strict'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

describe('controllers: persistentvolumeclaim- and persistentvolume-protection', function () {
  this.timeout(15_000)
  let t: TestRegistry
  const store = (resource: string): GenericStore => t.registry.lookup('', 'v1', resource)!
  const gone = async (resource: string, ns: string | undefined, name: string) => !(await store(resource).list(ns ? { namespace: ns } : {})).items.some((o) => o.metadata.name === name)
  const claim = (name: string, namespace = 'default') => ({ metadata: { name, namespace }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } })
  const pod = (name: string, claimName: string, nodeName?: string) => ({
    metadata: { name, namespace: 'default' },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] },
  })

  beforeEach(async () => {
    t = await openTestRegistry('storage-protection-', ['default', 'other'])
  })
  afterEach(async () => t.close())

  it('a claim gets the pvc-protection finalizer and, deleted while unused, goes', async () => {
    const created = await store('persistentvolumeclaims').create(claim('data'))
    assert.deepEqual(created.metadata.finalizers, ['kubernetes.io/pvc-protection'])
    await store('persistentvolumeclaims').delete('default', 'data')
    await eventually(() => gone('persistentvolumeclaims', 'default', 'data'), 'the unused claim to go')
  })

  it('a claim a scheduled pod uses stays terminating until the pod goes; an unscheduled pod does not hold it', async () => {
    await store('persistentvolumeclaims').create(claim('used'))
    await store('persistentvolumeclaims').create(claim('pending'))
    await store('pods').create(pod('runs', 'used', 'node-1'))
    await store('pods').create(pod('waits', 'pending'))
    await store('persistentvolumeclaims').delete('default', 'used')
    await store('persistentvolumeclaims').delete('default', 'pending')
    await eventually(() => gone('persistentvolumeclaims', 'default', 'pending'), 'the claim of an unscheduled pod to go')
    const held = await store('persistentvolumeclaims').get('default', 'used')
    assert.ok(held.metadata.deletionTimestamp)
    assert.deepEqual(held.metadata.finalizers, ['kubernetes.io/pvc-protection'])
    await store('pods').deleteObject('default', 'runs', { gracePeriodSeconds: 0 })
    await eventually(() => gone('persistentvolumeclaims', 'default', 'used'), 'the claim to go once its pod is gone')
  })

  it('a namespace holding a claim is deleted completely', async () => {
    await store('persistentvolumeclaims').create(claim('data', 'other'))
    await store('namespaces').delete(undefined, 'other')
    await eventually(() => gone('namespaces', undefined, 'other'), 'the namespace to go', 10_000)
  })

  it('a volume gets the pv-protection finalizer; deleted while bound it stays, released it goes', async () => {
    const volume = { metadata: { name: 'pv' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: 'example.com.d', volumeHandle: 'h' } } }
    const created = await store('persistentvolumes').create(volume)
    assert.deepEqual(created.metadata.finalizers, ['kubernetes.io/pv-protection'])
    await store('persistentvolumes').rewrite(undefined, 'pv', (o) => (o.status = { phase: 'Bound' }))
    await store('persistentvolumes').delete(undefined, 'pv')
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.ok((await store('persistentvolumes').get(undefined, 'pv')).metadata.deletionTimestamp)
    await store('persistentvolumes').rewrite(undefined, 'pv', (o) => (o.status = { phase: 'Released' }))
    await eventually(() => gone('persistentvolumes', undefined, 'pv'), 'the released volume to go', 10_000)
  })
})
