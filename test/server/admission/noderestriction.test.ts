/**
 * The NodeRestriction plugin, with the cases of the reference's
 * plugin/pkg/admission/noderestriction admission_test.go (Test_nodePlugin_Admit,
 * Test_nodePlugin_Admit_OwnerReference, Test_getModifiedLabels, TestAdmitPVCStatus,
 * TestAdmitResourceSlice): their names, their objects and the text each refusal must contain,
 * as the reference checks it (strings.Contains), and a few whole messages. The pods, nodes,
 * claims, volumes and CSI drivers the plugin reads come from fake stores, as the reference's
 * listers.
 */
import assert from 'node:assert/strict'
import { webcrypto } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import type { AdmissionAttributes, AdmissionOperation } from '../../../src/server/admission/attributes.js'
import { NodeRestriction } from '../../../src/server/admission/noderestriction/admission.js'
import { modifiedLabels } from '../../../src/server/admission/noderestriction/kubelet-labels.js'
import type { AdmissionStores } from '../../../src/server/admission/plugins.js'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { ApiError, errors } from '../../../src/server/api/status-errors.js'
import type { Authorizer } from '../../../src/server/authorization/authorizer.js'
import type { UserInfo } from '../../../src/server/http/types.js'

const mynode: UserInfo = { name: 'system:node:mynode', groups: ['system:nodes'] }
const bob: UserInfo = { name: 'bob', groups: [] }

type Objects = Record<string, readonly KubeObject[]>

/** Stores that only get, from fixed objects (the reference's listers over indexers). */
function fakeStores(objects: Objects): AdmissionStores {
  return {
    store: undefined as never,
    lookup: (group, _version, resource) =>
      ({
        get: async (namespace: string | undefined, name: string) => {
          const found = (objects[resource] ?? []).find((o) => o.metadata.name === name && (o.metadata.namespace ?? '') === (namespace ?? ''))
          if (!found) throw errors.notFound({ group, resource }, name)
          return structuredClone(found)
        },
      }) as unknown as GenericStore,
  }
}

function makeTestPod(namespace: string, name: string, node: string, mirror: boolean, spec: Record<string, unknown> = {}): KubeObject {
  const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name, uid: 'pod-uid' }, spec: { nodeName: node, ...spec } }
  if (mirror) {
    pod.metadata.annotations = { 'kubernetes.io/config.mirror': 'true' }
    pod.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: node, uid: `${node}-uid`, controller: true }]
  }
  return pod
}

function withLabels(pod: KubeObject, labels?: Record<string, string>): KubeObject {
  const copy = structuredClone(pod)
  if (labels) copy.metadata.labels = { ...labels }
  else delete copy.metadata.labels
  return copy
}

const eviction = (name: string): KubeObject => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'ns' } })

function tokenRequest(podName: string, podUID: string, audiences: string[]): KubeObject {
  return {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    metadata: {},
    spec: { audiences, ...(podName !== '' ? { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: podName, uid: podUID } } : {}) },
  }
}

const KUBELET_LABELS = [
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]

function setLabels(node: KubeObject, keys: readonly string[], value: string): KubeObject {
  const copy = structuredClone(node)
  copy.metadata.labels = { ...(copy.metadata.labels ?? {}) }
  for (const key of keys) copy.metadata.labels[key] = value || 'value'
  return copy
}
const ALLOWED_LABELS = [
  'foo',
  'example.com/foo',
  ...KUBELET_LABELS,
  'kubelet.kubernetes.io/foo',
  'foo.kubelet.kubernetes.io/foo',
  'node.kubernetes.io/foo',
  'foo.node.kubernetes.io/foo',
]
const FORBIDDEN_LABELS = ['node-restriction.kubernetes.io/foo', 'foo.node-restriction.kubernetes.io/foo', 'other.kubernetes.io/foo', 'other.k8s.io/foo']
const setAllowedLabels = (node: KubeObject, value: string) => setLabels(node, ALLOWED_LABELS, value)
const setForbiddenLabels = (node: KubeObject, value: string) => setLabels(node, FORBIDDEN_LABELS, value)
const setAllLabels = (node: KubeObject, value: string) => setForbiddenLabels(setAllowedLabels(node, value), value)

const nodeObj = (name: string, spec: Record<string, unknown> = {}, uid?: string): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, ...(uid ? { uid } : {}) }, spec })
const mynodeObj = nodeObj('mynode', {}, 'mynode-uid')
const configSource = (name: string, uid: string) => ({ configSource: { configMap: { name, namespace: 'bar', uid, kubeletConfigKey: 'kubelet' } } })
const mynodeObjConfigA = nodeObj('mynode', configSource('foo', 'fooUID'), 'mynode-uid')
const mynodeObjConfigB = nodeObj('mynode', configSource('qux', 'quxUID'), 'mynode-uid')
const mynodeObjTaintA = nodeObj('mynode', { taints: [{ key: 'mykey', value: 'A' }] }, 'mynode-uid')
const mynodeObjTaintB = nodeObj('mynode', { taints: [{ key: 'mykey', value: 'B' }] }, 'mynode-uid')
const othernodeObj = nodeObj('othernode')

const mymirrorpod = makeTestPod('ns', 'mymirrorpod', 'mynode', true)
const othermirrorpod = makeTestPod('ns', 'othermirrorpod', 'othernode', true)
const unboundmirrorpod = makeTestPod('ns', 'unboundmirrorpod', '', true)
const mypod = makeTestPod('ns', 'mypod', 'mynode', false)
const otherpod = makeTestPod('ns', 'otherpod', 'othernode', false)
const unboundpod = makeTestPod('ns', 'unboundpod', '', false)
const unnamedpod = makeTestPod('ns', '', 'mynode', false)

// The pods of the service account node audience restriction cases.
const csiVolume = { csi: { driver: 'com.example.csi.mydriver' } }
const pvcVolume = { persistentVolumeClaim: { claimName: 'pvclaim' } }
const mypodWithProjectedServiceAccount = makeTestPod('ns', 'mysapod', 'mynode', false, { volumes: [{ projected: { sources: [{ serviceAccountToken: { audience: 'foo' } }] } }] })
const mypodWithCSI = makeTestPod('ns', 'mycsipod', 'mynode', false, { volumes: [csiVolume] })
const mypodWithPVCRefCSI = makeTestPod('ns', 'mypvcpod', 'mynode', false, { volumes: [pvcVolume] })
const mypodWithEphemeralVolume = makeTestPod('ns', 'myephemeralpod', 'mynode', false, { volumes: [{ name: 'myvol', ephemeral: { volumeClaimTemplate: {} } }] })
const mypodWithPVCAndCSI = makeTestPod('ns', 'mypvcandcsipod', 'mynode', false, { volumes: [pvcVolume, csiVolume] })
const mypodIntreeInlineVolToCSI = makeTestPod('ns', 'myintreeinlinevoltocsipod', 'mynode', false, { volumes: [{ azureFile: { shareName: 'default', secretName: 'secret' } }] })
const mypodIntreePVToCSI = makeTestPod('ns', 'myintreepvtocsipod', 'mynode', false, { volumes: [{ persistentVolumeClaim: { claimName: 'pvclaim-azurefile' } }] })

