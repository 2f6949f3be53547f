/**
 * coordination.k8s.io validation, table-driven. Expected texts are the reference's
 * `pkg/apis/coordination/validation/validation.go`.
 */
import { type Json, kindTable, strategyOf } from './groups-support.js'

const lease = (): Json => ({ spec: { holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 } })

describe('validation/coordination: Lease', () => {
  kindTable(strategyOf('coordination.k8s.io', 'leases'), lease, [
    ['a zero duration', (o) => (o.spec.leaseDurationSeconds = 0), ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0']],
    ['a negative duration', (o) => (o.spec.leaseDurationSeconds = -5), ['spec.leaseDurationSeconds: Invalid value: -5: must be greater than 0']],
    ['negative transitions', (o) => (o.spec.leaseTransitions = -1), ['spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0']],
    ['a preferred holder without holder', (o) => Object.assign(o.spec, { holderIdentity: '', preferredHolder: 'b' }), ['spec.preferredHolder: Forbidden: may only be specified if `holderIdentity` is specified']],
    ['an unknown strategy', (o) => (o.spec.strategy = 'Newest'), ['spec.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"']],
    ['both counts wrong', (o) => Object.assign(o.spec, { leaseDurationSeconds: 0, leaseTransitions: -2 }), [
      'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      'spec.leaseTransitions: Invalid value: -2: must be greater than or equal to 0',
    ]],
    ['a preferred holder with no holder at all', (o) => Object.assign(o.spec, { holderIdentity: undefined, preferredHolder: 'b' }), ['spec.preferredHolder: Forbidden: may only be specified if `holderIdentity` is specified']],
    [
      'an invalid name',
      (o) => (o.metadata = { name: 'Lease_1' }),
      [
        "metadata.name: Invalid value: \"Lease_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    ['a large negative duration', (o) => (o.spec.leaseDurationSeconds = -2147483648), ['spec.leaseDurationSeconds: Invalid value: -2147483648: must be greater than 0']],
    ['a domain-prefixed strategy with a bad name', (o) => (o.spec.strategy = 'example.com/-x'), [
      "spec.strategy: Invalid value: \"example.com/-x\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]],
  ], it)
})
