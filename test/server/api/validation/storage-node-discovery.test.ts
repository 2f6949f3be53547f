/**
 * storage.k8s.io, node.k8s.io and discovery.k8s.io validation, table-driven. Expected texts
 * are the reference's: `pkg/apis/storage/validation/validation.go` (ValidateStorageClass and
 * its update), `pkg/apis/node/validation/validation.go` (the handler a DNS label, immutable),
 * `pkg/apis/discovery/validation/validation.go` (validateAddressType, the endpoints' addresses).
 */
import assert from 'node:assert/strict'
import { type Json, kindTable, strategyOf, updateErrors } from './groups-support.js'

const QUALIFIED = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
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
    ['a negative fixed overhead', (o) => (o.overhead = { podFixed: { cpu: '-1' } }), ['overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0']],
    ['an overhead of an unknown resource', (o) => (o.overhead = { podFixed: { gpu: '1' } }), ['overhead.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified', 'overhead.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers']],
    ['a node selector value with a space', (o) => (o.scheduling = { nodeSelector: { pool: 'a b' } }), [`scheduling.nodeSelector: Invalid value: "a b": ${LABEL_VALUE}`]],
    ['a toleration with an unknown effect (the reference repeats tolerations in the path)', (o) => (o.scheduling = { tolerations: [{ key: 'k', operator: 'Exists', effect: 'Sometimes' }] }), [
      'scheduling.tolerations.tolerations[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ]],
    ['the same toleration twice', (o) => (o.scheduling = { tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute' }, { key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }] }), [
      'scheduling.tolerations[1]: Duplicate value: {"Key":"k","Operator":"Exists","Value":"","Effect":"NoExecute","TolerationSeconds":5}',
    ]],
    ['a handler and a node selector wrong', (o) => Object.assign(o, { handler: 'Kata', scheduling: { nodeSelector: { 'a/b/c': 'x' } } }), [
      `handler: Invalid value: "Kata": ${DNS_LABEL}`,
      "scheduling.nodeSelector: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]],
    ['an overhead and a scheduling', (o) => Object.assign(o, { overhead: { podFixed: { cpu: '250m', memory: '120Mi' } }, scheduling: { nodeSelector: { pool: 'kata' }, tolerations: [{ key: 'kata', operator: 'Exists', effect: 'NoSchedule' }] } }), []],
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
    ['a port name that is not a DNS label', (o) => (o.ports[0].name = 'HTTP'), [`ports[0].name: Invalid value: "HTTP": ${DNS_LABEL}`]],
    ['two ports of one name', (o) => o.ports.push({ name: 'http', port: 8080 }), ['ports[1].name: Duplicate value: "http"']],
    ['two unnamed ports', (o) => (o.ports = [{ port: 80 }, { port: 443 }]), ['ports[1].name: Duplicate value: ""']],
    ['an unknown protocol', (o) => (o.ports[0].protocol = 'ICMP'), ['ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"']],
    ['an application protocol with a space', (o) => (o.ports[0].appProtocol = 'my proto'), [`ports[0].appProtocol: Invalid value: "my proto": ${QUALIFIED}`]],
    ['an FQDN address with an underscore', (o) => Object.assign(o, { addressType: 'FQDN', endpoints: [{ addresses: ['web_1.example.com'] }] }), [`endpoints[0].addresses[0]: Invalid value: "web_1.example.com": ${SUBDOMAIN}`]],
    ['an FQDN address of one label', (o) => Object.assign(o, { addressType: 'FQDN', endpoints: [{ addresses: ['localhost'] }] }), ['endpoints[0].addresses[0]: Invalid value: "localhost": should be a domain with at least two segments separated by dots']],
    ['an endpoint node name that is not a DNS subdomain', (o) => (o.endpoints[0].nodeName = 'Node_1'), [`endpoints[0].nodeName: Invalid value: "Node_1": ${SUBDOMAIN}`]],
    ['an endpoint hostname that is not a DNS label', (o) => (o.endpoints[0].hostname = 'Web'), [`endpoints[0].hostname: Invalid value: "Web": ${DNS_LABEL}`]],
    ['an endpoint hostname with a dot', (o) => (o.endpoints[0].hostname = 'web.1'), ['endpoints[0].hostname: Invalid value: "web.1": must not contain dots']],
    ['a zone with a space', (o) => (o.endpoints[0].zone = 'us east'), [`endpoints[0].zone: Invalid value: "us east": ${LABEL_VALUE}`]],
    ['an endpoint with every field', (o) => Object.assign(o.endpoints[0], { nodeName: 'node-1', hostname: 'web-0', zone: 'us-east-1a', conditions: { ready: true } }), []],
    ['an endpoint with 101 addresses', (o) => (o.endpoints = [{ addresses: Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`) }]), [
      `endpoints[0].addresses: Invalid value: ${JSON.stringify(Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`))}: must contain at most 100 addresses`,
    ]],
  ], it)
  it('update: the address type is immutable', () => {
    assert.deepEqual(updateErrors(strategy, slice(), (o) => (o.addressType = 'IPv6')), ['addressType: Invalid value: "IPv6": field is immutable'])
  })
})