const csiDrivers = [
  { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'com.example.csi.mydriver' }, spec: { tokenRequests: [{ audience: 'foo' }] } },
  { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'file.csi.azure.com' }, spec: { tokenRequests: [{ audience: 'foo' }] } },
]
const claims = [
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'pvclaim', namespace: 'ns' }, spec: { volumeName: 'pvname' } },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'pvclaim-azurefile', namespace: 'ns' }, spec: { volumeName: 'pvname-azurefile' } },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'myephemeralpod-myvol', namespace: 'ns' }, spec: { volumeName: 'pvname' } },
]
const volumes = [
  { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pvname' }, spec: { csi: { driver: 'com.example.csi.mydriver' } } },
  { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pvname-azurefile' }, spec: { claimRef: { namespace: 'ns' }, azureFile: { shareName: 'default', secretName: 'secret' } } },
]

const existingPods = [
  mymirrorpod,
  othermirrorpod,
  unboundmirrorpod,
  mypod,
  otherpod,
  unboundpod,
  mypodWithProjectedServiceAccount,
  mypodWithCSI,
  mypodWithPVCRefCSI,
  mypodWithEphemeralVolume,
  mypodWithPVCAndCSI,
  mypodIntreePVToCSI,
  mypodIntreeInlineVolToCSI,
]
const existingNodes = [mynodeObj]

const sapod = makeTestPod('ns', 'mysapod', 'mynode', true, { serviceAccountName: 'foo' })
const secretpod = makeTestPod('ns', 'mysecretpod', 'mynode', true, { volumes: [{ secret: { secretName: 'foo' } }] })
const configmappod = makeTestPod('ns', 'myconfigmappod', 'mynode', true, { volumes: [{ configMap: { name: 'foo' } }] })
const ctbpod = makeTestPod('ns', 'myctbpod', 'mynode', true, { volumes: [{ projected: { sources: [{ clusterTrustBundle: { name: 'foo' } }] } }] })
const pvcpod = makeTestPod('ns', 'mypvcpod', 'mynode', true, { volumes: [{ persistentVolumeClaim: { claimName: 'foo' } }] })

const lease = (name: string, namespace: string): KubeObject => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, namespace },
  spec: { holderIdentity: 'mynode', leaseDurationSeconds: 40 },
})
const csiNode = (name: string): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'CSINode',
  metadata: { name },
  spec: { drivers: [{ name: 'com.example.csi/mydriver', nodeID: `com.example.csi/${name}`, topologyKeys: ['com.example.csi/zone'] }] },
})

type Resource = [group: string, resource: string, kind: string]
const POD: Resource = ['', 'pods', 'Pod']
const EVICTION: Resource = ['', 'pods', 'Eviction']
const NODE: Resource = ['', 'nodes', 'Node']
const TOKEN: Resource = ['', 'serviceaccounts', 'TokenRequest']
const LEASE: Resource = ['coordination.k8s.io', 'leases', 'Lease']
const CSINODE: Resource = ['storage.k8s.io', 'csinodes', 'CSINode']
const CONFIGMAP: Resource = ['', 'configmap', 'ConfigMap']
const CSR: Resource = ['certificates.k8s.io', 'certificatesigningrequests', 'CertificateSigningRequest']
const SLICE: Resource = ['resource.k8s.io', 'resourceslices', 'ResourceSlice']
const PVC: Resource = ['', 'persistentvolumeclaims', 'PersistentVolumeClaim']

/** The reference's NewAttributesRecord(object, oldObject, kind, namespace, name, resource, subresource, operation, options, dryRun, user). */
function record(
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
  [group, resource, kind]: Resource,
  namespace: string,
  name: string,
  subresource: string,
  operation: AdmissionOperation,
  userInfo: UserInfo = mynode,
): AdmissionAttributes {
  return {
    operation,
    kind: { group, version: 'v1', kind },
    resource: { group, version: 'v1', resource },
    subresource,
    namespace,
    name,
    ...(object ? { object: structuredClone(object) } : {}),
    ...(oldObject ? { oldObject: structuredClone(oldObject) } : {}),
    dryRun: false,
    userInfo,
  }
}

const podRecord = (object: KubeObject | undefined, oldObject: KubeObject | undefined, pod: KubeObject, subresource: string, operation: AdmissionOperation, user?: UserInfo) =>
  record(object, oldObject, POD, pod.metadata.namespace ?? '', pod.metadata.name ?? '', subresource, operation, user)
const evictionRecord = (object: KubeObject, pod: KubeObject, operation: AdmissionOperation) => record(object, undefined, EVICTION, pod.metadata.namespace ?? '', pod.metadata.name ?? '', 'eviction', operation)
const nodeRecord = (object: KubeObject | undefined, oldObject: KubeObject | undefined, name: string, subresource: string, operation: AdmissionOperation) =>
  record(object, oldObject, NODE, '', name, subresource, operation)
const tokenRecord = (object: KubeObject) => record(object, undefined, TOKEN, 'ns', 'mysa', 'token', 'CREATE')

interface Case {
  name: string
  attributes: AdmissionAttributes | (() => AdmissionAttributes)
  /** What the refusal must contain; '' when admitted. */
  err: string
  pods?: readonly KubeObject[]
  nodes?: readonly KubeObject[]
  csiDrivers?: readonly KubeObject[]
  claims?: readonly KubeObject[]
  volumes?: readonly KubeObject[]
  gates?: Record<string, boolean>
}

async function run(c: Case): Promise<void> {
  const stores = fakeStores({ pods: c.pods ?? [], nodes: c.nodes ?? existingNodes, csidrivers: c.csiDrivers ?? [], persistentvolumeclaims: c.claims ?? [], persistentvolumes: c.volumes ?? [] })
  // The reference's table runs without its gates inspected unless a case sets them.
  const gates = new Map(Object.entries({ ServiceAccountNodeAudienceRestriction: false, ...c.gates }))
  const plugin = new NodeRestriction({ stores: () => stores, config: { featureGates: gates }, log: () => {} })
  const attributes = typeof c.attributes === 'function' ? c.attributes() : c.attributes
  try {
    await plugin.admit(attributes)
  } catch (err) {
    assert.ok(err instanceof ApiError, `not an API error: ${String(err)}`)
    assert.notEqual(c.err, '', `refused: ${err.message}`)
    assert.ok(err.message.includes(c.err), `${JSON.stringify(err.message)} does not contain ${JSON.stringify(c.err)}`)
    return
  }
  assert.equal(c.err, '', `admitted, expected a refusal containing ${JSON.stringify(c.err)}`)
}

const UNEXPECTED = 'forbidden: unexpected operation'
const SELF = 'spec.nodeName set to itself'
const audienceGate = { ServiceAccountNodeAudienceRestriction: true }

