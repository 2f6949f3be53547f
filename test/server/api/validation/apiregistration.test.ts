/**
 * apiregistration.k8s.io APIService validation, table-driven. Expected texts are the
 * reference's (kube-aggregator's `pkg/apis/apiregistration/validation/validation.go`).
 */
import { type Json, kindTable, strategyOf, updateTable } from './groups-support.js'

const SUB =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"

describe('validation/apiregistration: APIService', () => {
  const strategy = strategyOf('apiregistration.k8s.io', 'apiservices')
  const service = (): Json => ({ metadata: { name: 'v1.example.com' }, spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'default', name: 'api' } } })
  kindTable(strategy, service, [
    ['a name other than version.group', (o) => (o.metadata.name = 'v2.example.com'), ['metadata.name: Invalid value: "v2.example.com": must be `spec.version+"."+spec.group`: "v1.example.com"']],
    ['a name with a slash', (o) => (o.metadata.name = 'v1/example.com'), ["metadata.name: Invalid value: \"v1/example.com\": may not contain '/'"]],
    ['no group for a version other than v1', (o) => Object.assign(o, { metadata: { name: 'v2.' }, spec: { ...o.spec, group: '', version: 'v2' } }), ['spec.group: Required value: only v1 may have an empty group and it better be legacy kube']],
    ['a group that is not a DNS subdomain', (o) => Object.assign(o, { metadata: { name: 'v1.Example.com' }, spec: { ...o.spec, group: 'Example.com' } }), [`spec.group: Invalid value: "Example.com": ${SUB}`]],
    ['a version that is not a DNS-1035 label', (o) => Object.assign(o, { metadata: { name: '1.example.com' }, spec: { ...o.spec, version: '1' } }), [`spec.version: Invalid value: "1": ${DNS1035}`]],
    ['no group priority', (o) => delete o.spec.groupPriorityMinimum, ['spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000']],
    ['a group priority over 20000', (o) => (o.spec.groupPriorityMinimum = 20001), ['spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000']],
    ['a version priority over 1000', (o) => (o.spec.versionPriority = 1001), ['spec.versionPriority: Invalid value: 1001: must be positive and less than 1000']],
    ['a service without namespace and name', (o) => (o.spec.service = {}), ['spec.service.namespace: Required value', 'spec.service.name: Required value']],
    ['a service port out of range', (o) => (o.spec.service.port = 70000), ['spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive']],
    ['insecureSkipTLSVerify with a CA bundle', (o) => Object.assign(o.spec, { insecureSkipTLSVerify: true, caBundle: 'YWJj' }), ['spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present']],
    ['a local APIService with a CA bundle', (o) => (delete o.spec.service, (o.spec.caBundle = 'YWJj')), ['spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle']],
    ['a local APIService skipping TLS verification', (o) => (delete o.spec.service, (o.spec.insecureSkipTLSVerify = true)), ['spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify']],
    ['the legacy v1 local APIService', (o) => Object.assign(o, { metadata: { name: 'v1.' }, spec: { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 } }), []],
  ], it)
  updateTable(strategy, service, [
    ['a condition status that is not True, False or Unknown', (o) => (o.status = { conditions: [{ type: 'Available', status: 'Maybe' }] }), ['status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"']],
    ['an Available condition', (o) => (o.status = { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }] }), []],
  ], it, 'status')
  updateTable(strategy, service, [
    ['the spec is validated on update', (o) => (o.spec.versionPriority = 0), ['spec.versionPriority: Invalid value: 0: must be positive and less than 1000']],
    ['the priority may change', (o) => (o.spec.versionPriority = 20), []],
  ], it)
})
