import assert from 'node:assert/strict'
import type { PluginInitialization } from '../../../src/server/admission/plugins.js'
import { PodNodeSelector, readConfig } from '../../../src/server/admission/pod-node-selector.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { type TestRegistry, openTestRegistry } from '../api/support.js'
import { attributesFor, refusal } from './table-support.js'

// The reference's podnodeselector/admission_test.go (TestPodAdmission, TestHandles).
const CASES: Array<{
  defaultNodeSelector: string
  namespaceNodeSelector?: string
  whitelist?: string
  podNodeSelector: Record<string, string>
  mergedNodeSelector?: Record<string, string>
  ignoreTestNamespaceNodeSelector?: boolean
  admit: boolean
  testName: string
}> = [
  { defaultNodeSelector: '', podNodeSelector: {}, mergedNodeSelector: {}, ignoreTestNamespaceNodeSelector: true, admit: true, testName: 'No node selectors' },
  { defaultNodeSelector: 'infra = false', podNodeSelector: {}, mergedNodeSelector: { infra: 'false' }, ignoreTestNamespaceNodeSelector: true, admit: true, testName: 'Default node selector and no conflicts' },
  { defaultNodeSelector: '', namespaceNodeSelector: ' infra = false ', podNodeSelector: {}, mergedNodeSelector: { infra: 'false' }, admit: true, testName: 'TestNamespace node selector with whitespaces and no conflicts' },
  { defaultNodeSelector: 'infra = false', namespaceNodeSelector: 'infra=true', podNodeSelector: {}, mergedNodeSelector: { infra: 'true' }, admit: true, testName: 'Default and namespace node selector, no conflicts' },
  { defaultNodeSelector: 'infra = false', namespaceNodeSelector: '', podNodeSelector: {}, mergedNodeSelector: {}, admit: true, testName: 'Empty namespace node selector and no conflicts' },
  { defaultNodeSelector: 'infra = false', namespaceNodeSelector: 'infra=true', podNodeSelector: { env: 'test' }, mergedNodeSelector: { infra: 'true', env: 'test' }, admit: true, testName: 'TestNamespace and pod node selector, no conflicts' },
  { defaultNodeSelector: 'env = test', namespaceNodeSelector: 'infra=true', podNodeSelector: { infra: 'false' }, admit: false, testName: 'Conflicting pod and namespace node selector, one label' },
  { defaultNodeSelector: 'env=dev', namespaceNodeSelector: 'infra=false, env = test', podNodeSelector: { env: 'dev', color: 'blue' }, admit: false, testName: 'Conflicting pod and namespace node selector, multiple labels' },
  {
    defaultNodeSelector: 'env=dev',
    namespaceNodeSelector: 'infra=false, env = dev',
    whitelist: 'env=dev, infra=false, color=blue',
    podNodeSelector: { env: 'dev', color: 'blue' },
    mergedNodeSelector: { infra: 'false', env: 'dev', color: 'blue' },
    admit: true,
    testName: 'Merged pod node selectors satisfy the whitelist',
  },
  { defaultNodeSelector: 'env=dev', namespaceNodeSelector: 'infra=false, env = dev', whitelist: 'env=dev, infra=true, color=blue', podNodeSelector: { env: 'dev', color: 'blue' }, admit: false, testName: 'Merged pod node selectors conflict with the whitelist' },
  { defaultNodeSelector: 'env=dev', ignoreTestNamespaceNodeSelector: true, whitelist: 'env=prd', podNodeSelector: {}, admit: false, testName: 'Default node selector conflict with the whitelist' },
]

const CONFLICT = 'pods "testPod" is forbidden: pod node label selector conflicts with its namespace node label selector'
const WHITELIST = 'pods "testPod" is forbidden: pod node label selector labels conflict with its namespace whitelist'

