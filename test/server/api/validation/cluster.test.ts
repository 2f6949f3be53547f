/**
 * Namespaces, nodes, PersistentVolumes and claims, limit ranges, quotas, endpoints, replication
 * controllers, pod templates, events, service accounts (pkg/apis/core/validation): strings
 * written from the reference's source.
 */
import assert from 'node:assert/strict'
import { type Case, invalidCreates, strategyOf, updateAnswer, validCreates } from './support.js'

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
const core = (resource: string) => () => strategyOf('', 'v1', resource)

describe('validation: core/v1 Namespace (ValidateNamespace)', () => {
  const ns = (name: string, extra: Record<string, unknown> = {}) => ({ metadata: { name }, ...extra })
  const cases: Case[] = [
    { name: 'an upper-case name', object: ns('Team'), message: `Namespace "Team" is invalid: metadata.name: Invalid value: "Team": ${LABEL_MSG}` },
    { name: 'a dotted name', object: ns('a.b'), message: 'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots' },
    {
      // SetDefaults_Namespace copies the name into the kubernetes.io/metadata.name label, which is then too long as well.
      name: 'a 64-character name (its name label too)',
      object: ns('a'.repeat(64)),
      message: `Namespace "${'a'.repeat(64)}" is invalid: [metadata.name: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters, metadata.labels: Invalid value: "${'a'.repeat(64)}": must be no more than 63 bytes]`,
    },
    {
      name: 'a spec finalizer that is not standard',
      object: ns('team', { spec: { finalizers: ['custom'] } }),
      message: 'Namespace "team" is invalid: spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    },
    {
      name: 'the orphan and foregroundDeletion finalizers together',
      object: { metadata: { name: 'team', finalizers: ['orphan', 'foregroundDeletion'] } },
      message: 'Namespace "team" is invalid: metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
    },
  ]
  invalidCreates(core('namespaces'), cases)
  validCreates(core('namespaces'), [['a plain namespace', ns('team', { metadata: { name: 'team', labels: { env: 'dev' } } })]])
  it('status update: Terminating only with a deletionTimestamp', () => {
    const got = updateAnswer(core('namespaces')(), ns('team'), (o) => (o.status = { phase: 'Terminating' }), 'status')
    assert.equal(got?.message, "Namespace \"team\" is invalid: status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty")
  })
})

describe('validation: core/v1 PersistentVolumeClaim and PersistentVolume', () => {
  const pvc = (spec: Record<string, unknown>) => ({ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec } })
  const claimCases: Case[] = [
    { name: 'no access modes', object: pvc({ accessModes: [] }), message: 'PersistentVolumeClaim "data" is invalid: spec.accessModes: Required value: at least 1 access mode is required' },
    {
      name: 'an unknown access mode',
      object: pvc({ accessModes: ['ReadSometimes'] }),
      message: 'PersistentVolumeClaim "data" is invalid: spec.accessModes: Unsupported value: "ReadSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    },
    { name: 'no storage request', object: pvc({ resources: { requests: {} } }), message: 'PersistentVolumeClaim "data" is invalid: spec.resources[storage]: Required value' },
    { name: 'a zero storage request', object: pvc({ resources: { requests: { storage: '0' } } }), message: 'PersistentVolumeClaim "data" is invalid: spec.resources[storage]: Invalid value: "0": must be greater than zero' },
    {
      name: 'ReadWriteOncePod with another mode',
      object: pvc({ accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'] }),
      message: 'PersistentVolumeClaim "data" is invalid: spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes',
    },
    { name: 'an unknown volume mode', object: pvc({ volumeMode: 'Raw' }), message: 'PersistentVolumeClaim "data" is invalid: spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"' },
  ]
  invalidCreates(core('persistentvolumeclaims'), claimCases)
  validCreates(core('persistentvolumeclaims'), [['a claim', pvc({ storageClassName: 'standard' })]])
  it('update: a claim spec is immutable but for its storage request', () => {
    const got = updateAnswer(core('persistentvolumeclaims')(), pvc({}), (o) => ((o.spec as { accessModes: string[] }).accessModes = ['ReadWriteMany']))
    assert.ok(got?.message.startsWith('PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'), got?.message)
  })

  const pv = (spec: Record<string, unknown>) => ({ metadata: { name: 'pv1' }, spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, hostPath: { path: '/data' }, ...spec } })
  const volumeCases: Case[] = [
    { name: 'no volume source', object: { metadata: { name: 'pv1' }, spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } }, message: 'PersistentVolume "pv1" is invalid: spec: Required value: must specify a volume type' },
    {
      name: 'an unknown reclaim policy',
      object: pv({ persistentVolumeReclaimPolicy: 'Keep' }),
      message: 'PersistentVolume "pv1" is invalid: spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"',
    },
    { name: 'a local volume without node affinity', object: { metadata: { name: 'pv1' }, spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, local: { path: '/mnt' } } }, message: 'PersistentVolume "pv1" is invalid: spec.nodeAffinity: Required value: Local volume requires node affinity' },
  ]
  invalidCreates(core('persistentvolumes'), volumeCases)
  validCreates(core('persistentvolumes'), [['a hostPath volume', pv({})]])
})

