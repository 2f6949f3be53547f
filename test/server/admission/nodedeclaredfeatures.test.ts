/**
 * The NodeDeclaredFeatureValidator plugin, with the cases of the reference's
 * plugin/pkg/admission/nodedeclaredfeatures admission_test.go (TestAdmission: its mock features
 * given to the plugin as the reference gives its framework, its nodes, pods, versions and
 * messages), and the 1.35 registry's one feature, GuaranteedQoSPodCPUResize (the cases of
 * features/inplacepodresize guaranteed_cpu_resize_test.go's InferForUpdate).
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes } from '../../../src/server/admission/attributes.js'
import { DECLARED_FEATURES, type DeclaredFeature, NodeDeclaredFeatureValidator, type Version } from '../../../src/server/admission/nodedeclaredfeatures.js'
import type { AdmissionStores } from '../../../src/server/admission/plugins.js'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { ApiError, errors } from '../../../src/server/api/status-errors.js'

const node = (name: string, declaredFeatures: string[]): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { declaredFeatures, nodeInfo: { kubeletVersion: '1.35.0' } } })
const nodes = [node('test-node', ['TestFeature']), node('test-node-no-feature', [])]

function stores(): AdmissionStores {
  return {
    store: undefined as never,
    lookup: (group, _version, resource) =>
      ({
        get: async (_namespace: string | undefined, name: string) => {
          const found = nodes.find((n) => n.metadata.name === name)
          if (!found) throw errors.notFound({ group, resource }, name)
          return structuredClone(found)
        },
      }) as unknown as GenericStore,
  }
}

function pod(nodeName: string, cpu: string, generation: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'test-pod', namespace: 'test-ns', generation },
    spec: { nodeName, containers: [{ name: 'container', image: 'image', resources: { requests: { cpu, memory: '100Mi' } } }] },
  }
}
const oldPod = pod('test-node', '1000m', 0)
const newPod = pod('test-node', '2000m', 1)
const onNode = (p: KubeObject, nodeName: string): KubeObject => ({ ...structuredClone(p), spec: { ...(p.spec as object), nodeName } })

const mockFeature = (name: string, inferForUpdate: boolean, maxVersion?: Version): DeclaredFeature => ({ name, ...(maxVersion ? { maxVersion } : {}), inferForUpdate: () => inferForUpdate })
const v = (s: string) => s.split('.').map(Number) as unknown as Version

function attributes(object: KubeObject, old: KubeObject, subresource = ''): AdmissionAttributes {
  return {
    operation: 'UPDATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource,
    namespace: 'test-ns',
    name: 'test-pod',
    object,
    oldObject: old,
    dryRun: false,
  }
}

describe('admission: NodeDeclaredFeatureValidator (TestAdmission)', () => {
  const cases: { name: string; pod: KubeObject; oldPod: KubeObject; features: DeclaredFeature[]; gate: boolean; version: string; errContains?: string; subresource?: string }[] = [
    { name: 'Feature gate disabled', pod: newPod, oldPod, features: [mockFeature('TestFeature', true)], gate: false, version: '1.35.0' },
    { name: 'skip validation when pod is not bound to node', pod: onNode(oldPod, ''), oldPod, features: [], gate: true, version: '1.35.0' },
    { name: 'skip validation on invalid node name', pod: onNode(newPod, 'not-found-node'), oldPod, features: [mockFeature('TestFeature', true, v('1.35.0'))], gate: true, version: '1.35.0', errContains: 'node "not-found-node" not found' },
    { name: 'No feature requirements', pod: newPod, oldPod, features: [mockFeature('FeatureA', false)], gate: true, version: '1.35.0' },
    { name: 'Feature requirement met', pod: newPod, oldPod, features: [mockFeature('TestFeature', true, v('1.35.0'))], gate: true, version: '1.35.0' },
    {
      name: 'Feature requirement not met',
      pod: onNode(newPod, 'test-node-no-feature'),
      oldPod,
      features: [mockFeature('TestFeature', true, v('1.35.0'))],
      gate: true,
      version: '1.34.0',
      errContains: 'pod update requires features TestFeature which are not available on node "test-node-no-feature"',
    },
    { name: 'skip validation when generation not updated', pod: { ...onNode(newPod, 'test-node'), metadata: { ...newPod.metadata, generation: 0 } }, oldPod, features: [mockFeature('TestFeature', true, v('1.35.0'))], gate: true, version: '1.34.0' },
    { name: 'Feature not need as its generally available', pod: onNode(newPod, 'test-node-no-feature'), oldPod, features: [mockFeature('TestFeature', false, v('1.34.0'))], gate: true, version: '1.35.0' },
    { name: 'skip validation for `status` subresource', pod: onNode(newPod, 'test-node-no-feature'), oldPod, features: [mockFeature('TestFeature', true, v('1.35.0'))], gate: true, version: '1.35.0', subresource: 'status' },
    { name: 'DO not skip validation for `resize` subresource', pod: newPod, oldPod, features: [mockFeature('TestFeature', true, v('1.35.0'))], gate: true, version: '1.34.0', subresource: 'resize' },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const plugin = new NodeDeclaredFeatureValidator({ stores, config: { featureGates: new Map([['NodeDeclaredFeatures', c.gate]]) }, log: () => {} }, c.features, v(c.version))
      const attempt = plugin.validate(attributes(c.pod, c.oldPod, c.subresource))
      if (c.errContains === undefined) await attempt
      else await assert.rejects(attempt, (err: unknown) => err instanceof ApiError && err.code === 403 && err.message.includes(c.errContains!))
    })
  }

  it('a feature past its max version is not required; the message names every missing feature, sorted', async () => {
    const plugin = new NodeDeclaredFeatureValidator({ stores, config: { featureGates: new Map([['NodeDeclaredFeatures', true]]) }, log: () => {} }, [mockFeature('Zeta', true), mockFeature('Alpha', true), mockFeature('Old', true, v('1.34.9'))], v('1.35.0'))
    await assert.rejects(plugin.validate(attributes(onNode(newPod, 'test-node-no-feature'), oldPod)), (err: unknown) => {
      return err instanceof ApiError && err.message === 'pods "test-pod" is forbidden: pod update requires features Alpha, Zeta which are not available on node "test-node-no-feature"'
    })
  })

  it('is off by default (NodeDeclaredFeatures is alpha in 1.35) and handles creates and updates', async () => {
    const plugin = new NodeDeclaredFeatureValidator({ stores, config: {}, log: () => {} }, [mockFeature('TestFeature', true)])
    await plugin.validate(attributes(onNode(newPod, 'test-node-no-feature'), oldPod))
    assert.equal(plugin.handles('CREATE'), true)
    assert.equal(plugin.handles('UPDATE'), true)
    assert.equal(plugin.handles('DELETE'), false)
  })

  describe('GuaranteedQoSPodCPUResize (the 1.35 registry)', () => {
    const [feature] = DECLARED_FEATURES
    const withQos = (p: KubeObject, qosClass: string): KubeObject => ({ ...structuredClone(p), status: { qosClass } })
    it('is the registry', () => assert.deepEqual(DECLARED_FEATURES.map((f) => f.name), ['GuaranteedQoSPodCPUResize']))
    it('a Guaranteed pod whose CPU request changes needs it', () => assert.equal(feature!.inferForUpdate(withQos(oldPod, 'Guaranteed'), newPod), true))
    it('the same CPU written another way does not', () => assert.equal(feature!.inferForUpdate(withQos(pod('n', '1', 0), 'Guaranteed'), pod('n', '1000m', 1)), false))
    it('a Burstable pod does not', () => assert.equal(feature!.inferForUpdate(withQos(oldPod, 'Burstable'), newPod), false))
    it('a memory-only change does not', () => {
      const memory = structuredClone(oldPod)
      ;((memory.spec as { containers: { resources: { requests: Record<string, string> } }[] }).containers[0]!.resources.requests).memory = '200Mi'
      assert.equal(feature!.inferForUpdate(withQos(oldPod, 'Guaranteed'), memory), false)
    })
    it('refuses such a resize on a node that does not declare it, with the reference message', async () => {
      const plugin = new NodeDeclaredFeatureValidator({ stores, config: { featureGates: new Map([['NodeDeclaredFeatures', true]]) }, log: () => {} })
      await assert.rejects(plugin.validate(attributes(onNode(newPod, 'test-node-no-feature'), withQos(oldPod, 'Guaranteed'), 'resize')), (err: unknown) => {
        return err instanceof ApiError && err.message === 'pods "test-pod" is forbidden: pod update requires features GuaranteedQoSPodCPUResize which are not available on node "test-node-no-feature"'
      })
    })
  })
})
