/**
 * More invalid objects of the smaller core kinds (pkg/apis/core/validation), so that every
 * kind has at least ten; strings written from the reference's source.
 */
import { type Case, invalidCreates, strategyOf } from './support.js'

const core = (resource: string) => () => strategyOf('', 'v1', resource)
const QUALIFIED =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

/** Metadata rules every kind shares, for a kind and a valid object of it. */
function metadataCases(kind: string, valid: Record<string, unknown>, name: string): Case[] {
  const meta = (m: Record<string, unknown>) => ({ ...valid, metadata: { ...(valid.metadata as object), ...m } })
  return [
    { name: 'a label key with a space', object: meta({ labels: { 'a b': 'x' } }), message: `${kind} "${name}" is invalid: metadata.labels: Invalid value: "a b": ${QUALIFIED}` },
    { name: 'an empty label key prefix', object: meta({ labels: { '/a': 'x' } }), message: `${kind} "${name}" is invalid: metadata.labels: Invalid value: "/a": prefix part must be non-empty` },
    { name: 'a finalizer with a bad domain', object: meta({ finalizers: ['Example.com/x'] }), message: `${kind} "${name}" is invalid: metadata.finalizers: Invalid value: "Example.com/x": prefix part ${SUBDOMAIN}` },
    {
      name: 'an owner reference without apiVersion, kind and name',
      object: meta({ ownerReferences: [{ uid: '1' }] }),
      message: `${kind} "${name}" is invalid: [metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty, metadata.ownerReferences.kind: Invalid value: "": must not be empty, metadata.ownerReferences.name: Invalid value: "": must not be empty]`,
    },
    {
      name: 'an Event as owner (the reference printed as JSON)',
      object: meta({ ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: '1' }] }),
      message: `${kind} "${name}" is invalid: metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"1"}: /v1, Kind=Event is disallowed from being an owner`,
    },
    {
      name: 'a managedFields entry with a bad fieldsType',
      object: meta({ managedFields: [{ manager: 'm', operation: 'Update', fieldsType: 'FieldsV2' }] }),
      message: `${kind} "${name}" is invalid: metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be \`FieldsV1\``,
    },
  ]
}

