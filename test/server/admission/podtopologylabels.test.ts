/**
 * The PodTopologyLabels plugin, with the cases of the reference's
 * plugin/pkg/admission/podtopologylabels admission_test.go (TestPodTopology): a Binding to a
 * Node and a pod created with spec.nodeName get the Node's topology.k8s.io/zone and region
 * labels, nothing else. The reference's current admission.go keeps labels already set
 * (mergeLabels "without overwriting existing keys"); its older test expected the Binding's
 * label overwritten, so that case expects the label kept here.
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes } from '../../../src/server/admission/attributes.js'
import { PodTopologyLabels } from '../../../src/server/admission/podtopologylabels.js'
import type { AdmissionStores } from '../../../src/server/admission/plugins.js'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { errors } from '../../../src/server/api/status-errors.js'

function nodesStore(nodes: KubeObject[]): AdmissionStores {
  return {
    store: undefined as never,
    lookup: (group, _version, resource) =>
      ({
        get: async (_namespace: string | undefined, name: string) => {
          const found = resource === 'nodes' ? nodes.find((n) => n.metadata.name === name) : undefined
          if (!found) throw errors.notFound({ group, resource }, name)
          return structuredClone(found)
        },
      }) as unknown as GenericStore,
  }
}

function attributes(object: KubeObject, subresource: string, kind: string): AdmissionAttributes {
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'version', kind },
    resource: { group: '', version: 'version', resource: 'pods' },
    subresource,
    namespace: 'test-ns',
    name: 'testPod',
    object,
    dryRun: false,
  }
}

const cases: { name: string; targetNodeLabels: Record<string, string>; existingBindingLabels?: Record<string, string>; expectedBindingLabels: Record<string, string>; featureDisabled?: boolean }[] = [
  {
    name: 'copies topology.k8s.io/zone and region labels to binding labels',
    targetNodeLabels: { 'topology.k8s.io/zone': 'zone1', 'topology.k8s.io/region': 'region1', 'topology.k8s.io/arbitrary': 'something', 'non-topology.k8s.io/label': 'something' },
    expectedBindingLabels: { 'topology.k8s.io/zone': 'zone1', 'topology.k8s.io/region': 'region1' },
  },
  { name: 'does not copy arbitrary topology labels', targetNodeLabels: { 'topology.k8s.io/zone': 'zone1', 'topology.k8s.io/arbitrary': 'something' }, expectedBindingLabels: { 'topology.k8s.io/zone': 'zone1' } },
  { name: 'does not copy topology labels that use a subdomain', targetNodeLabels: { 'topology.k8s.io/region': 'region1', 'sub.topology.k8s.io/zone': 'value' }, expectedBindingLabels: { 'topology.k8s.io/region': 'region1' } },
  { name: "does not copy label keys that don't contain a / character", targetNodeLabels: { 'topology.k8s.io': 'value' }, existingBindingLabels: {}, expectedBindingLabels: {} },
  {
    name: 'keeps existing topology labels (the current mergeLabels)',
    existingBindingLabels: { 'topology.k8s.io/zone': 'oldValue' },
    targetNodeLabels: { 'topology.k8s.io/zone': 'newValue', 'topology.k8s.io/region': 'region1' },
    expectedBindingLabels: { 'topology.k8s.io/zone': 'oldValue', 'topology.k8s.io/region': 'region1' },
  },
  { name: 'does nothing if the SetPodTopologyLabels feature gate is disabled', targetNodeLabels: { 'topology.k8s.io/zone': 'zone1', 'topology.k8s.io/region': 'region1' }, expectedBindingLabels: {}, featureDisabled: true },
]

describe('admission: PodTopologyLabels (TestPodTopology)', () => {
  for (const c of cases) {
    describe(c.name, () => {
      const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'valid-test-node', labels: c.targetNodeLabels } }
      const plugin = () => new PodTopologyLabels({ stores: () => nodesStore([node]), config: { featureGates: new Map([['PodTopologyLabelsAdmission', !c.featureDisabled]]) }, log: () => {} })
      const labels = (o: KubeObject) => o.metadata.labels ?? {}

      it('using Binding subresource', async () => {
        const binding: KubeObject = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'testPod', namespace: 'test-ns', ...(c.existingBindingLabels ? { labels: { ...c.existingBindingLabels } } : {}) }, target: { kind: 'Node', name: 'valid-test-node' } }
        const a = attributes(binding, 'binding', 'Binding')
        await plugin().admit(a)
        assert.deepEqual(labels(a.object!), c.expectedBindingLabels)
      })

      it('using Pod directly (create)', async () => {
        const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'testPod', namespace: 'test-ns', ...(c.existingBindingLabels ? { labels: { ...c.existingBindingLabels } } : {}) }, spec: { nodeName: 'valid-test-node' } }
        const a = attributes(pod, '', 'Pod')
        await plugin().admit(a)
        assert.deepEqual(labels(a.object!), c.expectedBindingLabels)
      })
    })
  }

  it('leaves alone a binding to another kind, an unscheduled pod, a missing Node, other subresources and updates', async () => {
    const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', labels: { 'topology.k8s.io/zone': 'z' } } }
    const plugin = new PodTopologyLabels({ stores: () => nodesStore([node]), config: {}, log: () => {} })
    const toPod = attributes({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Pod', name: 'n' } }, 'binding', 'Binding')
    await plugin.admit(toPod)
    assert.equal(toPod.object!.metadata.labels, undefined)
    const unscheduled = attributes({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} }, '', 'Pod')
    await plugin.admit(unscheduled)
    assert.equal(unscheduled.object!.metadata.labels, undefined)
    const missing = attributes({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'gone' } }, '', 'Pod')
    await plugin.admit(missing)
    assert.equal(missing.object!.metadata.labels, undefined)
    const status = attributes({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'n' } }, 'status', 'Pod')
    await plugin.admit(status)
    assert.equal(status.object!.metadata.labels, undefined)
    assert.equal(plugin.handles('UPDATE'), false)
    assert.equal(plugin.handles('CREATE'), true)
  })

  it('is on by default (PodTopologyLabelsAdmission, beta in 1.35)', async () => {
    const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', labels: { 'topology.k8s.io/region': 'r' } } }
    const a = attributes({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'n' } }, '', 'Pod')
    await new PodTopologyLabels({ stores: () => nodesStore([node]), config: {}, log: () => {} }).admit(a)
    assert.deepEqual(a.object!.metadata.labels, { 'topology.k8s.io/region': 'r' })
  })
})
