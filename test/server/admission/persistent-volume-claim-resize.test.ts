/**
 * The PersistentVolumeClaimResize plugin, with the cases of the reference's
 * plugin/pkg/admission/storage/persistentvolume/resize admission_test.go
 * (TestPVCResizeAdmission) and its messages.
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes } from '../../../src/server/admission/attributes.js'
import { PersistentVolumeClaimResize } from '../../../src/server/admission/persistent-volume-claim-resize.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { type TestRegistry, openTestRegistry } from '../api/support.js'

const goldClass = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'gold' }, provisioner: 'kubernetes.io/glusterfs', allowVolumeExpansion: true }
const silverClass = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'silver' }, provisioner: 'kubernetes.io/glusterfs', allowVolumeExpansion: false }

function claim(storage: string, phase: string, capacity: string, storageClassName?: string, volumeName?: string): KubeObject {
  return {
    metadata: { name: 'foo', namespace: 'default' },
    spec: { ...(volumeName ? { volumeName } : {}), resources: { requests: { storage } }, ...(storageClassName ? { storageClassName } : {}) },
    status: { capacity: { storage: capacity }, phase },
  }
}

function attributes(object: KubeObject, oldObject: KubeObject, subresource = ''): AdmissionAttributes {
  return {
    operation: 'UPDATE',
    kind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' },
    resource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
    subresource,
    namespace: 'default',
    name: 'foo',
    object,
    oldObject,
    dryRun: false,
  }
}

const DYNAMICALLY_PROVISIONED = 'persistentvolumeclaims "foo" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize'

describe('admission: PersistentVolumeClaimResize', () => {
  let t: TestRegistry
  let plugin: PersistentVolumeClaimResize

  before(async () => {
    t = await openTestRegistry('admission-pvc-resize-')
    for (const sc of [goldClass, silverClass]) await t.store.create(`/storageclasses/${sc.metadata.name}`, Buffer.from(JSON.stringify(sc)))
    plugin = new PersistentVolumeClaimResize({ stores: () => t.registry, config: {}, log: () => {} })
  })
  after(async () => t.close())

  const cases: { name: string; old: KubeObject; new: KubeObject; subresource?: string; error?: string }[] = [
    { name: 'pvc-resize, update, no error', old: claim('1Gi', 'Bound', '1Gi', 'gold', 'volume1'), new: claim('2Gi', 'Bound', '2Gi', 'gold', 'volume1') },
    { name: 'pvc-resize, update, dynamically provisioned error (no class)', old: claim('1Gi', 'Bound', '1Gi', undefined, 'volume3'), new: claim('2Gi', 'Bound', '2Gi', undefined, 'volume3'), error: DYNAMICALLY_PROVISIONED },
    { name: 'pvc-resize, update, dynamically provisioned error (a class without expansion)', old: claim('1Gi', 'Bound', '1Gi', 'silver', 'volume4'), new: claim('2Gi', 'Bound', '2Gi', 'silver', 'volume4'), error: DYNAMICALLY_PROVISIONED },
    { name: 'PVC update with no change in size', old: claim('1Gi', 'Pending', '0Gi', 'silver'), new: claim('1Gi', 'Bound', '1Gi', 'silver', 'volume4') },
    { name: 'expand pvc in pending state', old: claim('1Gi', 'Pending', '0Gi', 'silver'), new: claim('2Gi', 'Pending', '0Gi', 'silver'), error: 'persistentvolumeclaims "foo" is forbidden: Only bound persistent volume claims can be expanded' },
    { name: 'a class changed along with the size', old: claim('1Gi', 'Bound', '1Gi', 'silver'), new: claim('2Gi', 'Bound', '1Gi', 'gold'), error: DYNAMICALLY_PROVISIONED },
    { name: 'a class that does not exist', old: claim('1Gi', 'Bound', '1Gi', 'bronze'), new: claim('2Gi', 'Bound', '1Gi', 'bronze'), error: DYNAMICALLY_PROVISIONED },
    { name: 'shrinking is not this plugin\'s concern', old: claim('2Gi', 'Pending', '0Gi'), new: claim('1Gi', 'Pending', '0Gi') },
    { name: 'the same size written another way', old: claim('1Gi', 'Pending', '0Gi'), new: claim('1024Mi', 'Pending', '0Gi') },
    { name: 'a subresource is not its concern', old: claim('1Gi', 'Pending', '0Gi'), new: claim('2Gi', 'Pending', '0Gi'), subresource: 'status' },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const attempt = plugin.validate(attributes(c.new, c.old, c.subresource))
      if (c.error === undefined) await attempt
      else await assert.rejects(attempt, (err: unknown) => err instanceof ApiError && err.code === 403 && err.message === c.error)
    })
  }
})