describe('admission: PodNodeSelector', () => {
  let t: TestRegistry
  let init: PluginInitialization
  before(async () => {
    t = await openTestRegistry('adm-pns-', ['testnamespace'])
    init = { stores: () => t.registry, config: {}, log: () => {} }
  })
  after(() => t.close())

  const setAnnotation = async (value: string | undefined) => {
    const namespaces = t.registry.lookup('', 'v1', 'namespaces')!
    await namespaces.update(undefined, 'testnamespace', (ns) => {
      ns.metadata.annotations = value === undefined ? {} : { 'scheduler.alpha.kubernetes.io/node-selector': value }
      return ns
    })
  }

  for (const tc of CASES) {
    it(tc.testName, async () => {
      // The reference's test keeps the previous case's annotation when told to ignore it.
      if (!tc.ignoreTestNamespaceNodeSelector) await setAnnotation(tc.namespaceNodeSelector)
      const pluginConfig = { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: tc.defaultNodeSelector, testnamespace: tc.whitelist ?? '' } }
      const plugin = new PodNodeSelector(init, pluginConfig)
      const pod: KubeObject = { kind: 'Pod', metadata: { name: 'testPod', namespace: 'testnamespace' }, spec: { nodeSelector: { ...tc.podNodeSelector } } }
      const attributes = attributesFor({ object: pod, namespace: 'testnamespace', name: 'testPod' })
      const admitted = await refusal(plugin.admit(attributes))
      const validated = await refusal(plugin.validate(attributes))
      if (tc.admit) {
        assert.equal(admitted, undefined)
        assert.equal(validated, undefined)
        assert.deepEqual((pod.spec as { nodeSelector: unknown }).nodeSelector, tc.mergedNodeSelector)
        return
      }
      assert.equal(admitted?.code, 403)
      assert.ok([CONFLICT, WHITELIST].includes(admitted!.message), admitted!.message)
      assert.equal(validated?.code, 403)
    })
  }

  it('the messages: a conflict with the namespace selector, then with the allow list', async () => {
    await setAnnotation('infra=true')
    const plugin = new PodNodeSelector(init, { podNodeSelectorPluginConfig: { testnamespace: 'infra=true' } })
    const pod = (nodeSelector: Record<string, string>): KubeObject => ({ kind: 'Pod', metadata: { name: 'testPod', namespace: 'testnamespace' }, spec: { nodeSelector } })
    const attrs = (p: KubeObject) => attributesFor({ object: p, namespace: 'testnamespace', name: 'testPod' })
    assert.deepEqual(await refusal(plugin.admit(attrs(pod({ infra: 'false' })))), { code: 403, reason: 'Forbidden', message: CONFLICT })
    assert.deepEqual(await refusal(plugin.admit(attrs(pod({ env: 'dev' })))), { code: 403, reason: 'Forbidden', message: WHITELIST })
  })

  it('a namespace that does not exist is an internal error, as the reference reads it', async () => {
    const plugin = new PodNodeSelector(init, undefined)
    const got = await refusal(plugin.admit(attributesFor({ object: { kind: 'Pod', metadata: { name: 'p' }, spec: {} }, namespace: 'missing', name: 'p' })))
    assert.deepEqual(got, { code: 500, reason: 'InternalError', message: 'Internal error occurred: namespace missing does not exist' })
  })

  it('reads podNodeSelectorPluginConfig from the configuration, ignoring what it cannot read', () => {
    assert.deepEqual(readConfig({ podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'a=b', ns1: 'c=d' } }), { clusterDefaultNodeSelector: 'a=b', ns1: 'c=d' })
    assert.deepEqual(readConfig({ PodNodeSelectorPluginConfig: { ns1: 'c=d' } }), { ns1: 'c=d' })
    assert.deepEqual(readConfig(undefined), {})
    assert.deepEqual(readConfig('nonsense'), {})
  })

  it('TestHandles: creates only', () => {
    const plugin = new PodNodeSelector(init, undefined)
    assert.deepEqual((['CREATE', 'UPDATE', 'CONNECT', 'DELETE'] as const).map((op) => plugin.handles(op)), [true, false, false, false])
  })
})
