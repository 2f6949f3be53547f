/**
 * coordination.k8s.io validation, table-driven. Expected texts are the reference's
 * `pkg/apis/coordination/validation/validation.go`.
 */
import { type Json, kindTable, strategyOf, updateTable } from './groups-support.js'

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

const KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
const QUALIFIED =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

describe('validation/coordination: LeaseCandidate (beta)', () => {
  const strategy = strategyOf('coordination.k8s.io', 'leasecandidates', 'v1beta1')
  const candidate = (): Json => ({ metadata: { name: 'kube-controller-manager-node-1' }, spec: { leaseName: 'kube-controller-manager', binaryVersion: '1.35.0', emulationVersion: '1.34.0', strategy: 'OldestEmulationVersion' } })
  kindTable(strategy, candidate, [
    ['no lease name', (o) => delete o.spec.leaseName, ['spec.leaseName: Required value']],
    ['no binary version', (o) => delete o.spec.binaryVersion, ['spec.binaryVersion: Required value']],
    ['a binary version with a v (unparsed, it counts as 0.0.0, older than the emulation)', (o) => (o.spec.binaryVersion = 'v1.35.0'), [
      'spec.binaryVersion: Invalid value: "v1.35.0": must be a valid semantic version',
      'spec.binaryVersion: Invalid value: "v1.35.0": must be greater than or equal to `emulationVersion`',
    ]],
    ['an emulation version of two parts', (o) => (o.spec.emulationVersion = '1.34'), ['spec.emulationVersion: Invalid value: "1.34": must be a valid semantic version', "spec.emulationVersion: Required value: must be specified when `strategy` is 'OldestEmulationVersion'"]],
    ['a binary older than the emulation', (o) => (o.spec.binaryVersion = '1.33.0'), ['spec.binaryVersion: Invalid value: "1.33.0": must be greater than or equal to `emulationVersion`']],
    ['a pre-release binary of the emulated version', (o) => (o.spec.binaryVersion = '1.34.0-alpha.1'), ['spec.binaryVersion: Invalid value: "1.34.0-alpha.1": must be greater than or equal to `emulationVersion`']],
    ['no strategy', (o) => delete o.spec.strategy, ['spec.strategy: Required value']],
    ['OldestEmulationVersion without an emulation version', (o) => delete o.spec.emulationVersion, ["spec.emulationVersion: Required value: must be specified when `strategy` is 'OldestEmulationVersion'"]],
    ['an unknown strategy (the reference repeats strategy in the path)', (o) => (o.spec.strategy = 'Newest'), ['spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"']],
    ['a domain strategy that is not a qualified name', (o) => (o.spec.strategy = 'example.com/my strategy'), [`spec.strategy.strategy: Invalid value: "example.com/my strategy": ${QUALIFIED}`]],
    ['a name that is not a config key', (o) => (o.metadata.name = 'kcm:node-1'), [`metadata.name: Invalid value: "kcm:node-1": ${KEY_MSG}`]],
    ['a domain strategy', (o) => (o.spec.strategy = 'example.com/custom'), []],
  ], it)
  updateTable(strategy, candidate, [
    ['the lease name is immutable', (o) => (o.spec.leaseName = 'kube-scheduler'), ['spec.leaseName: Invalid value: "kube-scheduler": field is immutable']],
    ['the versions may change', (o) => Object.assign(o.spec, { binaryVersion: '1.36.0', emulationVersion: '1.35.0' }), []],
  ], it)
})
