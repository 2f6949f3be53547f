/**
 * The PersistentVolume controller with the simulated provisioner over a registry: static
 * volumes bound by size, modes, class and selector (the reference's index_test.go cases), a
 * WaitForFirstConsumer claim provisioned once the scheduler's selected-node annotation comes
 * (the scheduler is played by hand), a Delete volume removed with its claim, a Retain one
 * Released. Annotation names, event reasons and messages are the reference's.
 */
import assert from 'node:assert/strict'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { PersistentVolumeBinder } from '../../../src/server/controllers/persistentvolume-binder.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

describe('controllers: persistentvolume-binder-controller', function () {
  this.timeout(20_000)
  let t: TestRegistry
  let manager: ControllerManager
  const core = (resource: string): GenericStore => t.registry.lookup('', 'v1', resource)!
  const claim = (name: string) => core('persistentvolumeclaims').get('default', name)
  const volume = (name: string) => core('persistentvolumes').get(undefined, name)
  const phase = (o: KubeObject) => (o.status as { phase?: string } | undefined)?.phase
  const events = async (name: string) => (await core('events').list({ namespace: 'default' })).items.filter((e) => (e.involvedObject as { name?: string }).name === name)

  const pv = (name: string, storage: string, extra: Record<string, unknown> = {}, labels?: Record<string, string>) =>
    core('persistentvolumes').create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name, ...(labels ? { labels } : {}) },
      spec: { capacity: { storage }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/data/${name}` }, persistentVolumeReclaimPolicy: 'Retain', storageClassName: '', ...extra },
    })
  const pvc = (name: string, storage: string, extra: Record<string, unknown> = {}) =>
    core('persistentvolumeclaims').create({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: 'default' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, ...extra },
    })

  beforeEach(async () => {
    t = await openTestRegistry('pv-binder-', ['default'])
    manager = new ControllerManager([new PersistentVolumeBinder({ writeDefaultStorageClass: true })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  })
  afterEach(async () => {
    await manager.stop()
    await t.close()
  })

  it('writes the default StorageClass standard, WaitForFirstConsumer, annotated as the default', async () => {
    const sc = await t.registry.lookup('storage.k8s.io', 'v1', 'storageclasses')!.get(undefined, 'standard')
    assert.equal(sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'], 'true')
    assert.equal(sc.volumeBindingMode, 'WaitForFirstConsumer')
    assert.equal(sc.reclaimPolicy, 'Delete')
  })

  it('binds a claim to the smallest Available volume that fits, with the reference annotations and phases', async () => {
    await pv('small', '1Gi')
    await pv('fits', '5Gi')
    await pv('big', '10Gi')
    await eventually(async () => phase(await volume('small')) === 'Available', 'volumes Available')
    await pvc('data', '2Gi', { storageClassName: '' })
    await eventually(async () => phase(await claim('data')) === 'Bound', 'claim Bound')
    const c = await claim('data')
    assert.equal((c.spec as { volumeName?: string }).volumeName, 'fits')
    assert.equal(c.metadata.annotations?.['pv.kubernetes.io/bind-completed'], 'yes')
    assert.equal(c.metadata.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes')
    assert.deepEqual((c.status as { capacity?: unknown }).capacity, { storage: '5Gi' })
    assert.deepEqual((c.status as { accessModes?: unknown }).accessModes, ['ReadWriteOnce'])
    await eventually(async () => phase(await volume('fits')) === 'Bound', 'volume Bound')
    const v = await volume('fits')
    assert.equal(v.metadata.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes')
    assert.deepEqual((v.spec as { claimRef?: { name?: string; uid?: string } }).claimRef?.uid, c.metadata.uid)
    assert.equal(phase(await volume('big')), 'Available')
  })

  it('respects access modes, volume mode and the selector; a class-less claim without a match says FailedBinding', async () => {
    await pv('rox', '5Gi', { accessModes: ['ReadOnlyMany'] })
    await pv('block', '5Gi', { volumeMode: 'Block' })
    await pv('labelled', '5Gi', {}, { tier: 'fast' })
    await pv('plain', '5Gi')
    await pvc('picky', '1Gi', { storageClassName: '', selector: { matchLabels: { tier: 'fast' } } })
    await eventually(async () => phase(await claim('picky')) === 'Bound', 'claim Bound')
    assert.equal(((await claim('picky')).spec as { volumeName?: string }).volumeName, 'labelled')
    await pvc('rwx', '1Gi', { storageClassName: '', accessModes: ['ReadWriteMany'] })
    await eventually(async () => (await events('rwx')).some((e) => e.reason === 'FailedBinding'), 'FailedBinding event')
    const e = (await events('rwx')).find((x) => x.reason === 'FailedBinding')!
    assert.equal(e.message, 'no persistent volumes available for this claim and no storage class is set')
    assert.equal((e.source as { component?: string }).component, 'persistentvolume-controller')
    assert.equal(phase(await claim('rwx')), 'Pending')
  })

  it('waits for the first consumer, then provisions pvc-<uid> on the selected node and binds it', async () => {
    await pvc('www', '1Gi', { storageClassName: 'standard' })
    await eventually(async () => (await events('www')).some((e) => e.reason === 'WaitForFirstConsumer'), 'WaitForFirstConsumer event')
    assert.equal((await events('www')).find((e) => e.reason === 'WaitForFirstConsumer')!.message, 'waiting for first consumer to be created before binding')
    assert.equal(phase(await claim('www')), 'Pending')
    // The scheduler's VolumeBinding PreBind, played by hand.
    await core('persistentvolumeclaims').update('default', 'www', (c) => ({ ...c, metadata: { ...c.metadata, annotations: { ...c.metadata.annotations, 'volume.kubernetes.io/selected-node': 'node-0' } } }))
    await eventually(async () => phase(await claim('www')) === 'Bound', 'claim Bound')
    const c = await claim('www')
    const name = `pvc-${c.metadata.uid}`
    assert.equal((c.spec as { volumeName?: string }).volumeName, name)
    assert.equal(c.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'], 'simulated.local/local-path')
    const v = await volume(name)
    assert.equal(v.metadata.annotations?.['pv.kubernetes.io/provisioned-by'], 'simulated.local/local-path')
    assert.equal(v.metadata.annotations?.['pv.kubernetes.io/bound-by-controller'], undefined)
    const spec = v.spec as { capacity?: unknown; persistentVolumeReclaimPolicy?: string; storageClassName?: string; nodeAffinity?: unknown }
    assert.deepEqual(spec.capacity, { storage: '1Gi' })
    assert.equal(spec.persistentVolumeReclaimPolicy, 'Delete')
    assert.equal(spec.storageClassName, 'standard')
    assert.deepEqual(spec.nodeAffinity, { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-0'] }] }] } })
    await eventually(async () => phase(await volume(name)) === 'Bound', 'volume Bound')
    const reasons = (await events('www')).map((e) => e.reason)
    for (const r of ['ExternalProvisioning', 'Provisioning', 'ProvisioningSucceeded']) assert.ok(reasons.includes(r), `${r} in ${reasons.join(',')}`)
    const succeeded = (await events('www')).find((e) => e.reason === 'ProvisioningSucceeded')!
    assert.equal(succeeded.message, `Successfully provisioned volume ${name}`)

    // reclaimPolicy Delete: the volume goes with its claim.
    await core('persistentvolumeclaims').delete('default', 'www')
    await eventually(async () => (await core('persistentvolumes').list()).items.every((x) => x.metadata.name !== name), 'provisioned volume deleted')
  })

  it('says which pod waits to be scheduled', async () => {
    await pvc('logs', '1Gi', { storageClassName: 'standard' })
    await core('pods').create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'app', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'logs' } }] } })
    await eventually(async () => (await events('logs')).some((e) => e.reason === 'WaitForPodScheduled' && e.message === 'waiting for pod app to be scheduled'), 'WaitForPodScheduled event')
  })

  it('an Immediate class provisions at once; a Retain volume is Released when its claim goes', async () => {
    await t.registry.lookup('storage.k8s.io', 'v1', 'storageclasses')!.create({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'keep' },
      provisioner: 'simulated.local/local-path',
      reclaimPolicy: 'Retain',
      volumeBindingMode: 'Immediate',
    })
    await pvc('kept', '3Gi', { storageClassName: 'keep' })
    await eventually(async () => phase(await claim('kept')) === 'Bound', 'claim Bound')
    const name = ((await claim('kept')).spec as { volumeName?: string }).volumeName!
    assert.equal((await volume(name)).metadata.name, `pvc-${(await claim('kept')).metadata.uid}`)
    await core('persistentvolumeclaims').delete('default', 'kept')
    await eventually(async () => phase(await volume(name)) === 'Released', 'volume Released')
  })

  it('gives a claim made before any default class the default class made later (retroactive default)', async () => {
    const classes = t.registry.lookup('storage.k8s.io', 'v1', 'storageclasses')!
    await classes.delete(undefined, 'standard')
    await pvc('early', '1Gi')
    assert.equal(((await claim('early')).spec as { storageClassName?: string }).storageClassName, undefined)
    await classes.create({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'fast', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'simulated.local/local-path',
      volumeBindingMode: 'Immediate',
    })
    await eventually(async () => phase(await claim('early')) === 'Bound', 'claim Bound in the new default class')
    assert.equal(((await claim('early')).spec as { storageClassName?: string }).storageClassName, 'fast')
    // A claim that asked for no class ("") keeps it.
    await pvc('none', '1Gi', { storageClassName: '' })
    await eventually(async () => (await events('none')).some((e) => e.reason === 'FailedBinding'), 'FailedBinding')
    assert.equal(((await claim('none')).spec as { storageClassName?: string }).storageClassName, '')
  })
})
