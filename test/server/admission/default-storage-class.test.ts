/**
 * The DefaultStorageClass plugin, with the cases of the reference's
 * plugin/pkg/admission/storage/storageclass/setdefault admission_test.go (TestAdmission).
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes } from '../../../src/server/admission/attributes.js'
import { DefaultStorageClass } from '../../../src/server/admission/default-storage-class.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { type TestRegistry, openTestRegistry } from '../api/support.js'

const IS_DEFAULT = 'storageclass.kubernetes.io/is-default-class'
const BETA_IS_DEFAULT = 'storageclass.beta.kubernetes.io/is-default-class'

function storageClass(name: string, annotations?: Record<string, string>, creationTimestamp = '2022-01-01T00:00:00Z'): KubeObject {
  return { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name, creationTimestamp, ...(annotations ? { annotations } : {}) }, provisioner: name }
}

const defaultClass1 = storageClass('default1', { [IS_DEFAULT]: 'true' })
const defaultClass2 = storageClass('default2', { [IS_DEFAULT]: 'true' })
const defaultClassWithNewerTimestamp = storageClass('default3', { [IS_DEFAULT]: 'true' }, '2022-01-01T00:00:01Z')
const betaDefaultClass = storageClass('betadefault', { [BETA_IS_DEFAULT]: 'true' })
const classWithFalseDefault = storageClass('nondefault1', { [IS_DEFAULT]: 'false' })
const classWithNoDefault = storageClass('nondefault2')
const classWithEmptyDefault = storageClass('nondefault3', { [IS_DEFAULT]: '' })

function claim(name: string, storageClassName?: string | null, annotations?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'ns', ...(annotations ? { annotations } : {}) }, spec: storageClassName === undefined ? {} : { storageClassName } }
}
const claimWithClass = claim('claimWithClass', 'foo')
const claimWithEmptyClass = claim('claimWithEmptyClass', '')
const claimWithNoClass = claim('claimWithNoClass')

function attributes(object: KubeObject, subresource = ''): AdmissionAttributes {
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' },
    resource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
    subresource,
    namespace: 'ns',
    name: object.metadata.name ?? '',
    object,
    dryRun: false,
  }
}

describe('admission: DefaultStorageClass', () => {
  let t: TestRegistry
  let plugin: DefaultStorageClass

  async function withClasses(classes: readonly KubeObject[]): Promise<void> {
    for (const kv of (await t.store.list('/storageclasses/')).items) await t.store.delete(kv.key)
    for (const c of classes) await t.store.create(`/storageclasses/${c.metadata.name}`, Buffer.from(JSON.stringify(c)))
  }

  before(async () => {
    t = await openTestRegistry('admission-default-storage-class-')
    plugin = new DefaultStorageClass({ stores: () => t.registry, config: {}, log: () => {} })
  })
  after(async () => t.close())

  const nonDefaults = [classWithFalseDefault, classWithNoDefault, classWithEmptyDefault]
  const cases: { name: string; classes: KubeObject[]; claim: KubeObject; expected: string | undefined }[] = [
    { name: 'no default, no modification of PVCs', classes: nonDefaults, claim: claimWithNoClass, expected: undefined },
    { name: 'one default, modify PVC with class=nil', classes: [defaultClass1, ...nonDefaults], claim: claimWithNoClass, expected: 'default1' },
    { name: 'one beta default, modify PVC with class=nil', classes: [betaDefaultClass, ...nonDefaults], claim: claimWithNoClass, expected: 'betadefault' },
    { name: "one default, no modification of PVC with class=''", classes: [defaultClass1, ...nonDefaults], claim: claimWithEmptyClass, expected: '' },
    { name: "one default, no modification of PVC with class='foo'", classes: [defaultClass1, ...nonDefaults], claim: claimWithClass, expected: 'foo' },
    { name: "two defaults with the same creation timestamp, choose the one with alphabetical order", classes: [defaultClass2, defaultClass1, ...nonDefaults], claim: claimWithNoClass, expected: 'default1' },
    { name: "two defaults, no modification of PVC with class=''", classes: [defaultClass1, defaultClass2, ...nonDefaults], claim: claimWithEmptyClass, expected: '' },
    { name: "two defaults, no modification of PVC with class='foo'", classes: [defaultClass1, defaultClass2, ...nonDefaults], claim: claimWithClass, expected: 'foo' },
    { name: 'two defaults with different creation timestamp, choose the newest', classes: [defaultClass1, defaultClassWithNewerTimestamp, ...nonDefaults], claim: claimWithNoClass, expected: 'default3' },
    { name: 'a claim naming its class by the beta annotation is left alone', classes: [defaultClass1], claim: claim('claimWithBetaClass', undefined, { 'volume.beta.kubernetes.io/storage-class': 'foo' }), expected: undefined },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      await withClasses(c.classes)
      const object = structuredClone(c.claim)
      await plugin.admit(attributes(object))
      assert.equal((object.spec as Record<string, unknown>).storageClassName, c.expected)
    })
  }

  it('leaves subresources and other resources alone', async () => {
    await withClasses([defaultClass1])
    const object = structuredClone(claimWithNoClass)
    await plugin.admit(attributes(object, 'status'))
    await plugin.admit({ ...attributes(object), resource: { group: '', version: 'v1', resource: 'persistentvolumes' } })
    assert.equal((object.spec as Record<string, unknown>).storageClassName, undefined)
  })
})