const podCases: Case[] = [
  // Mirror pods bound to us
  { name: 'allow creating a mirror pod bound to self', attributes: podRecord(mymirrorpod, undefined, mymirrorpod, '', 'CREATE'), err: '' },
  { name: 'forbid update of mirror pod bound to self', pods: existingPods, attributes: podRecord(mymirrorpod, mymirrorpod, mymirrorpod, '', 'UPDATE'), err: UNEXPECTED },
  { name: 'allow delete of mirror pod bound to self', pods: existingPods, attributes: podRecord(undefined, undefined, mymirrorpod, '', 'DELETE'), err: '' },
  { name: 'forbid create of mirror pod status bound to self', attributes: podRecord(mymirrorpod, undefined, mymirrorpod, 'status', 'CREATE'), err: UNEXPECTED },
  { name: 'allow update of mirror pod status bound to self', pods: existingPods, attributes: podRecord(mymirrorpod, mymirrorpod, mymirrorpod, 'status', 'UPDATE'), err: '' },
  { name: 'forbid delete of mirror pod status bound to self', pods: existingPods, attributes: podRecord(undefined, undefined, mymirrorpod, 'status', 'DELETE'), err: UNEXPECTED },
  { name: 'allow create of eviction for mirror pod bound to self', pods: existingPods, attributes: evictionRecord(eviction('mymirrorpod'), mymirrorpod, 'CREATE'), err: '' },
  { name: 'forbid update of eviction for mirror pod bound to self', pods: existingPods, attributes: evictionRecord(eviction('mymirrorpod'), mymirrorpod, 'UPDATE'), err: UNEXPECTED },
  { name: 'forbid delete of eviction for mirror pod bound to self', pods: existingPods, attributes: evictionRecord(eviction('mymirrorpod'), mymirrorpod, 'DELETE'), err: UNEXPECTED },
  { name: 'allow create of unnamed eviction for mirror pod bound to self', pods: existingPods, attributes: evictionRecord(eviction(''), mymirrorpod, 'CREATE'), err: '' },
  // Mirror pods bound to another node
  { name: 'forbid creating a mirror pod bound to another', attributes: podRecord(othermirrorpod, undefined, othermirrorpod, '', 'CREATE'), err: SELF },
  { name: 'forbid update of mirror pod bound to another', pods: existingPods, attributes: podRecord(othermirrorpod, othermirrorpod, othermirrorpod, '', 'UPDATE'), err: UNEXPECTED },
  { name: 'forbid delete of mirror pod bound to another', pods: existingPods, attributes: podRecord(undefined, undefined, othermirrorpod, '', 'DELETE'), err: SELF },
  { name: 'forbid create of mirror pod status bound to another', attributes: podRecord(othermirrorpod, undefined, othermirrorpod, 'status', 'CREATE'), err: UNEXPECTED },
  { name: 'forbid update of mirror pod status bound to another', pods: existingPods, attributes: podRecord(othermirrorpod, othermirrorpod, othermirrorpod, 'status', 'UPDATE'), err: SELF },
  { name: 'forbid delete of mirror pod status bound to another', pods: existingPods, attributes: podRecord(undefined, undefined, othermirrorpod, 'status', 'DELETE'), err: UNEXPECTED },
  { name: 'forbid create of eviction for mirror pod bound to another', pods: existingPods, attributes: evictionRecord(eviction('othermirrorpod'), othermirrorpod, 'CREATE'), err: SELF },
  { name: 'forbid update of eviction for mirror pod bound to another', pods: existingPods, attributes: evictionRecord(eviction('othermirrorpod'), othermirrorpod, 'UPDATE'), err: UNEXPECTED },
  { name: 'forbid delete of eviction for mirror pod bound to another', pods: existingPods, attributes: evictionRecord(eviction('othermirrorpod'), othermirrorpod, 'DELETE'), err: UNEXPECTED },
  { name: 'forbid create of unnamed eviction for mirror pod to another', pods: existingPods, attributes: evictionRecord(eviction(''), othermirrorpod, 'CREATE'), err: SELF },
  // Mirror pods not bound to any node
  { name: 'forbid creating a mirror pod unbound', attributes: podRecord(unboundmirrorpod, undefined, unboundmirrorpod, '', 'CREATE'), err: SELF },
  { name: 'forbid update of mirror pod unbound', pods: existingPods, attributes: podRecord(unboundmirrorpod, unboundmirrorpod, unboundmirrorpod, '', 'UPDATE'), err: UNEXPECTED },
  { name: 'forbid delete of mirror pod unbound', pods: existingPods, attributes: podRecord(undefined, undefined, unboundmirrorpod, '', 'DELETE'), err: SELF },
  { name: 'forbid create of mirror pod status unbound', attributes: podRecord(unboundmirrorpod, undefined, unboundmirrorpod, 'status', 'CREATE'), err: UNEXPECTED },
  { name: 'forbid update of mirror pod status unbound', pods: existingPods, attributes: podRecord(unboundmirrorpod, unboundmirrorpod, unboundmirrorpod, 'status', 'UPDATE'), err: SELF },
  { name: 'forbid delete of mirror pod status unbound', pods: existingPods, attributes: podRecord(undefined, undefined, unboundmirrorpod, 'status', 'DELETE'), err: UNEXPECTED },
  { name: 'forbid create of eviction for mirror pod unbound', pods: existingPods, attributes: evictionRecord(eviction('unboundmirrorpod'), unboundmirrorpod, 'CREATE'), err: SELF },
  { name: 'forbid update of eviction for mirror pod unbound', pods: existingPods, attributes: evictionRecord(eviction('unboundmirrorpod'), unboundmirrorpod, 'UPDATE'), err: UNEXPECTED },
  { name: 'forbid delete of eviction for mirror pod unbound', pods: existingPods, attributes: evictionRecord(eviction('unboundmirrorpod'), unboundmirrorpod, 'DELETE'), err: UNEXPECTED },
  { name: 'forbid create of unnamed eviction for mirror pod unbound', pods: existingPods, attributes: evictionRecord(eviction(''), unboundmirrorpod, 'CREATE'), err: SELF },
  // Normal pods bound to us
  { name: 'forbid creating a normal pod bound to self', attributes: podRecord(mypod, undefined, mypod, '', 'CREATE'), err: 'can only create mirror pods' },
  { name: 'forbid update of normal pod bound to self', pods: existingPods, attributes: podRecord(mypod, mypod, mypod, '', 'UPDATE'), err: UNEXPECTED },
  { name: 'allow delete of normal pod bound to self', pods: existingPods, attributes: podRecord(undefined, undefined, mypod, '', 'DELETE'), err: '' },
  { name: 'forbid create of normal pod status bound to self', attributes: podRecord(mypod, undefined, mypod, 'status', 'CREATE'), err: UNEXPECTED },
  { name: 'allow update of normal pod status bound to self', pods: existingPods, attributes: podRecord(mypod, mypod, mypod, 'status', 'UPDATE'), err: '' },
  { name: 'forbid delete of normal pod status bound to self', pods: existingPods, attributes: podRecord(undefined, undefined, mypod, 'status', 'DELETE'), err: UNEXPECTED },
  {
    name: 'forbid addition of pod status preexisting labels',
    attributes: podRecord(withLabels(mypod, { 'label-a': 'value-a', 'label-b': 'value-b' }), withLabels(mypod, { 'label-a': 'value-a' }), mypod, 'status', 'UPDATE'),
    err: 'cannot update labels through pod status',
  },
  {
    name: 'forbid deletion of pod status preexisting labels',
    attributes: podRecord(withLabels(mypod, { 'label-a': 'value-a' }), withLabels(mypod, { 'label-a': 'value-a', 'label-b': 'value-b' }), mypod, 'status', 'UPDATE'),
    err: 'cannot update labels through pod status',
  },
  { name: 'forbid deletion of all pod status preexisting labels', attributes: podRecord(withLabels(mypod, { 'label-a': 'value-a' }), mypod, mypod, 'status', 'UPDATE'), err: 'cannot update labels through pod status' },
  { name: 'forbid addition of pod status labels', attributes: podRecord(mypod, withLabels(mypod, { 'label-a': 'value-a' }), mypod, 'status', 'UPDATE'), err: 'cannot update labels through pod status' },
  { name: 'forbid update of eviction for normal pod bound to self', pods: existingPods, attributes: evictionRecord(eviction('mypod'), mypod, 'UPDATE'), err: UNEXPECTED },
  { name: 'forbid delete of eviction for normal pod bound to self', pods: existingPods, attributes: evictionRecord(eviction('mypod'), mypod, 'DELETE'), err: UNEXPECTED },
  { name: 'allow create of unnamed eviction for normal pod bound to self', pods: existingPods, attributes: evictionRecord(eviction(''), mypod, 'CREATE'), err: '' },
  // Normal pods bound to another
  { name: 'forbid creating a normal pod bound to another', attributes: podRecord(otherpod, undefined, otherpod, '', 'CREATE'), err: 'can only create mirror pods' },
  { name: 'forbid update of normal pod bound to another', pods: existingPods, attributes: podRecord(otherpod, otherpod, otherpod, '', 'UPDATE'), err: UNEXPECTED },
  { name: 'forbid delete of normal pod bound to another', pods: existingPods, attributes: podRecord(undefined, undefined, otherpod, '', 'DELETE'), err: SELF },
  { name: 'forbid create of normal pod status bound to another', attributes: podRecord(otherpod, undefined, otherpod, 'status', 'CREATE'), err: UNEXPECTED },
  { name: 'forbid update of normal pod status bound to another', pods: existingPods, attributes: podRecord(otherpod, otherpod, otherpod, 'status', 'UPDATE'), err: SELF },
  { name: 'forbid delete of normal pod status bound to another', pods: existingPods, attributes: podRecord(undefined, undefined, otherpod, 'status', 'DELETE'), err: UNEXPECTED },
  { name: 'forbid create of eviction for normal pod bound to another', pods: existingPods, attributes: evictionRecord(eviction('otherpod'), otherpod, 'CREATE'), err: SELF },
  { name: 'forbid update of eviction for normal pod bound to another', pods: existingPods, attributes: evictionRecord(eviction('otherpod'), otherpod, 'UPDATE'), err: UNEXPECTED },
  { name: 'forbid delete of eviction for normal pod bound to another', pods: existingPods, attributes: evictionRecord(eviction('otherpod'), otherpod, 'DELETE'), err: UNEXPECTED },
  { name: 'forbid create of unnamed eviction for normal pod bound to another', pods: existingPods, attributes: evictionRecord(eviction(''), otherpod, 'CREATE'), err: SELF },
  // Normal pods not bound to any node
  { name: 'forbid creating a normal pod unbound', attributes: podRecord(unboundpod, undefined, unboundpod, '', 'CREATE'), err: 'can only create mirror pods' },
  { name: 'forbid update of normal pod unbound', pods: existingPods, attributes: podRecord(unboundpod, unboundpod, unboundpod, '', 'UPDATE'), err: UNEXPECTED },
  { name: 'forbid delete of normal pod unbound', pods: existingPods, attributes: podRecord(undefined, undefined, unboundpod, '', 'DELETE'), err: SELF },
  { name: 'forbid create of normal pod status unbound', attributes: podRecord(unboundpod, undefined, unboundpod, 'status', 'CREATE'), err: UNEXPECTED },
  { name: 'forbid update of normal pod status unbound', pods: existingPods, attributes: podRecord(unboundpod, unboundpod, unboundpod, 'status', 'UPDATE'), err: SELF },
  { name: 'forbid delete of normal pod status unbound', pods: existingPods, attributes: podRecord(undefined, undefined, unboundpod, 'status', 'DELETE'), err: UNEXPECTED },
  { name: 'forbid create of eviction for normal pod unbound', pods: existingPods, attributes: evictionRecord(eviction('unboundpod'), unboundpod, 'CREATE'), err: SELF },
  { name: 'forbid update of eviction for normal pod unbound', pods: existingPods, attributes: evictionRecord(eviction('unboundpod'), unboundpod, 'UPDATE'), err: UNEXPECTED },
  { name: 'forbid delete of eviction for normal pod unbound', pods: existingPods, attributes: evictionRecord(eviction('unboundpod'), unboundpod, 'DELETE'), err: UNEXPECTED },
  { name: 'forbid create of unnamed eviction for normal unbound', pods: existingPods, attributes: evictionRecord(eviction(''), unboundpod, 'CREATE'), err: SELF },
  // Missing pod
  { name: 'forbid delete of unknown pod', attributes: podRecord(undefined, undefined, unboundpod, '', 'DELETE'), err: 'not found' },
  { name: 'forbid create of eviction for unknown pod', attributes: evictionRecord(eviction('mypod'), mypod, 'CREATE'), err: 'not found' },
  { name: 'forbid update of eviction for unknown pod', attributes: evictionRecord(eviction('mypod'), mypod, 'UPDATE'), err: UNEXPECTED },
  { name: 'forbid delete of eviction for unknown pod', attributes: evictionRecord(eviction('mypod'), mypod, 'DELETE'), err: UNEXPECTED },
  { name: 'forbid create of unnamed eviction for unknown pod', attributes: evictionRecord(eviction(''), mypod, 'CREATE'), err: 'not found' },
  // Eviction for unnamed pod
  { name: 'allow create of eviction for unnamed pod', pods: existingPods, attributes: evictionRecord(eviction('mypod'), unnamedpod, 'CREATE'), err: '' },
  { name: 'forbid update of eviction for unnamed pod', pods: existingPods, attributes: evictionRecord(eviction('mypod'), unnamedpod, 'UPDATE'), err: UNEXPECTED },
  { name: 'forbid delete of eviction for unnamed pod', pods: existingPods, attributes: evictionRecord(eviction('mypod'), unnamedpod, 'DELETE'), err: UNEXPECTED },
  { name: 'forbid create of unnamed eviction for unnamed pod', pods: existingPods, attributes: evictionRecord(eviction(''), unnamedpod, 'CREATE'), err: 'could not determine pod from request data' },
  // Resource pods
  { name: 'forbid create of pod referencing service account', attributes: podRecord(sapod, undefined, sapod, '', 'CREATE'), err: 'reference a service account' },
  { name: 'forbid create of pod referencing secret', attributes: podRecord(secretpod, undefined, secretpod, '', 'CREATE'), err: 'reference secrets' },
  { name: 'forbid create of pod referencing configmap', attributes: podRecord(configmappod, undefined, configmappod, '', 'CREATE'), err: 'reference configmaps' },
  { name: 'forbid create of pod referencing clustertrustbundle', attributes: podRecord(ctbpod, undefined, ctbpod, '', 'CREATE'), err: 'reference clustertrustbundles' },
  { name: 'forbid create of pod referencing persistentvolumeclaim', attributes: podRecord(pvcpod, undefined, pvcpod, '', 'CREATE'), err: 'reference persistentvolumeclaims' },
]

