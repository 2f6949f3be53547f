/**
 * The StorageObjectInUseProtection plugin, with the cases of the reference's
 * plugin/pkg/admission/storage/storageobjectinuseprotection admission_test.go (TestAdmit).
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes } from '../../../src/server/admission/attributes.js'
import { StorageObjectInUseProtection } from '../../../src/server/admission/storage-object-in-use-protection.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'

function attributes(resource: string, kind: string, object: KubeObject, namespace: string): AdmissionAttributes {
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind },
    resource: { group: '', version: 'v1', resource },
    subresource: '',
    namespace,
    name: object.metadata.name ?? '',
    object,
    dryRun: false,
  }
}

const claim = (finalizers?: string[]): KubeObject => ({ metadata: { name: 'claim', namespace: 'ns', ...(finalizers ? { finalizers } : {}) }, spec: {} })
const volume = (finalizers?: string[]): KubeObject => ({ metadata: { name: 'pv', ...(finalizers ? { finalizers } : {}) }, spec: {} })

describe('admission: StorageObjectInUseProtection', () => {
  const plugin = new StorageObjectInUseProtection()
  const cases: { name: string; resource: string; kind: string; object: KubeObject; expected: string[] | undefined }[] = [
    { name: 'create -> add finalizer', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', object: claim(), expected: ['kubernetes.io/pvc-protection'] },
    { name: 'finalizer already exists -> no new finalizer', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', object: claim(['kubernetes.io/pvc-protection']), expected: ['kubernetes.io/pvc-protection'] },
    { name: 'another finalizer kept, ours added after it', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', object: claim(['example.com/keep']), expected: ['example.com/keep', 'kubernetes.io/pvc-protection'] },
    { name: 'create -> add finalizer (PV)', resource: 'persistentvolumes', kind: 'PersistentVolume', object: volume(), expected: ['kubernetes.io/pv-protection'] },
    { name: 'finalizer already exists -> no new finalizer (PV)', resource: 'persistentvolumes', kind: 'PersistentVolume', object: volume(['kubernetes.io/pv-protection']), expected: ['kubernetes.io/pv-protection'] },
    { name: 'create -> no finalizer for a pod', resource: 'pods', kind: 'Pod', object: { metadata: { name: 'pod', namespace: 'ns' }, spec: {} }, expected: undefined },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const object = structuredClone(c.object)
      await plugin.admit(attributes(c.resource, c.kind, object, object.metadata.namespace ?? ''))
      assert.deepEqual(object.metadata.finalizers, c.expected)
    })
  }

  it('handles creates only', () => {
    assert.ok(plugin.handles('CREATE') && !plugin.handles('UPDATE') && !plugin.handles('DELETE'))
  })
})
