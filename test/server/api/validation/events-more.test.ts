/**
 * Core v1 Events (pkg/apis/core/validation/events.go legacyValidateEvent) and one more case
 * for the kinds below ten; strings written from the reference's source.
 */
import { type Case, invalidCreates, strategyOf } from './support.js'

const core = (resource: string) => () => strategyOf('', 'v1', resource)
const involved = { kind: 'Pod', name: 'p', namespace: 'default' }
const newStyle = (extra: Record<string, unknown>) => ({
  metadata: { name: 'e1' },
  eventTime: '2026-01-01T00:00:00.000000Z',
  involvedObject: involved,
  reportingComponent: 'example.com/ctrl',
  reportingInstance: 'i-1',
  action: 'Do',
  reason: 'Done',
  ...extra,
})

const eventCases: Case[] = [
  {
    name: 'an event in another namespace than its cluster-scoped object',
    object: { metadata: { name: 'e1', namespace: 'team' }, involvedObject: { kind: 'Node', name: 'n1' }, reason: 'R' },
    message: 'Event "e1" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace',
  },
  { name: 'a reporting instance over 128 bytes', object: newStyle({ reportingInstance: 'i'.repeat(129) }), message: 'Event "e1" is invalid: reportingInstance: Invalid value: "": can have at most 128 characters' },
  { name: 'an action over 128 bytes', object: newStyle({ action: 'a'.repeat(129) }), message: 'Event "e1" is invalid: action: Invalid value: "": can have at most 128 characters' },
  { name: 'a reason over 128 bytes', object: newStyle({ reason: 'r'.repeat(129) }), message: 'Event "e1" is invalid: reason: Invalid value: "": can have at most 128 characters' },
  { name: 'a note over 1024 bytes', object: newStyle({ message: 'm'.repeat(1025) }), message: 'Event "e1" is invalid: message: Invalid value: "": can have at most 1024 characters' },
  { name: 'a new-style event without action', object: newStyle({ action: '' }), message: 'Event "e1" is invalid: action: Required value' },
  { name: 'a new-style event without reason', object: newStyle({ reason: '' }), message: 'Event "e1" is invalid: reason: Required value' },
  {
    name: 'a cluster-scoped object reported from an ordinary namespace',
    object: { ...newStyle({ involvedObject: { kind: 'Node', name: 'n1' } }), metadata: { name: 'e1', namespace: 'team' } },
    message: 'Event "e1" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace',
  },
  { name: 'a name with a slash (the generic path-segment rule)', object: { metadata: { name: 'a/b' }, involvedObject: involved, reason: 'R' }, message: `Event "a/b" is invalid: metadata.name: Invalid value: "a/b": may not contain '/'` },
]

describe('validation: core/v1 Event (legacyValidateEvent)', () => {
  invalidCreates(core('events'), eventCases)
})

describe('validation: one more case each for endpoints, nodes, replication controllers, pod templates', () => {
  invalidCreates(core('endpoints'), [
    {
      name: 'an unsupported port protocol',
      object: { metadata: { name: 'ep' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, protocol: 'HTTP' }] }] },
      message: 'Endpoints "ep" is invalid: subsets[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    },
  ])
  invalidCreates(core('nodes'), [
    {
      name: 'a taint without a key',
      object: { metadata: { name: 'n1' }, spec: { taints: [{ effect: 'NoSchedule' }] } },
      message:
        "Node \"n1\" is invalid: [metadata.taints[0].key: Invalid value: \"\": name part must be non-empty, metadata.taints[0].key: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]",
      causes: [
        ['metadata.taints[0].key', 'FieldValueInvalid', 'Invalid value: "": name part must be non-empty'],
        [
          'metadata.taints[0].key',
          'FieldValueInvalid',
          "Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ],
      ],
    },
  ])
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }
  invalidCreates(core('replicationcontrollers'), [
    {
      name: 'a negative minReadySeconds',
      object: { metadata: { name: 'rc' }, spec: { minReadySeconds: -1, template } },
      message: 'ReplicationController "rc" is invalid: spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0',
    },
  ])
  invalidCreates(core('podtemplates'), [
    {
      name: 'an activeDeadlineSeconds of 0',
      object: { metadata: { name: 'pt' }, template: { spec: { ...template.spec, activeDeadlineSeconds: 0 } } },
      message: 'PodTemplate "pt" is invalid: template.spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive',
    },
  ])
})
