/**
 * scheduling.k8s.io validation, table-driven. Expected texts are the reference's:
 * `pkg/apis/scheduling/validation/validation.go`, `pkg/apis/scheduling/helpers.go`
 * (IsKnownSystemPriorityClass) and core validation's ValidatePreemptionPolicy.
 */
import assert from 'node:assert/strict'
import { type Json, kindTable, strategyOf, updateErrors } from './groups-support.js'

const strategy = strategyOf('scheduling.k8s.io', 'priorityclasses')
const pc = (): Json => ({ metadata: { name: 'high' }, value: 1000, description: 'x' })
const RESERVED = "priority class names with 'system-' prefix are reserved for system use only. error: "

describe('validation/scheduling: PriorityClass', () => {
  kindTable(strategy, pc, [
    ['a user value above one billion', (o) => (o.value = 1000000001), ['value: Forbidden: maximum allowed value of a user defined priority is 1000000000']],
    ['an unknown system- name', (o) => (o.metadata.name = 'system-mine'), [`metadata.name: Forbidden: ${RESERVED}system-mine is not a known system priority class`]],
    ['a system class with another value', (o) => Object.assign(o, { metadata: { name: 'system-node-critical' }, value: 5 }), [`metadata.name: Forbidden: ${RESERVED}value of system-node-critical PriorityClass must be 2000001000`]],
    [
      'a system class as global default',
      (o) => Object.assign(o, { metadata: { name: 'system-cluster-critical' }, value: 2000000000, globalDefault: true }),
      [`metadata.name: Forbidden: ${RESERVED}globalDefault of system-cluster-critical PriorityClass must be false`],
    ],
    ['an unknown preemptionPolicy', (o) => (o.preemptionPolicy = 'Always'), ['preemptionPolicy: Unsupported value: "Always": supported values: "PreemptLowerPriority", "Never"']],
    [
      'an invalid name',
      (o) => (o.metadata.name = 'High'),
      [
        "metadata.name: Invalid value: \"High\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    ['a value of two billion for a user class', (o) => (o.value = 2000000000), ['value: Forbidden: maximum allowed value of a user defined priority is 1000000000']],
    ['a namespace on a cluster-scoped class', (o) => (o.metadata.namespace = 'default'), ['metadata.namespace: Forbidden: not allowed on this type']],
    ['system- with a user value', (o) => Object.assign(o, { metadata: { name: 'system-x' }, value: 1 }), [`metadata.name: Forbidden: ${RESERVED}system-x is not a known system priority class`]],
    ['both a bad value and a bad policy', (o) => Object.assign(o, { value: 1000000001, preemptionPolicy: 'Sometimes' }), [
      'value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
      'preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"',
    ]],
  ], it)

  it('accepts the system classes with their values', () => {
    assert.deepEqual(updateErrors(strategy, { metadata: { name: 'system-node-critical' }, value: 2000001000 }, () => {}), [])
  })
  it('update: value and preemptionPolicy are immutable', () => {
    assert.deepEqual(updateErrors(strategy, pc(), (o) => (o.value = 2)), ['value: Forbidden: may not be changed in an update.'])
    assert.deepEqual(updateErrors(strategy, pc(), (o) => (o.preemptionPolicy = 'Never')), ['preemptionPolicy: Invalid value: "Never": field is immutable'])
  })
})