const nodeCases: Case[] = [
  // My node object
  { name: 'allow create of my node', attributes: nodeRecord(mynodeObj, undefined, 'mynode', '', 'CREATE'), err: '' },
  { name: 'allow create of my node with taints', attributes: nodeRecord(mynodeObjTaintA, undefined, 'mynode', '', 'CREATE'), err: '' },
  { name: 'allow create of my node with labels', attributes: nodeRecord(setAllowedLabels(mynodeObj, ''), undefined, 'mynode', '', 'CREATE'), err: '' },
  {
    name: 'forbid create of my node with forbidden labels',
    attributes: nodeRecord(setForbiddenLabels(mynodeObj, ''), undefined, 'mynode', '', 'CREATE'),
    err: 'is not allowed to set the following labels: foo.node-restriction.kubernetes.io/foo, node-restriction.kubernetes.io/foo, other.k8s.io/foo, other.kubernetes.io/foo',
  },
  { name: 'allow update of my node', attributes: nodeRecord(mynodeObj, mynodeObj, 'mynode', '', 'UPDATE'), err: '' },
  { name: 'allow delete of my node', attributes: nodeRecord(undefined, undefined, 'mynode', '', 'DELETE'), err: '' },
  { name: 'allow update of my node status', attributes: nodeRecord(mynodeObj, mynodeObj, 'mynode', 'status', 'UPDATE'), err: '' },
  { name: 'forbid create of my node with non-nil configSource', attributes: nodeRecord(mynodeObjConfigA, undefined, 'mynode', '', 'CREATE'), err: 'is not allowed to create pods with a non-nil configSource' },
  { name: 'forbid update of my node: nil configSource to new non-nil configSource', attributes: nodeRecord(mynodeObjConfigA, mynodeObj, 'mynode', '', 'UPDATE'), err: 'update configSource to a new non-nil configSource' },
  {
    name: 'forbid update of my node: non-nil configSource to new non-nil configSource',
    attributes: nodeRecord(mynodeObjConfigB, mynodeObjConfigA, 'mynode', '', 'UPDATE'),
    err: 'update configSource to a new non-nil configSource',
  },
  { name: 'allow update of my node: non-nil configSource unchanged', attributes: nodeRecord(mynodeObjConfigA, mynodeObjConfigA, 'mynode', '', 'UPDATE'), err: '' },
  { name: 'allow update of my node: non-nil configSource to nil configSource', attributes: nodeRecord(mynodeObj, mynodeObjConfigA, 'mynode', '', 'UPDATE'), err: '' },
  { name: 'allow update of my node: no change to taints', attributes: nodeRecord(mynodeObjTaintA, mynodeObjTaintA, 'mynode', '', 'UPDATE'), err: '' },
  { name: 'allow update of my node: add allowed labels', attributes: nodeRecord(setAllowedLabels(mynodeObj, ''), mynodeObj, 'mynode', '', 'UPDATE'), err: '' },
  { name: 'allow update of my node: remove allowed labels', attributes: nodeRecord(mynodeObj, setAllowedLabels(mynodeObj, ''), 'mynode', '', 'UPDATE'), err: '' },
  { name: 'allow update of my node: modify allowed labels', attributes: nodeRecord(setAllowedLabels(mynodeObj, 'b'), setAllowedLabels(mynodeObj, 'a'), 'mynode', '', 'UPDATE'), err: '' },
  { name: 'allow update of my node: no change to labels', attributes: nodeRecord(setAllLabels(mynodeObj, ''), setAllLabels(mynodeObj, ''), 'mynode', '', 'UPDATE'), err: '' },
  {
    name: 'allow update of my node: add allowed labels while forbidden labels exist unmodified',
    attributes: nodeRecord(setAllLabels(mynodeObj, ''), setForbiddenLabels(mynodeObj, ''), 'mynode', '', 'UPDATE'),
    err: '',
  },
  {
    name: 'allow update of my node: remove allowed labels while forbidden labels exist unmodified',
    attributes: nodeRecord(setForbiddenLabels(mynodeObj, ''), setAllLabels(mynodeObj, ''), 'mynode', '', 'UPDATE'),
    err: '',
  },
  { name: 'forbid update of my node: add taints', attributes: nodeRecord(mynodeObjTaintA, mynodeObj, 'mynode', '', 'UPDATE'), err: 'is not allowed to modify taints' },
  { name: 'forbid update of my node: remove taints', attributes: nodeRecord(mynodeObj, mynodeObjTaintA, 'mynode', '', 'UPDATE'), err: 'is not allowed to modify taints' },
  { name: 'forbid update of my node: change taints', attributes: nodeRecord(mynodeObjTaintA, mynodeObjTaintB, 'mynode', '', 'UPDATE'), err: 'is not allowed to modify taints' },
  {
    name: 'forbid update of my node: add labels',
    attributes: nodeRecord(setForbiddenLabels(mynodeObj, ''), mynodeObj, 'mynode', '', 'UPDATE'),
    err: 'is not allowed to modify labels: foo.node-restriction.kubernetes.io/foo, node-restriction.kubernetes.io/foo, other.k8s.io/foo, other.kubernetes.io/foo',
  },
  {
    name: 'forbid update of my node: remove labels',
    attributes: nodeRecord(mynodeObj, setForbiddenLabels(mynodeObj, ''), 'mynode', '', 'UPDATE'),
    err: 'is not allowed to modify labels: foo.node-restriction.kubernetes.io/foo, node-restriction.kubernetes.io/foo, other.k8s.io/foo, other.kubernetes.io/foo',
  },
  {
    name: 'forbid update of my node: change labels',
    attributes: nodeRecord(setForbiddenLabels(mynodeObj, 'new'), setForbiddenLabels(mynodeObj, 'old'), 'mynode', '', 'UPDATE'),
    err: 'is not allowed to modify labels: foo.node-restriction.kubernetes.io/foo, node-restriction.kubernetes.io/foo, other.k8s.io/foo, other.kubernetes.io/foo',
  },
  // Other node object
  { name: 'forbid create of other node', attributes: nodeRecord(othernodeObj, undefined, 'othernode', '', 'CREATE'), err: 'is not allowed to modify node' },
  { name: 'forbid create of other node pulling name from object', attributes: nodeRecord(othernodeObj, undefined, '', '', 'CREATE'), err: 'is not allowed to modify node' },
  { name: 'forbid update of other node', attributes: nodeRecord(othernodeObj, othernodeObj, 'othernode', '', 'UPDATE'), err: 'is not allowed to modify node' },
  { name: 'forbid delete of other node', attributes: nodeRecord(undefined, undefined, 'othernode', '', 'DELETE'), err: 'is not allowed to modify node' },
  { name: 'forbid update of other node status', attributes: nodeRecord(othernodeObj, othernodeObj, 'othernode', 'status', 'UPDATE'), err: 'is not allowed to modify node' },
]