describe('validation: metadata of the smaller core kinds', () => {
  invalidCreates(core('serviceaccounts'), [
    ...metadataCases('ServiceAccount', { metadata: { name: 'robot' } }, 'robot'),
    { name: 'a name with a slash', object: { metadata: { name: 'a/b' } }, message: `ServiceAccount "a/b" is invalid: metadata.name: Invalid value: "a/b": ${SUBDOMAIN}` },
    { name: 'a name of 254 characters', object: { metadata: { name: 'a'.repeat(254) } }, message: `ServiceAccount "${'a'.repeat(254)}" is invalid: metadata.name: Invalid value: "${'a'.repeat(254)}": must be no more than 253 characters` },
    { name: 'a negative generation', object: { metadata: { name: 'robot', generation: -1 } }, message: 'ServiceAccount "robot" is invalid: metadata.generation: Invalid value: -1: must be greater than or equal to 0' },
  ])
  invalidCreates(core('namespaces'), metadataCases('Namespace', { metadata: { name: 'team' } }, 'team'))
  invalidCreates(core('persistentvolumes'), [
    ...metadataCases('PersistentVolume', { metadata: { name: 'pv1' }, spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, hostPath: { path: '/data' } } }, 'pv1'),
    {
      name: 'a capacity other than storage',
      object: { metadata: { name: 'pv1' }, spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi', cpu: '1' }, hostPath: { path: '/data' } } },
      message: 'PersistentVolume "pv1" is invalid: spec.capacity: Unsupported value: {"cpu":"1","storage":"1Gi"}: supported values: "storage"',
    },
    {
      name: 'a hostPath with ..',
      object: { metadata: { name: 'pv1' }, spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, hostPath: { path: '/a/../b' } } },
      message: "PersistentVolume \"pv1\" is invalid: spec.hostPath.path: Invalid value: \"/a/../b\": must not contain '..'",
    },
  ])
  invalidCreates(core('limitranges'), [
    ...metadataCases('LimitRange', { metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } }, 'lr'),
    { name: 'an unknown limit type', object: { metadata: { name: 'lr' }, spec: { limits: [{ type: 'Job' }] } }, message: 'LimitRange "lr" is invalid: spec.limits[0].type: Invalid value: "Job": must be a standard limit type or fully qualified' },
    {
      name: 'a PVC limit without storage bounds',
      object: { metadata: { name: 'lr' }, spec: { limits: [{ type: 'PersistentVolumeClaim' }] } },
      message: 'LimitRange "lr" is invalid: spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided',
    },
  ])
  invalidCreates(core('resourcequotas'), [
    ...metadataCases('ResourceQuota', { metadata: { name: 'q' }, spec: { hard: { pods: '10' } } }, 'q'),
    { name: 'conflicting scopes', object: { metadata: { name: 'q' }, spec: { hard: { pods: '1' }, scopes: ['BestEffort', 'NotBestEffort'] } }, message: 'ResourceQuota "q" is invalid: spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: conflicting scopes' },
    { name: 'a negative hard limit', object: { metadata: { name: 'q' }, spec: { hard: { 'requests.cpu': '-1' } } }, message: 'ResourceQuota "q" is invalid: spec.hard[requests.cpu]: Invalid value: "-1": must be greater than or equal to 0' },
  ])
  invalidCreates(core('endpoints'), [
    ...metadataCases('Endpoints', { metadata: { name: 'ep' } }, 'ep'),
    {
      name: 'an unnamed port among two',
      object: { metadata: { name: 'ep' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'a', port: 80 }, { port: 81 }] }] },
      message: 'Endpoints "ep" is invalid: subsets[0].ports[1].name: Required value',
    },
  ])
  invalidCreates(core('nodes'), [
    ...metadataCases('Node', { metadata: { name: 'n1' } }, 'n1'),
    {
      name: 'two taints with the same key and effect',
      object: { metadata: { name: 'n1' }, spec: { taints: [{ key: 'k', effect: 'NoSchedule' }, { key: 'k', value: 'v', effect: 'NoSchedule' }] } },
      // The internal core.Taint has no json tags: json.Marshal writes its Go field names in declaration order.
      message: 'Node "n1" is invalid: metadata.taints[1]: Duplicate value: {"Key":"k","Value":"v","Effect":"NoSchedule","TimeAdded":null}: taints must be unique by key and effect pair',
    },
    { name: 'a pod CIDR that is not one', object: { metadata: { name: 'n1' }, spec: { podCIDRs: ['10.0.0.0'] } }, message: 'Node "n1" is invalid: spec.podCIDRs[0]: Invalid value: "10.0.0.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)' },
  ])
  invalidCreates(core('replicationcontrollers'), metadataCases('ReplicationController', { metadata: { name: 'rc' }, spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } }, 'rc'))
  invalidCreates(core('podtemplates'), [
    ...metadataCases('PodTemplate', { metadata: { name: 'pt' }, template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } }, 'pt'),
    { name: 'a template without containers', object: { metadata: { name: 'pt' }, template: { spec: { containers: [] } } }, message: 'PodTemplate "pt" is invalid: template.spec.containers: Required value' },
    {
      name: 'ephemeral containers in a template',
      object: { metadata: { name: 'pt' }, template: { spec: { containers: [{ name: 'c', image: 'nginx' }], ephemeralContainers: [{ name: 'd', image: 'busybox' }] } } },
      message: 'PodTemplate "pt" is invalid: template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template',
    },
  ])
  invalidCreates(core('events'), [
    {
      name: 'a new-style event without reporting fields',
      object: { metadata: { name: 'e1' }, eventTime: '2026-01-01T00:00:00.000000Z', involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' } },
      message: 'Event "e1" is invalid: [reportingController: Required value, reportingController: Invalid value: "": name part must be non-empty, reportingController: Invalid value: "": ' + QUALIFIED + ', reportingInstance: Required value, action: Required value, reason: Required value]',
    },
  ])
  invalidCreates(core('persistentvolumeclaims'), metadataCases('PersistentVolumeClaim', { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }, 'data'))
})
