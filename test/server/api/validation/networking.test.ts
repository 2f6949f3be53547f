/**
 * networking.k8s.io validation, table-driven. Expected texts are the reference's
 * `pkg/apis/networking/validation/validation.go` (and the apimachinery string and IP
 * validators it calls), written from its source and validation_test.go.
 */
import assert from 'node:assert/strict'
import { type Json, created, kindTable, strategyOf, updateErrors } from './groups-support.js'

const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
const DNS_LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
const WILDCARD =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
const PORT_RANGE = 'must be between 1 and 65535, inclusive'
const BAD_CIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'
const BAD_IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'

describe('validation/networking: NetworkPolicy', () => {
  const strategy = strategyOf('networking.k8s.io', 'networkpolicies')
  const policy = (): Json => ({
    spec: {
      podSelector: { matchLabels: { app: 'web' } },
      ingress: [{ from: [{ podSelector: {} }, { namespaceSelector: { matchLabels: { team: 'a' } } }], ports: [{ port: 80 }, { port: 8000, endPort: 9000 }] }],
      egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }],
    },
  })
  const ingressPort = (o: Json) => o.spec.ingress[0].ports[0]
  const ipBlock = (o: Json) => o.spec.egress[0].to[0].ipBlock
  kindTable(strategy, policy, [
    ['an ipBlock without cidr', (o) => (o.spec.egress[0].to[0].ipBlock = { except: ['10.1.0.0/16'] }), ['spec.egress[0].to[0].ipBlock.cidr: Required value']],
    ['an ipBlock with a bad cidr', (o) => (ipBlock(o).cidr = '10.0.0.0/33'), [`spec.egress[0].to[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": ${BAD_CIDR}`]],
    ['an exception outside the cidr', (o) => (ipBlock(o).except = ['192.168.0.0/16']), ['spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "192.168.0.0/16": must be a strict subset of `cidr`']],
    ['an exception equal to the cidr', (o) => (ipBlock(o).except = ['10.0.0.0/8']), ['spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`']],
    ['an IPv6 exception of an IPv4 cidr', (o) => (ipBlock(o).except = ['2001:db8::/64']), ['spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "2001:db8::/64": must be a strict subset of `cidr`']],
    ['an exception that is no CIDR', (o) => (ipBlock(o).except = ['10.1.0.0']), [`spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "10.1.0.0": ${BAD_CIDR}`]],
    ['an empty peer', (o) => (o.spec.ingress[0].from[0] = {}), ['spec.ingress[0].from[0]: Required value: must specify a peer']],
    ['an ipBlock with a pod selector', (o) => (o.spec.egress[0].to[0].podSelector = {}), ['spec.egress[0].to[0]: Forbidden: may not specify both ipBlock and another peer']],
    ['an endPort below the port', (o) => (o.spec.ingress[0].ports[1].endPort = 7999), ['spec.ingress[0].ports[1].endPort: Invalid value: 7999: must be greater than or equal to `port`']],
    ['an endPort above 65535', (o) => (o.spec.ingress[0].ports[1].endPort = 65536), [`spec.ingress[0].ports[1].endPort: Invalid value: 65536: ${PORT_RANGE}`]],
    ['an endPort with a named port', (o) => Object.assign(ingressPort(o), { port: 'http', endPort: 90 }), ['spec.ingress[0].ports[0].endPort: Invalid value: 90: may not be specified when `port` is non-numeric']],
    ['an endPort without a port', (o) => (o.spec.ingress[0].ports[0] = { endPort: 90 }), ['spec.ingress[0].ports[0].endPort: Invalid value: 90: may not be specified when `port` is not specified']],
    ['an unknown protocol', (o) => (ingressPort(o).protocol = 'ICMP'), ['spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"']],
    ['a port above 65535', (o) => (ingressPort(o).port = 70000), [`spec.ingress[0].ports[0].port: Invalid value: 70000: ${PORT_RANGE}`]],
    ['a port name with consecutive hyphens', (o) => (ingressPort(o).port = 'http--x'), ['spec.ingress[0].ports[0].port: Invalid value: "http--x": must not contain consecutive hyphens']],
    ['a port name in capitals', (o) => (ingressPort(o).port = 'HTTP'), [
      'spec.ingress[0].ports[0].port: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.ingress[0].ports[0].port: Invalid value: "HTTP": must contain at least one letter (a-z)',
    ]],
    ['an unknown policy type', (o) => (o.spec.policyTypes = ['Ingress', 'Sideways']), ['spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"']],
    ['three policy types', (o) => (o.spec.policyTypes = ['Ingress', 'Egress', 'Ingress']), ['spec.policyTypes: Invalid value: ["Ingress","Egress","Ingress"]: may not specify more than two policyTypes']],
    ['a pod selector with a bad label value', (o) => (o.spec.podSelector.matchLabels.app = '-web'), [`spec.podSelector.matchLabels: Invalid value: "-web": ${LABEL_VALUE}`]],
    ['a namespace selector with a bad operator', (o) => (o.spec.ingress[0].from[1].namespaceSelector = { matchExpressions: [{ key: 'team', operator: 'Near' }] }), [
      'spec.ingress[0].from[1].namespaceSelector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
    ]],
  ], it)

  it('defaults policyTypes (Egress when there are egress rules) and port protocols', () => {
    const o = created(strategy, policy()) as Json
    assert.deepEqual(o.spec.policyTypes, ['Ingress', 'Egress'])
    assert.equal(o.spec.ingress[0].ports[0].protocol, 'TCP')
    const ingressOnly = created(strategy, { spec: { podSelector: {} } }) as Json
    assert.deepEqual(ingressOnly.spec.policyTypes, ['Ingress'])
  })

  it('keeps accepting a CIDR the stored policy already had (ValidateNetworkPolicyUpdate)', () => {
    const old = policy()
    old.spec.egress[0].to[0].ipBlock = { cidr: '10.0.0.0/8x' }
    assert.deepEqual(updateErrors(strategy, old, (o) => (o.spec.ingress[0].ports[0].port = 81)), [])
    assert.deepEqual(updateErrors(strategy, policy(), (o) => (o.spec.egress[0].to[0].ipBlock = { cidr: '10.0.0.0/8x' })), [
      `spec.egress[0].to[0].ipBlock.cidr: Invalid value: "10.0.0.0/8x": ${BAD_CIDR}`,
    ])
  })
})