const audienceStores = { pods: existingPods, gates: audienceGate }
const tokenCases: Case[] = [
  { name: 'forbid create of unbound token', attributes: tokenRecord(tokenRequest('', '', ['foo'])), err: 'not bound to a pod' },
  { name: 'forbid create of token bound to nonexistant pod', attributes: tokenRecord(tokenRequest('nopod', 'someuid', ['foo'])), err: 'not found' },
  { name: 'forbid create of token bound to pod without uid', pods: existingPods, attributes: tokenRecord(tokenRequest('mypod', '', ['foo'])), err: 'pod binding without a uid' },
  { name: 'forbid create of token bound to pod scheduled on another node', pods: existingPods, attributes: tokenRecord(tokenRequest('otherpod', 'pod-uid', ['foo'])), err: 'pod scheduled on a different node' },
  { name: 'allow create of token bound to pod scheduled this node', pods: existingPods, attributes: tokenRecord(tokenRequest('mypod', 'pod-uid', ['foo'])), err: '' },
  // Service accounts tests with token audience restrictions
  { name: 'allow create of token when audience in PSAT volume and ServiceAccountNodeAudienceRestriction is enabled, single audience', ...audienceStores, attributes: tokenRecord(tokenRequest('mysapod', 'pod-uid', ['foo'])), err: '' },
  {
    name: 'forbid create of token with multiple audiences in token request and ServiceAccountNodeAudienceRestriction is enabled',
    ...audienceStores,
    attributes: tokenRecord(tokenRequest('mysapod', 'pod-uid', ['foo', 'bar'])),
    err: 'node may only request 0 or 1 audiences',
  },
  {
    name: 'forbid create of token when audience not in pod spec and ServiceAccountNodeAudienceRestriction is enabled',
    ...audienceStores,
    attributes: tokenRecord(tokenRequest('mypod', 'pod-uid', ['foo'])),
    err: 'serviceaccounts "mysa" is forbidden: audience "foo" not found in pod spec volume',
  },
  {
    name: 'allow create of token when audience in pod --> csi --> driver --> tokenrequest with audience and ServiceAccountNodeAudienceRestriction is enabled',
    ...audienceStores,
    csiDrivers,
    attributes: tokenRecord(tokenRequest('mycsipod', 'pod-uid', ['foo'])),
    err: '',
  },
  {
    name: 'forbid create of token when audience in pod --> csi --> driver --> tokenrequest does not have audience and ServiceAccountNodeAudienceRestriction is enabled',
    ...audienceStores,
    csiDrivers,
    attributes: tokenRecord(tokenRequest('mycsipod', 'pod-uid', ['bar'])),
    err: 'audience "bar" not found in pod spec volume',
  },
  {
    name: 'forbid create of token when audience in pod --> csi --> driver --> tokenrequest with audience and ServiceAccountNodeAudienceRestriction is enabled, csidriver not found',
    ...audienceStores,
    attributes: tokenRecord(tokenRequest('mycsipod', 'pod-uid', ['foo'])),
    err: 'error validating audience "foo": csidriver.storage.k8s.io "com.example.csi.mydriver" not found',
  },
  {
    name: 'allow create of token when audience in pod --> pvc --> pv --> csi --> driver --> tokenrequest with audience and ServiceAccountNodeAudienceRestriction is enabled',
    ...audienceStores,
    csiDrivers,
    claims,
    volumes,
    attributes: tokenRecord(tokenRequest('mypvcpod', 'pod-uid', ['foo'])),
    err: '',
  },
  {
    name: 'forbid create of token when audience in pod --> pvc --> pv --> csi --> driver --> tokenrequest does not have audience and ServiceAccountNodeAudienceRestriction is enabled',
    ...audienceStores,
    csiDrivers,
    claims,
    volumes,
    attributes: tokenRecord(tokenRequest('mypvcpod', 'pod-uid', ['bar'])),
    err: 'audience "bar" not found in pod spec volume',
  },
  {
    name: 'forbid create of token when audience in pod --> pvc --> pv --> csi --> driver --> tokenrequest with audience and ServiceAccountNodeAudienceRestriction is enabled, pvc not found',
    ...audienceStores,
    csiDrivers,
    volumes,
    attributes: tokenRecord(tokenRequest('mypvcpod', 'pod-uid', ['foo'])),
    err: 'error validating audience "foo": persistentvolumeclaim "pvclaim" not found',
  },
  {
    name: 'forbid create of token when audience in pod --> pvc --> pv --> csi --> driver --> tokenrequest with audience and ServiceAccountNodeAudienceRestriction is enabled, pv not found',
    ...audienceStores,
    csiDrivers,
    claims,
    attributes: tokenRecord(tokenRequest('mypvcpod', 'pod-uid', ['foo'])),
    err: 'error validating audience "foo": persistentvolume "pvname" not found',
  },
  {
    name: 'allow create of token when audience in pod --> ephemeral --> pvc --> pv --> csi --> driver --> tokenrequest with audience and ServiceAccountNodeAudienceRestriction is enabled',
    ...audienceStores,
    csiDrivers,
    claims,
    volumes,
    attributes: tokenRecord(tokenRequest('myephemeralpod', 'pod-uid', ['foo'])),
    err: '',
  },
  {
    name: 'forbid create of token when audience in pod --> ephemeral --> pvc --> pv --> csi --> driver --> tokenrequest does not have audience and ServiceAccountNodeAudienceRestriction is enabled',
    ...audienceStores,
    csiDrivers,
    claims,
    volumes,
    attributes: tokenRecord(tokenRequest('myephemeralpod', 'pod-uid', ['bar'])),
    err: 'audience "bar" not found in pod spec volume',
  },
  {
    name: 'allow create of token when ServiceAccountNodeAudienceRestriction is disabled, pvc not found should not be checked',
    ...audienceStores,
    csiDrivers,
    attributes: tokenRecord(tokenRequest('mypvcandcsipod', 'pod-uid', ['foo'])),
    err: '',
  },
  {
    name: 'allow create of token when audience in pod --> csi --> driver --> tokenrequest with audience and ServiceAccountNodeAudienceRestriction is enabled, pv not found',
    ...audienceStores,
    csiDrivers,
    claims,
    attributes: tokenRecord(tokenRequest('mypvcandcsipod', 'pod-uid', ['foo'])),
    err: '',
  },
  {
    name: 'allow create of token when ServiceAccountNodeAudienceRestriction is disabled, pv not found should not be checked',
    pods: existingPods,
    gates: { ServiceAccountNodeAudienceRestriction: false },
    csiDrivers,
    claims,
    attributes: tokenRecord(tokenRequest('mypvcandcsipod', 'pod-uid', ['foo'])),
    err: '',
  },
  {
    name: 'allow create of token when ServiceAccountNodeAudienceRestriction is disabled, csidriver not found should not be checked',
    pods: existingPods,
    gates: { ServiceAccountNodeAudienceRestriction: false },
    attributes: tokenRecord(tokenRequest('mycsipod', 'pod-uid', ['foo'])),
    err: '',
  },
  {
    name: 'intree pv to csi, allow create of token when audience in pod --> csi --> driver --> tokenrequest with audience, ServiceAccountNodeAudienceRestriction=true',
    ...audienceStores,
    csiDrivers,
    claims,
    volumes,
    attributes: tokenRecord(tokenRequest('myintreepvtocsipod', 'pod-uid', ['foo'])),
    err: '',
  },
  {
    name: 'intree inline vol to csi, allow create of token when audience in pod --> csi --> driver --> tokenrequest with audience, ServiceAccountNodeAudienceRestriction=true',
    ...audienceStores,
    csiDrivers,
    attributes: tokenRecord(tokenRequest('myintreeinlinevoltocsipod', 'pod-uid', ['foo'])),
    err: '',
  },
]

