import assert from 'node:assert/strict'
import type { PluginInitialization } from '../../../src/server/admission/plugins.js'
import { PodTolerationRestriction, loadConfiguration } from '../../../src/server/admission/pod-toleration-restriction.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { type TestRegistry, openTestRegistry } from '../api/support.js'
import { attributesFor, refusal } from './table-support.js'

// The reference's podtolerationrestriction/admission_test.go (TestPodAdmission, TestHandles)
// and config_test.go, with today's merge: pod tolerations first, then the namespace's (or the
// cluster's) defaults, a toleration another covers dropped; conflicting ones are both kept.
const t = (value: string) => ({ key: 'testKey', operator: 'Equal', value, effect: 'NoSchedule' })
const memoryPressure = { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' }
const bestEffort = { containers: [{ name: 'test' }] }
const burstable = { containers: [{ name: 'test', resources: { limits: { cpu: '1000m' }, requests: { cpu: '500m' } } }] }
const guaranteed = { containers: [{ name: 'test', resources: { limits: { cpu: '1000m' }, requests: { cpu: '1000m' } } }] }

const CASES: Array<{
  testName: string
  pod: Record<string, unknown>
  defaultClusterTolerations?: unknown[]
  namespaceTolerations?: unknown[]
  whitelist?: unknown[]
  clusterWhitelist?: unknown[]
  podTolerations: unknown[]
  mergedTolerations?: unknown[]
  refusal?: string
}> = [
  { testName: 'default cluster tolerations with empty pod tolerations', pod: bestEffort, defaultClusterTolerations: [t('testValue')], podTolerations: [], mergedTolerations: [t('testValue')] },
  { testName: 'default cluster tolerations with pod tolerations specified', pod: bestEffort, defaultClusterTolerations: [t('testValue')], podTolerations: [t('testValue')], mergedTolerations: [t('testValue')] },
  { testName: 'namespace tolerations', pod: bestEffort, namespaceTolerations: [t('testValue')], podTolerations: [t('testValue')], mergedTolerations: [t('testValue')] },
  { testName: 'no pod tolerations', pod: bestEffort, namespaceTolerations: [t('testValue')], podTolerations: [], mergedTolerations: [t('testValue')] },
  { testName: 'conflicting pod and namespace tolerations', pod: bestEffort, namespaceTolerations: [t('testValue')], podTolerations: [t('testValue1')], mergedTolerations: [t('testValue1'), t('testValue')] },
  { testName: 'conflicting pod and default cluster tolerations', pod: bestEffort, defaultClusterTolerations: [t('testValue2')], podTolerations: [t('testValue1')], mergedTolerations: [t('testValue1'), t('testValue2')] },
  { testName: 'merged pod tolerations satisfy whitelist', pod: bestEffort, namespaceTolerations: [t('testValue')], whitelist: [t('testValue')], podTolerations: [], mergedTolerations: [t('testValue')] },
  {
    testName: 'merged pod tolerations conflict with the whitelist',
    pod: bestEffort,
    namespaceTolerations: [t('testValue')],
    whitelist: [t('testValue1')],
    podTolerations: [],
    refusal: 'pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist',
  },
  {
    testName: 'merged pod tolerations conflict with the cluster whitelist',
    pod: bestEffort,
    namespaceTolerations: [t('testValue')],
    clusterWhitelist: [t('testValue1')],
    podTolerations: [],
    refusal: 'pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist',
  },
  { testName: 'added memoryPressure/DiskPressure for Burstable pod', pod: burstable, namespaceTolerations: [t('testValue')], podTolerations: [], mergedTolerations: [t('testValue'), memoryPressure] },
  { testName: 'added memoryPressure/DiskPressure for Guaranteed pod', pod: guaranteed, namespaceTolerations: [t('testValue')], podTolerations: [], mergedTolerations: [t('testValue'), memoryPressure] },
  {
    testName: 'a broader pod toleration covers the namespace default',
    pod: bestEffort,
    namespaceTolerations: [t('testValue')],
    podTolerations: [{ key: 'testKey', operator: 'Exists' }],
    mergedTolerations: [{ key: 'testKey', operator: 'Exists' }],
  },
]

describe('admission: PodTolerationRestriction', () => {
  let r: TestRegistry
  let init: PluginInitialization
  before(async () => {
    r = await openTestRegistry('adm-ptr-', ['testnamespace'])
    init = { stores: () => r.registry, config: {}, log: () => {} }
  })
  after(() => r.close())

  const annotate = (annotations: Record<string, string>) =>
    r.registry.lookup('', 'v1', 'namespaces')!.update(undefined, 'testnamespace', (ns) => {
      ns.metadata.annotations = annotations
      return ns
    })
  const podAttributes = (spec: Record<string, unknown>, operation: 'CREATE' | 'UPDATE' = 'CREATE') =>
    attributesFor({ operation, object: { kind: 'Pod', metadata: { name: 'testPod', namespace: 'testnamespace' }, spec } as KubeObject, namespace: 'testnamespace', name: 'testPod' })

  for (const tc of CASES) {
    it(tc.testName, async () => {
      const annotations: Record<string, string> = {}
      if (tc.namespaceTolerations) annotations['scheduler.alpha.kubernetes.io/defaultTolerations'] = JSON.stringify(tc.namespaceTolerations)
      if (tc.whitelist) annotations['scheduler.alpha.kubernetes.io/tolerationsWhitelist'] = JSON.stringify(tc.whitelist)
      await annotate(annotations)
      const plugin = new PodTolerationRestriction(init, {
        apiVersion: 'podtolerationrestriction.admission.k8s.io/v1alpha1',
        kind: 'Configuration',
        default: tc.defaultClusterTolerations ?? [],
        whitelist: tc.clusterWhitelist ?? [],
      })
      const attributes = podAttributes({ ...structuredClone(tc.pod), tolerations: structuredClone(tc.podTolerations) })
      const got = await refusal(plugin.admit(attributes))
      if (tc.refusal) {
        // A plain error in the reference: its handler answers 500 with the text.
        assert.deepEqual(got, { code: 500, reason: undefined, message: tc.refusal })
        return
      }
      assert.equal(got, undefined)
      assert.deepEqual((attributes.object!.spec as { tolerations: unknown }).tolerations, tc.mergedTolerations)
      assert.equal(await refusal(plugin.validate(attributes)), undefined)
    })
  }

  it('an update takes no namespace defaults (only the memory-pressure toleration) and is checked against the allow list', async () => {
    await annotate({ 'scheduler.alpha.kubernetes.io/defaultTolerations': JSON.stringify([t('testValue')]), 'scheduler.alpha.kubernetes.io/tolerationsWhitelist': '[]' })
    const plugin = new PodTolerationRestriction(init, undefined)
    const update = podAttributes({ ...burstable, tolerations: [t('testValue1')] }, 'UPDATE')
    await plugin.admit(update)
    assert.deepEqual((update.object!.spec as { tolerations: unknown }).tolerations, [t('testValue1'), memoryPressure])
  })

  it('an empty annotation overrides the cluster default with none', async () => {
    await annotate({ 'scheduler.alpha.kubernetes.io/defaultTolerations': '' })
    const plugin = new PodTolerationRestriction(init, { apiVersion: 'podtolerationrestriction.admission.k8s.io/v1', kind: 'Configuration', default: [t('testValue')] })
    const attributes = podAttributes({ ...bestEffort })
    await plugin.admit(attributes)
    assert.equal((attributes.object!.spec as { tolerations?: unknown }).tolerations, undefined)
  })

  it('a missing namespace is its NotFound', async () => {
    const plugin = new PodTolerationRestriction(init, undefined)
    const got = await refusal(plugin.admit(attributesFor({ object: { kind: 'Pod', metadata: { name: 'p' }, spec: {} }, namespace: 'missing', name: 'p' })))
    assert.deepEqual(got, { code: 404, reason: 'NotFound', message: 'namespaces "missing" not found' })
  })

  it('TestConfigParse: v1alpha1 and v1 Configurations; none is empty; invalid tolerations are refused', () => {
    for (const v of ['v1alpha1', 'v1']) {
      const parsed = loadConfiguration({
        apiVersion: `podtolerationrestriction.admission.k8s.io/${v}`,
        kind: 'Configuration',
        default: [{ key: 'key1', operator: 'Equal', value: 'value1' }],
        whitelist: [{ key: 'key2', operator: 'Equal', value: 'value2' }],
      })
      assert.deepEqual(parsed, { default: [{ key: 'key1', operator: 'Equal', value: 'value1' }], whitelist: [{ key: 'key2', operator: 'Equal', value: 'value2' }] })
    }
    assert.deepEqual(loadConfiguration(undefined), { default: [], whitelist: [] })
    assert.throws(() => loadConfiguration({ apiVersion: 'podtolerationrestriction.admission.k8s.io/v1', kind: 'Configuration', default: [{ key: 'k', operator: 'Bogus' }] }), /^Error: invalid config: \[podtolerationrestriction\.default\[0\]\.operator: Unsupported value: "Bogus"/)
  })

  it('TestHandles: creates and updates', () => {
    const plugin = new PodTolerationRestriction(init, undefined)
    assert.deepEqual((['CREATE', 'UPDATE', 'CONNECT', 'DELETE'] as const).map((op) => plugin.handles(op)), [true, true, false, false])
  })
})
