/**
 * storage.k8s.io, node.k8s.io and discovery.k8s.io validation, table-driven. Expected texts
 * are the reference's: `pkg/apis/storage/validation/validation.go` (ValidateStorageClass and
 * its update), `pkg/apis/node/validation/validation.go` (the handler a DNS label, immutable),
 * `pkg/apis/discovery/validation/validation.go` (validateAddressType, the endpoints' addresses).
 */
import assert from 'node:assert/strict'
import { type Json, kindTable, strategyOf, updateErrors } from './groups-support.js'

const QUALIFIED = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
const DNS_LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"

describe('validation/storage: StorageClass', () => {
  const strategy = strategyOf('storage.k8s.io', 'storageclasses')
  const sc = (): Json => ({ provisioner: 'example.com/disk', parameters: { type: 'ssd' } })
  kindTable(strategy, sc, [
    ['no provisioner', (o) => delete o.provisioner, ['provisioner: Required value']],
    ['a provisioner that is not a qualified name', (o) => (o.provisioner = 'example.com/-disk'), [`provisioner: Invalid value: "example.com/-disk": ${QUALIFIED}`]],
    ['a provisioner with spaces', (o) => (o.provisioner = 'my disk'), [`provisioner: Invalid value: "my disk": ${QUALIFIED}`]],
    ['an unknown reclaimPolicy', (o) => (o.reclaimPolicy = 'Recycle'), ['reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"']],
    ['an unknown volumeBindingMode', (o) => (o.volumeBindingMode = 'Later'), ['volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"']],
    ['an empty parameter name', (o) => (o.parameters = { '': 'x' }), ['parameters: Invalid value: "": field can not be empty.']],
    ['too many parameters', (o) => (o.parameters = Object.fromEntries(Array.from({ length: 513 }, (_, i) => [`k${i}`, 'v']))), ['parameters: Too long: may not be more than 512 bytes']],
    ['parameters over 256 KiB', (o) => (o.parameters = { big: 'x'.repeat(262144) }), ['parameters: Too long: may not be more than 262144 bytes']],
    ['a namespace', (o) => (o.metadata = { name: 'fast', namespace: 'default' }), ['metadata.namespace: Forbidden: not allowed on this type']],
    ['both policies wrong', (o) => Object.assign(o, { reclaimPolicy: 'Keep', volumeBindingMode: 'Never' }), [
      'reclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Retain"',
      'volumeBindingMode: Unsupported value: "Never": supported values: "Immediate", "WaitForFirstConsumer"',
    ]],
  ], it)
  it('update: parameters, provisioner, reclaimPolicy and volumeBindingMode are immutable', () => {
    assert.deepEqual(updateErrors(strategy, sc(), (o) => (o.parameters = { type: 'hdd' })), ['parameters: Forbidden: updates to parameters are forbidden.'])
    assert.deepEqual(updateErrors(strategy, sc(), (o) => (o.provisioner = 'example.com/other')), ['provisioner: Forbidden: updates to provisioner are forbidden.'])
    assert.deepEqual(updateErrors(strategy, sc(), (o) => (o.reclaimPolicy = 'Retain')), ['reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.'])
    assert.deepEqual(updateErrors(strategy, sc(), (o) => (o.volumeBindingMode = 'WaitForFirstConsumer')), ['volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable'])
    assert.deepEqual(updateErrors(strategy, sc(), (o) => (o.allowVolumeExpansion = true)), [])
  })
})

describe('validation/node: RuntimeClass', () => {
  const strategy = strategyOf('node.k8s.io', 'runtimeclasses')
  kindTable(strategy, () => ({ handler: 'runc' }), [
    ['no handler', (o) => delete o.handler, [`handler: Invalid value: "": ${DNS_LABEL}`]],
    ['an upper-case handler', (o) => (o.handler = 'RunC'), [`handler: Invalid value: "RunC": ${DNS_LABEL}`]],
    ['a handler with dots', (o) => (o.handler = 'run.c'), ['handler: Invalid value: "run.c": must not contain dots']],
    ['a handler too long', (o) => (o.handler = 'a'.repeat(64)), [`handler: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`]],
    ['a handler ending with a dash', (o) => (o.handler = 'runc-'), [`handler: Invalid value: "runc-": ${DNS_LABEL}`]],
  ], it)
  it('update: the handler is immutable', () => {
    assert.deepEqual(updateErrors(strategy, { handler: 'runc' }, (o) => (o.handler = 'kata')), ['handler: Invalid value: "kata": field is immutable'])
  })
})

describe('validation/discovery: EndpointSlice', () => {
  const strategy = strategyOf('discovery.k8s.io', 'endpointslices')
  const slice = (): Json => ({ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ name: 'http', port: 80 }] })
  kindTable(strategy, slice, [
    ['no address type', (o) => delete o.addressType, ['addressType: Required value']],
    ['an unknown address type', (o) => (o.addressType = 'IPv5'), ['addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"']],
    ['an endpoint without addresses', (o) => (o.endpoints = [{ addresses: [] }]), ['endpoints[0].addresses: Required value: must contain at least 1 address']],
    ['too many endpoints', (o) => (o.endpoints = Array.from({ length: 1001 }, () => ({ addresses: ['10.0.0.1'] }))), ['endpoints: Too many: 1001: must have at most 1000 items']],
    ['an endpoint with 101 addresses', (o) => (o.endpoints = [{ addresses: Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`) }]), [
      `endpoints[0].addresses: Invalid value: ${JSON.stringify(Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`))}: must contain at most 100 addresses`,
    ]],
  ], it)
  it('update: the address type is immutable', () => {
    assert.deepEqual(updateErrors(strategy, slice(), (o) => (o.addressType = 'IPv6')), ['addressType: Invalid value: "IPv6": field is immutable'])
  })
})