const otherCases: Case[] = [
  // Unrelated objects
  { name: 'allow create of unrelated object', pods: existingPods, attributes: record({ metadata: {} }, undefined, CONFIGMAP, 'myns', 'mycm', '', 'CREATE'), err: '' },
  { name: 'allow update of unrelated object', pods: existingPods, attributes: record({ metadata: {} }, { metadata: {} }, CONFIGMAP, 'myns', 'mycm', '', 'UPDATE'), err: '' },
  { name: 'allow delete of unrelated object', pods: existingPods, attributes: record(undefined, undefined, CONFIGMAP, 'myns', 'mycm', '', 'DELETE'), err: '' },
  // Unrelated user
  { name: 'allow unrelated user creating a normal pod unbound', attributes: podRecord(unboundpod, undefined, unboundpod, '', 'CREATE', bob), err: '' },
  { name: 'allow unrelated user update of normal pod unbound', pods: existingPods, attributes: podRecord(unboundpod, unboundpod, unboundpod, '', 'UPDATE', bob), err: '' },
  { name: 'allow unrelated user delete of normal pod unbound', pods: existingPods, attributes: podRecord(undefined, undefined, unboundpod, '', 'DELETE', bob), err: '' },
  { name: 'allow unrelated user create of normal pod status unbound', attributes: podRecord(unboundpod, undefined, unboundpod, 'status', 'CREATE', bob), err: '' },
  { name: 'allow unrelated user update of normal pod status unbound', pods: existingPods, attributes: podRecord(unboundpod, unboundpod, unboundpod, 'status', 'UPDATE', bob), err: '' },
  { name: 'allow unrelated user delete of normal pod status unbound', pods: existingPods, attributes: podRecord(undefined, undefined, unboundpod, 'status', 'DELETE', bob), err: '' },
  // Node leases
  { name: 'disallowed create lease in namespace other than kube-node-lease - feature enabled', attributes: record(lease('mynode', 'foo'), undefined, LEASE, 'foo', 'mynode', '', 'CREATE'), err: 'forbidden: ' },
  { name: 'disallowed update lease in namespace other than kube-node-lease - feature enabled', attributes: record(lease('mynode', 'foo'), lease('mynode', 'foo'), LEASE, 'foo', 'mynode', '', 'UPDATE'), err: 'forbidden: ' },
  { name: 'disallowed delete lease in namespace other than kube-node-lease - feature enabled', attributes: record(undefined, undefined, LEASE, 'foo', 'mynode', '', 'DELETE'), err: 'forbidden: ' },
  { name: "disallowed create another node's lease - feature enabled", attributes: record(lease('foo', 'kube-node-lease'), undefined, LEASE, 'kube-node-lease', 'foo', '', 'CREATE'), err: 'forbidden: ' },
  {
    name: "disallowed update another node's lease - feature enabled",
    attributes: record(lease('foo', 'kube-node-lease'), lease('foo', 'kube-node-lease'), LEASE, 'kube-node-lease', 'foo', '', 'UPDATE'),
    err: 'forbidden: ',
  },
  { name: "disallowed delete another node's lease - feature enabled", attributes: record(undefined, undefined, LEASE, 'kube-node-lease', 'foo', '', 'DELETE'), err: 'forbidden: ' },
  { name: 'allowed create node lease - feature enabled', attributes: record(lease('mynode', 'kube-node-lease'), undefined, LEASE, 'kube-node-lease', 'mynode', '', 'CREATE'), err: '' },
  {
    name: 'allowed update node lease - feature enabled',
    attributes: record(lease('mynode', 'kube-node-lease'), lease('mynode', 'kube-node-lease'), LEASE, 'kube-node-lease', 'mynode', '', 'UPDATE'),
    err: '',
  },
  { name: 'allowed delete node lease - feature enabled', attributes: record(undefined, undefined, LEASE, 'kube-node-lease', 'mynode', '', 'DELETE'), err: '' },
  // CSINode
  { name: "disallowed create another node's CSINode", attributes: record(csiNode('foo'), undefined, CSINODE, '', 'foo', '', 'CREATE'), err: 'forbidden: ' },
  { name: "disallowed update another node's CSINode", attributes: record(csiNode('foo'), csiNode('foo'), CSINODE, '', 'foo', '', 'UPDATE'), err: 'forbidden: ' },
  { name: "disallowed delete another node's CSINode", attributes: record(undefined, undefined, CSINODE, '', 'foo', '', 'DELETE'), err: 'forbidden: ' },
  { name: 'allowed create node CSINode', attributes: record(csiNode('mynode'), undefined, CSINODE, '', 'mynode', '', 'CREATE'), err: '' },
  { name: 'allowed update node CSINode', attributes: record(csiNode('mynode'), csiNode('mynode'), CSINODE, '', 'mynode', '', 'UPDATE'), err: '' },
  { name: 'allowed delete node CSINode', attributes: record(undefined, undefined, CSINODE, '', 'mynode', '', 'DELETE'), err: '' },
]