describe('validation: core/v1 LimitRange, ResourceQuota, Endpoints, Node', () => {
  invalidCreates(core('limitranges'), [
    {
      name: 'min above max',
      object: { metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }] } },
      message: 'LimitRange "lr" is invalid: spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
    },
    {
      name: 'a default on a Pod limit',
      object: { metadata: { name: 'lr' }, spec: { limits: [{ type: 'Pod', default: { cpu: '1' } }] } },
      message: "LimitRange \"lr\" is invalid: spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
    },
  ])
  invalidCreates(core('resourcequotas'), [
    {
      name: 'a fractional pod count',
      object: { metadata: { name: 'q' }, spec: { hard: { pods: '1500m' } } },
      message: 'ResourceQuota "q" is invalid: spec.hard[pods]: Invalid value: "1500m": must be an integer',
    },
    {
      name: 'an unknown resource without a domain',
      object: { metadata: { name: 'q' }, spec: { hard: { widgets: '1' } } },
      // ValidateResourceQuotaResourceName appends the quota rule to validateResourceName's.
      message:
        'ResourceQuota "q" is invalid: [spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified, spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota]',
    },
  ])
  invalidCreates(core('endpoints'), [
    { name: 'a subset without addresses', object: { metadata: { name: 'ep' }, subsets: [{ ports: [{ port: 80 }] }] }, message: 'Endpoints "ep" is invalid: subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`' },
    {
      name: 'a link-local address',
      object: { metadata: { name: 'ep' }, subsets: [{ addresses: [{ ip: '169.254.1.1' }], ports: [{ port: 80 }] }] },
      message: 'Endpoints "ep" is invalid: subsets[0].addresses[0].ip: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
    },
  ])
  invalidCreates(core('nodes'), [
    {
      name: 'a taint with an unknown effect',
      object: { metadata: { name: 'n1' }, spec: { taints: [{ key: 'k', effect: 'Sometimes' }] } },
      message: 'Node "n1" is invalid: metadata.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    },
  ])
})

describe('validation: core/v1 ReplicationController and PodTemplate', () => {
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }
  invalidCreates(core('replicationcontrollers'), [
    {
      name: 'a selector that does not match the template (the labels printed as JSON)',
      object: { metadata: { name: 'rc' }, spec: { selector: { app: 'other' }, template } },
      message: 'ReplicationController "rc" is invalid: spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    },
    { name: 'negative replicas', object: { metadata: { name: 'rc' }, spec: { replicas: -1, template } }, message: 'ReplicationController "rc" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0' },
    {
      name: 'a template restart policy other than Always',
      object: { metadata: { name: 'rc' }, spec: { template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } } } },
      message: 'ReplicationController "rc" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    },
  ])
  invalidCreates(core('podtemplates'), [
    {
      name: 'a template label that is invalid (reported at template.labels)',
      object: { metadata: { name: 'pt' }, template: { metadata: { labels: { app: '-x' } }, spec: template.spec } },
      message:
        "PodTemplate \"pt\" is invalid: template.labels: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    },
  ])
  validCreates(core('replicationcontrollers'), [['a replication controller', { metadata: { name: 'rc' }, spec: { replicas: 2, template } }]])
})

describe('validation: core/v1 Event and ServiceAccount', () => {
  invalidCreates(core('events'), [
    {
      name: 'an involved object in another namespace',
      object: { metadata: { name: 'e1', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' }, reason: 'R', message: 'm' },
      message: 'Event "e1" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    },
  ])
  validCreates(core('events'), [['a core event', { metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Started', message: 'ok' }]])
  invalidCreates(core('serviceaccounts'), [
    {
      name: 'a name that is not a DNS subdomain',
      object: { metadata: { name: 'Robot' } },
      message:
        "ServiceAccount \"Robot\" is invalid: metadata.name: Invalid value: \"Robot\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    },
  ])
})
