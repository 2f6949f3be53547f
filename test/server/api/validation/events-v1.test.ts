/**
 * events.k8s.io/v1 Event validation, table-driven: pkg/apis/core/validation/events.go's
 * ValidateEventCreate and ValidateEventUpdate for a request version other than v1 (the strict
 * rules after the legacy ones). The reference validates the core form, so the paths are the
 * core names: `note` is `message`, `deprecatedCount` is `count`. Texts from its source.
 */
import assert from 'node:assert/strict'
import { type Json, createErrors, kindTable, updateErrors } from './groups-support.js'
import { strategyOf } from './support.js'

const strategy = strategyOf('events.k8s.io', 'v1', 'events')
const core = strategyOf('', 'v1', 'events')
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const QUALIFIED_REGEX = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

const event = (): Json => ({
  metadata: { name: 'e1' },
  eventTime: '2026-01-01T00:00:00.000000Z',
  reportingController: 'example.com/ctrl',
  reportingInstance: 'ctrl-1',
  action: 'Create',
  reason: 'Created',
  type: 'Normal',
  regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
  note: 'created the pod',
})

describe('validation/events.k8s.io: Event (strict rules)', () => {
  kindTable(strategy, event, [
    ['no eventTime', (o) => delete o.eventTime, ['eventTime: Required value']],
    ['an unknown type', (o) => (o.type = 'Info'), ['type: Invalid value: "": has invalid value: Info']],
    ['no type', (o) => delete o.type, ['type: Invalid value: "": has invalid value: ']],
    ['a deprecatedFirstTimestamp', (o) => (o.deprecatedFirstTimestamp = '2026-01-01T00:00:00Z'), ['firstTimestamp: Invalid value: "": needs to be unset']],
    ['a deprecatedLastTimestamp', (o) => (o.deprecatedLastTimestamp = '2026-01-01T00:00:00Z'), ['lastTimestamp: Invalid value: "": needs to be unset']],
    ['a deprecatedCount', (o) => (o.deprecatedCount = 3), ['count: Invalid value: "": needs to be unset']],
    ['a deprecatedSource', (o) => (o.deprecatedSource = { component: 'kubelet' }), ['source: Invalid value: "": needs to be unset']],
    ['a series of one without its time', (o) => (o.series = { count: 1 }), ['series.count: Invalid value: "": should be at least 2', 'series.lastObservedTime: Required value']],
    ['no reportingController', (o) => delete o.reportingController, [
      'reportingController: Required value',
      'reportingController: Invalid value: "": name part must be non-empty',
      `reportingController: Invalid value: "": ${QUALIFIED_REGEX}`,
    ]],
    ['a reportingInstance over 128 bytes', (o) => (o.reportingInstance = 'i'.repeat(129)), ['reportingInstance: Invalid value: "": can have at most 128 characters']],
    ['a note over 1024 bytes', (o) => (o.note = 'n'.repeat(1025)), ['message: Invalid value: "": can have at most 1024 characters']],
    ['no action', (o) => delete o.action, ['action: Required value']],
    ['a name that is no DNS subdomain (the core API accepts it)', (o) => (o.metadata = { name: 'E1' }), [`metadata.name: Invalid value: "E1": ${SUBDOMAIN}`]],
    ['a cluster-scoped object reported in an ordinary namespace', (o) => Object.assign(o, { metadata: { name: 'e1', namespace: 'team' }, regarding: { kind: 'Node', name: 'n1' } }), [
      'involvedObject.namespace: Invalid value: "": does not match event.namespace',
    ]],
  ], it)

  it('the core v1 API keeps accepting what events.k8s.io refuses (no strict rules for v1)', () => {
    const legacy = { metadata: { name: 'E1' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'R', count: 3, type: 'Info' }
    assert.deepEqual(createErrors(core, legacy), [])
    assert.deepEqual(updateErrors(core, legacy, (o) => (o.count = 4)), [])
  })

  it('updates: the series checked when it changes, the event fixed otherwise', () => {
    assert.deepEqual(updateErrors(strategy, event(), (o) => (o.series = { count: 2, lastObservedTime: '2026-01-01T00:01:00.000000Z' })), [])
    assert.deepEqual(updateErrors(strategy, event(), (o) => (o.series = { count: 1, lastObservedTime: '2026-01-01T00:01:00.000000Z' })), ['series.count: Invalid value: "": should be at least 2'])
    assert.deepEqual(updateErrors(strategy, event(), (o) => (o.note = 'changed')), ['message: Invalid value: "changed": field is immutable'])
    assert.deepEqual(updateErrors(strategy, event(), (o) => (o.reportingInstance = 'ctrl-2')), ['reportingInstance: Invalid value: "ctrl-2": field is immutable'])
  })
})