describe('admission: NodeRestriction', () => {
  describe('Test_nodePlugin_Admit', () => {
    for (const c of [...podCases, ...nodeCases, ...tokenCases, ...otherCases]) it(c.name, () => run(c))
  })

  describe('CSRs (Test_nodePlugin_Admit)', () => {
    const requests = new Map<string, string>()
    before(async () => {
      const rsa = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 }
      const keys = (await webcrypto.subtle.generateKey(rsa, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
      for (const cn of ['system:node:mynode', 'system:node:othernode', 'some-other-identity']) {
        const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: `CN=${cn}`, keys, signingAlgorithm: rsa }, webcrypto)
        requests.set(cn, Buffer.from(csr.toString('pem')).toString('base64'))
      }
    })
    const csrAttributes = (cn: string, signerName: string, valid: boolean) => () =>
      record(
        { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: {}, spec: { signerName, request: valid ? requests.get(cn)! : Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\n-----END CERTIFICATE REQUEST-----').toString('base64') } },
        undefined,
        CSR,
        '',
        '',
        '',
        'CREATE',
      )
    const cases: Case[] = [
      { name: 'allowed CSR create correct node serving', attributes: csrAttributes('system:node:mynode', 'kubernetes.io/kubelet-serving', true), err: '' },
      { name: 'allowed CSR create correct node client', attributes: csrAttributes('system:node:mynode', 'kubernetes.io/kube-apiserver-client-kubelet', true), err: '' },
      { name: 'allowed CSR create non-node CSR', attributes: csrAttributes('some-other-identity', 'kubernetes.io/kube-apiserver-client', true), err: '' },
      { name: 'deny CSR create incorrect node', attributes: csrAttributes('system:node:othernode', 'kubernetes.io/kubelet-serving', true), err: 'forbidden: can only create a node CSR with CN=system:node:mynode' },
      {
        name: 'allow CSR create incorrect node with feature gate disabled',
        gates: { AllowInsecureKubeletCertificateSigningRequests: true },
        attributes: csrAttributes('system:node:othernode', 'kubernetes.io/kubelet-serving', true),
        err: '',
      },
      { name: 'deny CSR create invalid', attributes: csrAttributes('system:node:mynode', 'kubernetes.io/kubelet-serving', false), err: 'unable to parse csr: asn1: syntax error: sequence truncated' },
    ]
    for (const c of cases) it(c.name, () => run(c))
  })

  describe('Test_nodePlugin_Admit_OwnerReference', () => {
    const validOwner = { apiVersion: 'v1', kind: 'Node', name: 'mynode', uid: 'mynode-uid', controller: true }
    const unexpectedNode = [nodeObj('mynode', {}, 'mynode-unexpected-uid')]
    const cases: { name: string; owners?: Record<string, unknown>[]; nodes?: KubeObject[]; expectErr: string }[] = [
      { name: 'no owner', expectErr: 'pods "test" is forbidden: node "mynode" can only create pods with an owner reference set to itself' },
      { name: 'valid owner', owners: [validOwner], expectErr: '' },
      { name: 'duplicate owner', owners: [validOwner, validOwner], expectErr: 'can only create pods with a single owner reference set to itself' },
      { name: 'invalid name', owners: [{ ...validOwner, name: 'other' }], expectErr: 'can only create pods with an owner reference set to itself' },
      { name: 'invalid UID', owners: [validOwner], nodes: unexpectedNode, expectErr: 'UID mismatch' },
      { name: 'node not found', owners: [validOwner], nodes: [], expectErr: 'not found' },
      { name: 'invalid API version', owners: [{ ...validOwner, apiVersion: 'v2' }], expectErr: 'can only create pods with an owner reference set to itself' },
      { name: 'invalid kind', owners: [{ ...validOwner, kind: 'Pod' }], expectErr: 'can only create pods with an owner reference set to itself' },
      { name: 'nil controller', owners: [{ ...validOwner, controller: undefined }], expectErr: 'can only create pods with a controller owner reference set to itself' },
      { name: 'false controller', owners: [{ ...validOwner, controller: false }], expectErr: 'can only create pods with a controller owner reference set to itself' },
      { name: 'invalid blockOwnerDeletion', owners: [{ ...validOwner, blockOwnerDeletion: true }], expectErr: 'must not set blockOwnerDeletion on an owner reference' },
    ]
    for (const c of cases) {
      it(c.name, () => {
        const pod = makeTestPod('ns', 'test', 'mynode', true)
        if (c.owners) pod.metadata.ownerReferences = c.owners
        else delete pod.metadata.ownerReferences
        return run({ name: c.name, ...(c.nodes ? { nodes: c.nodes } : {}), attributes: podRecord(pod, undefined, pod, '', 'CREATE'), err: c.expectErr })
      })
    }

    it('answers the reference\'s whole messages and codes: 403 Forbidden, and the 404 of a missing node as it is', async () => {
      const pod = makeTestPod('ns', 'test', 'mynode', true)
      const plugin = (nodes: KubeObject[]) => new NodeRestriction({ stores: () => fakeStores({ nodes }), config: {}, log: () => {} })
      await assert.rejects(plugin(unexpectedNode).admit(podRecord(pod, undefined, pod, '', 'CREATE')), (err: unknown) => {
        return err instanceof ApiError && err.code === 403 && err.status.reason === 'Forbidden' && err.message === 'pods "test" is forbidden: node mynode UID mismatch: expected mynode-uid got mynode-unexpected-uid'
      })
      await assert.rejects(plugin([]).admit(podRecord(pod, undefined, pod, '', 'CREATE')), (err: unknown) => err instanceof ApiError && err.code === 404 && err.message === 'nodes "mynode" not found')
    })
  })

  describe('Test_getModifiedLabels', () => {
    const cases: { name: string; a?: Record<string, string>; b?: Record<string, string>; want: string[] }[] = [
      { name: 'empty', want: [] },
      { name: 'no change', a: { x: '1', y: '2', z: '3' }, b: { x: '1', y: '2', z: '3' }, want: [] },
      { name: 'added', a: {}, b: { a: '0' }, want: ['a'] },
      { name: 'removed', a: { z: '3' }, b: {}, want: ['z'] },
      { name: 'changed', a: { z: '3' }, b: { z: '4' }, want: ['z'] },
      { name: 'added empty', a: {}, b: { a: '' }, want: ['a'] },
      { name: 'removed empty', a: { z: '' }, b: {}, want: ['z'] },
      { name: 'changed to empty', a: { z: '3' }, b: { z: '' }, want: ['z'] },
      { name: 'changed from empty', a: { z: '' }, b: { z: '3' }, want: ['z'] },
      { name: 'added, removed, and changed', a: { a: '1', b: '2' }, b: { a: '2', c: '3' }, want: ['a', 'b', 'c'] },
    ]
    for (const c of cases) it(c.name, () => assert.deepEqual([...modifiedLabels(c.a, c.b)].sort(), c.want))
  })

  describe('TestAdmitPVCStatus', () => {
    function makeTestPVC(condition: string, allocated: string, resizeStatus?: string): KubeObject {
      return {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {},
        spec: { volumeName: 'volume1', resources: { requests: { storage: '10G' } } },
        status: {
          capacity: { storage: allocated },
          phase: 'Bound',
          allocatedResources: { storage: allocated },
          ...(resizeStatus ? { allocatedResourceStatuses: { storage: resizeStatus } } : {}),
          ...(condition ? { conditions: [{ type: condition, status: 'True' }] } : {}),
        },
      }
    }
    const cases: { name: string; subresource: string; newObj: KubeObject; oldObj: KubeObject; recovery: boolean; expectError: string }[] = [
      { name: 'should not allow full pvc update from nodes', oldObj: makeTestPVC('Resizing', '10G'), subresource: '', newObj: makeTestPVC('', '10G'), recovery: false, expectError: 'is forbidden: may only update PVC status' },
      { name: 'should allow capacity and condition updates, if expansion is enabled', oldObj: makeTestPVC('Resizing', '10G'), subresource: 'status', newObj: makeTestPVC('FileSystemResizePending', '10G'), recovery: false, expectError: '' },
      {
        name: 'should not allow updates to allocatedResources with just expansion enabled',
        oldObj: makeTestPVC('Resizing', '10G'),
        subresource: 'status',
        newObj: makeTestPVC('FileSystemResizePending', '15G'),
        recovery: false,
        expectError: 'is not allowed to update fields other than',
      },
      {
        name: 'should allow updates to allocatedResources with expansion and recovery enabled',
        oldObj: makeTestPVC('Resizing', '10G'),
        subresource: 'status',
        newObj: makeTestPVC('FileSystemResizePending', '15G'),
        recovery: true,
        expectError: '',
      },
      {
        name: 'should allow updates to resizeStatus with expansion and recovery enabled',
        oldObj: makeTestPVC('Resizing', '10G'),
        subresource: 'status',
        newObj: makeTestPVC('Resizing', '10G', 'NodeResizeInfeasible'),
        recovery: true,
        expectError: '',
      },
    ]
    for (const c of cases) {
      it(c.name, () =>
        run({ name: c.name, gates: { RecoverVolumeExpansionFailure: c.recovery }, attributes: record(c.newObj, c.oldObj, PVC, 'default', 'foo', c.subresource, 'UPDATE'), err: c.expectError }),
      )
    }
  })

  describe('TestAdmitResourceSlice', () => {
    const slice = (nodeName: string): KubeObject => ({ apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name: 'something' }, spec: { nodeName } })
    const createErr = 'can only create ResourceSlice with the same NodeName as the requesting node'
    const deleteErr = 'can only delete ResourceSlice with the same NodeName as the requesting node'
    const cases: [string, AdmissionOperation, KubeObject | undefined, KubeObject | undefined, string][] = [
      ['create allowed', 'CREATE', slice('mynode'), undefined, ''],
      ['create disallowed', 'CREATE', slice('mynode-other'), undefined, createErr],
      ['create disallowed, no node name', 'CREATE', slice(''), undefined, createErr],
      ['update allowed, same node', 'UPDATE', slice('mynode'), undefined, ''],
      ['update allowed, other node', 'UPDATE', slice('mynode-other'), undefined, ''],
      ['update allowed, no node', 'UPDATE', slice(''), undefined, ''],
      ['delete allowed', 'DELETE', undefined, slice('mynode'), ''],
      ['delete disallowed', 'DELETE', undefined, slice('mynode-other'), deleteErr],
      ['delete disallowed, no node name', 'DELETE', undefined, slice(''), deleteErr],
    ]
    for (const [name, operation, obj, oldObj, err] of cases) it(name, () => run({ name, attributes: record(obj, oldObj, SLICE, '', 'foo', '', operation), err }))
  })

  describe('beyond the reference table', () => {
    it('refuses a node user it cannot name, and leaves a system:nodes member without the prefix alone', async () => {
      await run({ name: 'unnamed', attributes: record(mymirrorpod, undefined, POD, 'ns', 'mymirrorpod', '', 'CREATE', { name: 'system:node:', groups: ['system:nodes'] }), err: 'pods "mymirrorpod" is forbidden: could not determine node from user "system:node:"' })
      await run({ name: 'not a node', attributes: record(mypod, undefined, POD, 'ns', 'mypod', '', 'CREATE', { name: 'jane', groups: ['system:nodes'] }), err: '' })
      await run({ name: 'no group', attributes: record(mypod, undefined, POD, 'ns', 'mypod', '', 'CREATE', { name: 'system:node:mynode', groups: [] }), err: '' })
    })

    it('refuses the other pod subresources (resize, ephemeralcontainers, binding) and claims but their status', async () => {
      for (const sub of ['resize', 'ephemeralcontainers', 'binding']) {
        await run({ name: sub, pods: existingPods, attributes: podRecord(mypod, mypod, mypod, sub, 'UPDATE'), err: `pods "mypod" is forbidden: unexpected pod subresource "${sub}", only 'status' and 'eviction' are allowed` })
      }
      await run({ name: 'pvc', attributes: record({ metadata: {} }, undefined, PVC, 'ns', 'c', '', 'CREATE'), err: 'persistentvolumeclaims "c" is forbidden: may only update PVC status' })
    })

    it("refuses a change of its own Node's ownerReferences (the reference's current admitNode)", async () => {
      const owned = (uid: string): KubeObject => ({ ...structuredClone(mynodeObj), metadata: { ...mynodeObj.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid }] } })
      await run({ name: 'add', attributes: nodeRecord(owned('a'), mynodeObj, 'mynode', '', 'UPDATE'), err: 'nodes "mynode" is forbidden: node "mynode" is not allowed to modify ownerReferences' })
      await run({ name: 'change', attributes: nodeRecord(owned('b'), owned('a'), 'mynode', 'status', 'UPDATE'), err: 'node "mynode" is not allowed to modify ownerReferences' })
      await run({ name: 'keep', attributes: nodeRecord(owned('a'), owned('a'), 'mynode', '', 'UPDATE'), err: '' })
    })

    it('refuses a change of resource claim statuses through pod status', async () => {
      const withClaims = (claim: string | null) => ({ ...structuredClone(mypod), status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: claim }] } })
      await run({ name: 'claims', attributes: podRecord(withClaims('b'), withClaims('a'), mypod, 'status', 'UPDATE'), err: 'node "mynode" cannot update resource claim statues' })
      await run({ name: 'same claims', attributes: podRecord(withClaims('a'), withClaims('a'), mypod, 'status', 'UPDATE'), err: '' })
    })

    it('lets a node authorized for the audience request it (request-serviceaccounts-token-audience)', async () => {
      const asked: string[] = []
      const authorizer: Authorizer = {
        authorize: (a) => {
          asked.push(`${a.user.name} ${a.verb} ${a.apiGroup}/${a.resource} ${a.namespace}/${a.name}`)
          return { decision: a.resource === 'foo' ? 'allow' : 'noOpinion' }
        },
      }
      const plugin = new NodeRestriction({ stores: () => fakeStores({ pods: existingPods }), config: {}, log: () => {}, authorizer })
      await plugin.admit(tokenRecord(tokenRequest('mypod', 'pod-uid', ['foo'])))
      await assert.rejects(plugin.admit(tokenRecord(tokenRequest('mypod', 'pod-uid', ['bar']))), (err: unknown) => {
        return err instanceof ApiError && err.message === 'serviceaccounts "mysa" is forbidden: audience "bar" not found in pod spec volume, system:node:mynode is not authorized to request tokens for this audience'
      })
      assert.deepEqual(asked, ['system:node:mynode request-serviceaccounts-token-audience /foo ns/mysa', 'system:node:mynode request-serviceaccounts-token-audience /bar ns/mysa'])
    })
  })
})
