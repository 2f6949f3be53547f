/**
 * Services (pkg/apis/core/validation ValidateService, ValidateServiceUpdate): the strings are
 * the reference's, written from its source.
 */
import assert from 'node:assert/strict'
import { type Case, invalidCreates, strategyOf, updateAnswer, validCreates } from './support.js'

const services = () => strategyOf('', 'v1', 'services')
const svc = (spec: Record<string, unknown>, name = 'web') => ({ metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } })
const RANGE = 'must be between 1 and 65535, inclusive'

const cases: Case[] = [
  { name: 'an unknown type', object: svc({ type: 'Bad' }), message: 'Service "web" is invalid: spec.type: Unsupported value: "Bad": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"' },
  { name: 'no ports', object: svc({ ports: [] }), message: 'Service "web" is invalid: spec.ports: Required value', causes: [['spec.ports', 'FieldValueRequired', 'Required value']] },
  {
    name: 'port 0 (the defaulted targetPort too)',
    object: svc({ ports: [{ port: 0 }] }),
    message: `Service "web" is invalid: [spec.ports[0].port: Invalid value: 0: ${RANGE}, spec.ports[0].targetPort: Invalid value: 0: ${RANGE}]`,
    causes: [
      ['spec.ports[0].port', 'FieldValueInvalid', `Invalid value: 0: ${RANGE}`],
      ['spec.ports[0].targetPort', 'FieldValueInvalid', `Invalid value: 0: ${RANGE}`],
    ],
  },
  {
    name: 'two ports without names',
    object: svc({ ports: [{ port: 80 }, { port: 443 }] }),
    message: 'Service "web" is invalid: [spec.ports[0].name: Required value, spec.ports[1].name: Required value]',
  },
  { name: 'a duplicate port name', object: svc({ ports: [{ name: 'http', port: 80 }, { name: 'http', port: 81 }] }), message: 'Service "web" is invalid: spec.ports[1].name: Duplicate value: "http"' },
  {
    name: 'a clusterIP that is not an IP',
    object: svc({ clusterIP: 'not-an-ip' }),
    message: 'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
  },
  { name: 'an ExternalName service without a name', object: { metadata: { name: 'ext' }, spec: { type: 'ExternalName' } }, message: 'Service "ext" is invalid: spec.externalName: Required value' },
  {
    name: 'an ExternalName that is not a DNS subdomain',
    object: { metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'bad_name' } },
    message:
      "Service \"ext\" is invalid: spec.externalName: Invalid value: \"bad_name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  },
  { name: 'an unknown session affinity', object: svc({ sessionAffinity: 'Sticky' }), message: 'Service "web" is invalid: spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"' },
  {
    name: 'a nodePort on a ClusterIP service',
    object: svc({ ports: [{ port: 80, nodePort: 30080 }] }),
    message: "Service \"web\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
  },
  {
    name: 'a name that is not a DNS-1035 label',
    object: svc({}, '1web'),
    message:
      "Service \"1web\" is invalid: metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  },
  {
    name: 'externalTrafficPolicy on a ClusterIP service',
    object: svc({ externalTrafficPolicy: 'Local' }),
    message: 'Service "web" is invalid: spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
  },
  { name: 'an unknown IP family', object: svc({ ipFamilies: ['IPv5'] }), message: 'Service "web" is invalid: spec.ipFamilies[0]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"' },
  {
    name: 'ClientIP affinity with a timeout out of range',
    object: svc({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } } }),
    message: 'Service "web" is invalid: spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400',
  },
  {
    // The key is an internal core.ServicePort: json.Marshal writes its Go field names in declaration order.
    name: 'two ports with the same number and protocol',
    object: svc({ ports: [{ name: 'a', port: 80 }, { name: 'b', port: 80 }] }),
    message: 'Service "web" is invalid: spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}',
  },
  {
    name: 'a loopback external IP',
    object: svc({ externalIPs: ['127.0.0.1'] }),
    message: 'Service "web" is invalid: spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
  },
]

describe('validation: core/v1 Service (ValidateService)', () => {
  invalidCreates(services, cases)
  validCreates(services, [
    ['a ClusterIP service', svc({ selector: { app: 'web' } })],
    ['a NodePort service with named ports', svc({ type: 'NodePort', ports: [{ name: 'http', port: 80, targetPort: 'http' }, { name: 'https', port: 443, nodePort: 30443 }] })],
    ['a headless service', svc({ clusterIP: 'None' })],
    ['an ExternalName service', { metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'db.example.com.' } }],
  ])

  const stored = svc({ clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'] })
  it('update: the cluster IP may not change', () => {
    const got = updateAnswer(services(), stored, (o) => Object.assign(o.spec as object, { clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.11'] }))
    assert.equal(got?.message, 'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["10.96.0.11"]: may not change once set')
  })
  it('update: a changed clusterIP alone is the same change (normalizeClusterIPs keeps clusterIPs in step)', () => {
    // kubectl patch svc web -p '{"spec":{"clusterIP":"10.96.0.11"}}' on a real cluster.
    const got = updateAnswer(services(), stored, (o) => Object.assign(o.spec as object, { clusterIP: '10.96.0.11' }))
    assert.equal(got?.message, 'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["10.96.0.11"]: may not change once set')
  })
  it('update: a body without the cluster IPs keeps the allocated ones (patchAllocatedValues)', () => {
    assert.equal(updateAnswer(services(), stored, (o) => { delete (o.spec as Record<string, unknown>).clusterIP; delete (o.spec as Record<string, unknown>).clusterIPs }), undefined)
  })
  it('update: ports may change', () => {
    assert.equal(updateAnswer(services(), stored, (o) => Object.assign(o.spec as object, { ports: [{ port: 8080 }] })), undefined)
  })
})