describe('validation/networking: Ingress', () => {
  const strategy = strategyOf('networking.k8s.io', 'ingresses')
  const ingress = (): Json => ({
    spec: {
      ingressClassName: 'nginx',
      rules: [{ host: 'foo.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
      tls: [{ hosts: ['foo.example.com', '*.example.com'], secretName: 'foo-tls' }],
    },
  })
  const path0 = (o: Json) => o.spec.rules[0].http.paths[0]
  const P = 'spec.rules[0].http.paths[0]'
  kindTable(strategy, ingress, [
    ['neither rules nor a default backend (empty list)', (o) => (o.spec.rules = []), ['spec: Invalid value: []: either `defaultBackend` or `rules` must be specified']],
    ['neither rules nor a default backend (absent)', (o) => delete o.spec.rules, ['spec: Invalid value: null: either `defaultBackend` or `rules` must be specified']],
    ['an IP address as host', (o) => (o.spec.rules[0].host = '1.2.3.4'), ['spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address']],
    ['a host in capitals', (o) => (o.spec.rules[0].host = 'Foo.example.com'), [`spec.rules[0].host: Invalid value: "Foo.example.com": ${SUBDOMAIN}`]],
    ['a wildcard in the middle of the host', (o) => (o.spec.rules[0].host = 'foo.*.com'), [`spec.rules[0].host: Invalid value: "foo.*.com": ${WILDCARD}`]],
    ['a path without pathType', (o) => delete path0(o).pathType, [`${P}.pathType: Required value: pathType must be specified`]],
    ['an unknown pathType', (o) => (path0(o).pathType = 'Regex'), [`${P}.pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"`]],
    ['a relative Prefix path', (o) => (path0(o).path = 'foo'), [`${P}.path: Invalid value: "foo": must be an absolute path`]],
    ['a path with a double slash', (o) => (path0(o).path = '/foo//bar'), [`${P}.path: Invalid value: "/foo//bar": must not contain '//'`]],
    ['an Exact path ending in /..', (o) => Object.assign(path0(o), { path: '/foo/..', pathType: 'Exact' }), [`${P}.path: Invalid value: "/foo/..": cannot end with '/..'`]],
    ['a path with an encoded slash', (o) => (path0(o).path = '/a%2Fb'), [`${P}.path: Invalid value: "/a%2Fb": must not contain '%2F'`]],
    ['a relative ImplementationSpecific path', (o) => Object.assign(path0(o), { path: 'foo', pathType: 'ImplementationSpecific' }), [`${P}.path: Invalid value: "foo": must be an absolute path`]],
    ['both a resource and a service backend', (o) => (path0(o).backend.resource = { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'static' }), [
      `${P}.backend: Invalid value: "": cannot set both resource and service backends`,
    ]],
    ['an empty backend', (o) => (path0(o).backend = {}), [`${P}.backend: Invalid value: "": resource or service backend is required`]],
    ['a service name that is no DNS-1035 label', (o) => (path0(o).backend.service.name = '1web'), [`${P}.backend.service.name: Invalid value: "1web": ${DNS1035}`]],
    ['a service without name', (o) => delete path0(o).backend.service.name, [`${P}.backend.service.name: Required value`]],
    ['a port name and number', (o) => (path0(o).backend.service.port.name = 'http'), [`${P}.backend: Invalid value: "": cannot set both port name & port number`]],
    ['no port', (o) => (path0(o).backend.service.port = {}), [`${P}.backend: Required value: port name or number is required`]],
    ['a port number above 65535', (o) => (path0(o).backend.service.port.number = 70000), [`${P}.backend.service.port.number: Invalid value: 70000: ${PORT_RANGE}`]],
    ['a port name over 15 characters', (o) => (path0(o).backend.service.port = { name: 'a-very-long-port-name' }), [`${P}.backend.service.port.name: Invalid value: "a-very-long-port-name": must be no more than 15 characters`]],
    ['an http rule without paths', (o) => (o.spec.rules[0].http.paths = []), ['spec.rules[0].http.paths: Required value']],
    ['a TLS host in capitals', (o) => (o.spec.tls[0].hosts[0] = 'FOO'), [`spec.tls[0].hosts[0]: Invalid value: "FOO": ${SUBDOMAIN}`]],
    ['a TLS wildcard host in the middle', (o) => (o.spec.tls[0].hosts[1] = 'a.*.com'), [`spec.tls[0].hosts[1]: Invalid value: "a.*.com": ${WILDCARD}`]],
    ['a TLS secret name that is no Secret name', (o) => (o.spec.tls[0].secretName = 'Foo_TLS'), [`spec.tls[0].secretName: Invalid value: "Foo_TLS": ${SUBDOMAIN}`]],
    ['an invalid ingressClassName', (o) => (o.spec.ingressClassName = 'Nginx'), [`spec.ingressClassName: Invalid value: "Nginx": ${SUBDOMAIN}`]],
    ['a class annotation that disagrees', (o) => (o.metadata = { name: 'x', annotations: { 'kubernetes.io/ingress.class': 'traefik' } }), [
      'annotations.kubernetes.io/ingress.class: Invalid value: "traefik": must match `ingressClassName` when both are specified',
    ]],
    ['a resource default backend without kind', (o) => (o.spec.defaultBackend = { resource: { name: 'static' } }), ['spec.defaultBackend.resource.kind: Required value']],
    ['a resource default backend with a slash in its name', (o) => (o.spec.defaultBackend = { resource: { kind: 'Bucket', name: 'a/b' } }), [`spec.defaultBackend.resource.name: Invalid value: "a/b": may not contain '/'`]],
  ], it)

  it('accepts a default backend alone, and a wildcard host', () => {
    assert.deepEqual(updateErrors(strategy, ingress(), (o) => (o.spec = { defaultBackend: { service: { name: 'web', port: { name: 'http' } } } })), [])
    assert.deepEqual(updateErrors(strategy, ingress(), (o) => (o.spec.rules[0].host = '*.example.com')), [])
  })

  it('keeps a DNS-1123-label service name the stored object had (allowRelaxedServiceNameValidation)', () => {
    const old = ingress()
    old.spec.rules[0].http.paths[0].backend.service.name = '1web'
    assert.deepEqual(updateErrors(strategy, old, (o) => (o.spec.rules[0].http.paths[0].backend.service.name = '2web')), [])
    assert.deepEqual(updateErrors(strategy, ingress(), (o) => (o.spec.rules[0].http.paths[0].backend.service.name = '2web')), [`${P}.backend.service.name: Invalid value: "2web": ${DNS1035}`])
  })

  it('validates the load-balancer status on the status subresource', () => {
    assert.deepEqual(updateErrors(strategy, ingress(), (o) => (o.status = { loadBalancer: { ingress: [{ ip: '300.1.1.1' }, { hostname: '10.0.0.1' }, { hostname: 'LB.example.com' }] } }), 'status'), [
      `status.loadBalancer.ingress[0].ip: Invalid value: "300.1.1.1": ${BAD_IP}`,
      'status.loadBalancer.ingress[1].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
      `status.loadBalancer.ingress[2].hostname: Invalid value: "LB.example.com": ${SUBDOMAIN}`,
    ])
    assert.deepEqual(updateErrors(strategy, ingress(), (o) => (o.status = { loadBalancer: { ingress: [{ ip: '010.1.1.1', hostname: 'lb.example.com' }] } }), 'status'), [])
  })
})

describe('validation/networking: IngressClass', () => {
  const strategy = strategyOf('networking.k8s.io', 'ingressclasses')
  const ingressClass = (): Json => ({ spec: { controller: 'example.com/ingress-controller', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb' } } })
  const params = (o: Json) => o.spec.parameters
  kindTable(strategy, ingressClass, [
    ['no controller', (o) => delete o.spec.controller, ['spec.controller: Required value']],
    ['a controller without a domain', (o) => (o.spec.controller = 'nginx'), ['spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")']],
    ['a controller over 250 bytes', (o) => (o.spec.controller = `example.com/${'a'.repeat(240)}`), ['spec.controller: Too long: may not be more than 250 bytes']],
    ['parameters without kind', (o) => delete params(o).kind, ['spec.parameters.kind: Required value']],
    ['parameters without name', (o) => delete params(o).name, ['spec.parameters.name: Required value']],
    ['a parameters name with a slash', (o) => (params(o).name = 'a/b'), [`spec.parameters.name: Invalid value: "a/b": may not contain '/'`]],
    ['a parameters apiGroup in capitals', (o) => (params(o).apiGroup = 'K8s.example.com'), [`spec.parameters.apiGroup: Invalid value: "K8s.example.com": ${SUBDOMAIN}`]],
    ['an unknown scope', (o) => (params(o).scope = 'Global'), ['spec.parameters.scope: Unsupported value: "Global": supported values: "Cluster", "Namespace"']],
    ['a Namespace scope without namespace', (o) => (params(o).scope = 'Namespace'), ["spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"]],
    ['a Cluster scope with a namespace', (o) => (params(o).namespace = 'default'), ["spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"]],
    ['a namespace that is no DNS label', (o) => Object.assign(params(o), { scope: 'Namespace', namespace: 'Team_A' }), [`spec.parameters.namespace: Invalid value: "Team_A": ${DNS_LABEL}`]],
    ['a namespace with dots (a subdomain, not a label)', (o) => Object.assign(params(o), { scope: 'Namespace', namespace: 'team.a' }), ['spec.parameters.namespace: Invalid value: "team.a": must not contain dots']],
  ], it)

  it('defaults the parameters scope to Cluster', () => {
    assert.equal((created(strategy, ingressClass()) as Json).spec.parameters.scope, 'Cluster')
  })

  it('keeps the controller fixed on update', () => {
    assert.deepEqual(updateErrors(strategy, ingressClass(), (o) => (o.spec.controller = 'example.com/other')), ['spec.controller: Invalid value: "example.com/other": field is immutable'])
    assert.deepEqual(updateErrors(strategy, ingressClass(), (o) => (params(o).name = 'internal-lb')), [])
  })
})

describe('validation/networking: IPAddress', () => {
  const strategy = strategyOf('networking.k8s.io', 'ipaddresses')
  const address = (): Json => ({ metadata: { name: '192.168.1.5' }, spec: { parentRef: { group: '', resource: 'services', name: 'foo', namespace: 'bar' } } })
  const ref = (o: Json) => o.spec.parentRef
  kindTable(strategy, address, [
    ['a name that is no IP', (o) => (o.metadata.name = 'foo'), [`metadata.name: Invalid value: "foo": ${BAD_IP}`]],
    ['a non-canonical IPv6 name', (o) => (o.metadata.name = '2001:db8:0::1'), ['metadata.name: Invalid value: "2001:db8:0::1": must be in canonical form ("2001:db8::1")']],
    ['a name with leading zeros', (o) => (o.metadata.name = '192.168.001.5'), ['metadata.name: Invalid value: "192.168.001.5": must not have leading 0s']],
    ['an IPv4-mapped IPv6 name', (o) => (o.metadata.name = '::ffff:192.168.1.5'), ['metadata.name: Invalid value: "::ffff:192.168.1.5": must not be an IPv4-mapped IPv6 address']],
    ['no parentRef', (o) => delete o.spec.parentRef, ['spec.parentRef: Required value']],
    ['a parentRef without resource', (o) => delete ref(o).resource, ['spec.parentRef.resource: Required value']],
    ['a parentRef without name', (o) => delete ref(o).name, ['spec.parentRef.name: Required value']],
    ['a parentRef group in capitals', (o) => (ref(o).group = 'Example.com'), [`spec.parentRef.group: Invalid value: "Example.com": ${SUBDOMAIN}`]],
    ['a parentRef resource with a slash', (o) => (ref(o).resource = 'a/b'), [`spec.parentRef.resource: Invalid value: "a/b": may not contain '/'`]],
    ['a parentRef namespace of ..', (o) => (ref(o).namespace = '..'), [`spec.parentRef.namespace: Invalid value: "..": may not be '..'`]],
    ['a parentRef name with a percent sign', (o) => (ref(o).name = 'a%b'), [`spec.parentRef.name: Invalid value: "a%b": may not contain '%'`]],
  ], it)

  it('keeps the parentRef fixed on update', () => {
    assert.deepEqual(updateErrors(strategy, address(), (o) => (ref(o).name = 'other')), [
      'spec.parentRef: Invalid value: {"Group":"","Resource":"services","Namespace":"bar","Name":"other"}: field is immutable',
    ])
    assert.deepEqual(updateErrors(strategy, address(), (o) => (o.metadata.labels = { a: 'b' })), [])
  })
})

describe('validation/networking: ServiceCIDR', () => {
  const strategy = strategyOf('networking.k8s.io', 'servicecidrs')
  const cidr = (): Json => ({ spec: { cidrs: ['10.0.0.0/16', '2001:db8::/64'] } })
  kindTable(strategy, cidr, [
    ['no CIDRs', (o) => (o.spec.cidrs = []), ['spec.cidrs: Required value: at least one CIDR required']],
    ['three CIDRs', (o) => o.spec.cidrs.push('10.1.0.0/16'), ['spec.cidrs: Invalid value: {"CIDRs":["10.0.0.0/16","2001:db8::/64","10.1.0.0/16"]}: may only hold up to 2 values']],
    ['a CIDR that does not parse', (o) => (o.spec.cidrs[0] = '10.0.0.0/33'), [`spec.cidrs[0]: Invalid value: "10.0.0.0/33": ${BAD_CIDR}`]],
    ['bits beyond the prefix', (o) => (o.spec.cidrs[0] = '10.0.0.1/16'), ['spec.cidrs[0]: Invalid value: "10.0.0.1/16": must not have bits set beyond the prefix length']],
    ['leading zeros', (o) => (o.spec.cidrs[0] = '010.0.0.0/16'), ['spec.cidrs[0]: Invalid value: "010.0.0.0/16": must not have leading 0s in IP or prefix length']],
    // netutils.IPFamilyOf counts an IPv4-mapped address as IPv4, so the pair is also one family.
    ['an IPv4-mapped IPv6 CIDR', (o) => (o.spec.cidrs[1] = '::ffff:10.0.0.0/104'), [
      'spec.cidrs[1]: Invalid value: "::ffff:10.0.0.0/104": must not have an IPv4-mapped IPv6 address',
      'spec.cidrs: Invalid value: ["10.0.0.0/16","::ffff:10.0.0.0/104"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
    ]],
    ['a non-canonical IPv6 CIDR', (o) => (o.spec.cidrs[1] = '2001:db8:0::/64'), ['spec.cidrs[1]: Invalid value: "2001:db8:0::/64": must be in canonical form ("2001:db8::/64")']],
    ['two IPv4 CIDRs', (o) => (o.spec.cidrs[1] = '10.1.0.0/16'), ['spec.cidrs: Invalid value: ["10.0.0.0/16","10.1.0.0/16"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64']],
    ['two IPv6 CIDRs', (o) => (o.spec.cidrs[0] = '2001:db9::/64'), ['spec.cidrs: Invalid value: ["2001:db9::/64","2001:db8::/64"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64']],
    ['a name in capitals', (o) => (o.metadata = { name: 'Primary' }), [`metadata.name: Invalid value: "Primary": ${SUBDOMAIN}`]],
  ], it)

  it('keeps the CIDRs fixed on update, except a second family added', () => {
    const single = (): Json => ({ spec: { cidrs: ['10.0.0.0/16'] } })
    assert.deepEqual(updateErrors(strategy, cidr(), (o) => (o.spec.cidrs[0] = '10.1.0.0/16')), ['spec.cidrs[0]: Invalid value: "10.1.0.0/16": field is immutable'])
    assert.deepEqual(updateErrors(strategy, cidr(), (o) => (o.spec.cidrs = ['10.0.0.0/16'])), ['spec.cidrs: Invalid value: ["10.0.0.0/16"]: field is immutable'])
    assert.deepEqual(updateErrors(strategy, single(), (o) => o.spec.cidrs.push('2001:db8::/64')), [])
    assert.deepEqual(updateErrors(strategy, single(), (o) => o.spec.cidrs.push('10.1.0.0/16')), [
      'spec.cidrs: Invalid value: ["10.0.0.0/16","10.1.0.0/16"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
    ])
  })
})
