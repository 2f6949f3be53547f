/**
 * The DefaultIngressClass plugin, with the cases of the reference's
 * plugin/pkg/admission/network/defaultingressclass admission_test.go (TestAdmission).
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes } from '../../../src/server/admission/attributes.js'
import { DefaultIngressClass } from '../../../src/server/admission/default-ingress-class.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { type TestRegistry, openTestRegistry } from '../api/support.js'

const IS_DEFAULT = 'ingressclass.kubernetes.io/is-default-class'

function ingressClass(name: string, annotations?: Record<string, string>, creationTimestamp = '2022-01-01T00:00:00Z'): KubeObject {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name, creationTimestamp, ...(annotations ? { annotations } : {}) }, spec: { controller: 'example.com/ingress' } }
}

const defaultClass1 = ingressClass('default1', { [IS_DEFAULT]: 'true' })
const defaultClass2 = ingressClass('default2', { [IS_DEFAULT]: 'true' })
const classWithFalseDefault = ingressClass('nondefault1', { [IS_DEFAULT]: 'false' })
const classWithNoDefault = ingressClass('nondefault2')
const classWithEmptyDefault = ingressClass('nondefault3', { [IS_DEFAULT]: '' })
// The reference's two differ by a nanosecond; stored timestamps have whole seconds.
const defaultClassWithCreateTime1 = ingressClass('default1', { [IS_DEFAULT]: 'true' }, '2022-01-01T00:00:01Z')
const defaultClassWithCreateTime2 = ingressClass('default2', { [IS_DEFAULT]: 'true' }, '2022-01-01T00:00:00Z')
const nonDefaults = [classWithFalseDefault, classWithNoDefault, classWithEmptyDefault]

function attributes(object: KubeObject, subresource = ''): AdmissionAttributes {
  return {
    operation: 'CREATE',
    kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
    resource: { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' },
    subresource,
    namespace: 'testing',
    name: 'testing',
    object,
    dryRun: false,
  }
}

describe('admission: DefaultIngressClass', () => {
  let t: TestRegistry
  let plugin: DefaultIngressClass

  async function withClasses(classes: readonly KubeObject[]): Promise<void> {
    for (const kv of (await t.store.list('/ingressclasses/')).items) await t.store.delete(kv.key)
    for (const c of classes) await t.store.create(`/ingressclasses/${c.metadata.name}`, Buffer.from(JSON.stringify(c)))
  }

  before(async () => {
    t = await openTestRegistry('admission-default-ingress-class-')
    plugin = new DefaultIngressClass({ stores: () => t.registry, config: {}, log: () => {} })
  })
  after(async () => t.close())

  const cases: { name: string; classes: KubeObject[]; classField?: string; classAnnotation?: string; expected: string | undefined }[] = [
    { name: 'no default, no modification of Ingress', classes: nonDefaults, expected: undefined },
    { name: 'one default, modify Ingress with class=nil', classes: [defaultClass1, ...nonDefaults], expected: 'default1' },
    { name: "one default, no modification of Ingress with class field=''", classes: [defaultClass1, ...nonDefaults], classField: '', expected: '' },
    { name: "one default, no modification of Ingress with class field='foo'", classes: [defaultClass1, ...nonDefaults], classField: 'foo', expected: 'foo' },
    { name: "one default, no modification of Ingress with class annotation='foo'", classes: [defaultClass1, ...nonDefaults], classAnnotation: 'foo', expected: undefined },
    { name: 'two defaults with the same creation time, choose the one with the lower name', classes: [defaultClass2, defaultClass1, ...nonDefaults], expected: 'default1' },
    { name: "two defaults, no modification with Ingress with class field=''", classes: [defaultClass1, defaultClass2, ...nonDefaults], classField: '', expected: '' },
    { name: 'two defaults, choose the one with the newer creation time', classes: [defaultClassWithCreateTime2, defaultClassWithCreateTime1, ...nonDefaults], expected: 'default1' },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      await withClasses(c.classes)
      const ingress: KubeObject = {
        metadata: { name: 'testing', namespace: 'testing', ...(c.classAnnotation !== undefined ? { annotations: { 'kubernetes.io/ingress.class': c.classAnnotation } } : {}) },
        spec: c.classField !== undefined ? { ingressClassName: c.classField } : {},
      }
      await plugin.admit(attributes(ingress))
      assert.equal((ingress.spec as Record<string, unknown>).ingressClassName, c.expected)
    })
  }

  it('leaves subresources alone', async () => {
    await withClasses([defaultClass1])
    const ingress: KubeObject = { metadata: { name: 'testing', namespace: 'testing' }, spec: {} }
    await plugin.admit(attributes(ingress, 'status'))
    assert.equal((ingress.spec as Record<string, unknown>).ingressClassName, undefined)
  })
})
