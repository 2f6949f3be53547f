/**
 * Validation of the discovery.k8s.io API group, after the reference's
 * `pkg/apis/discovery/validation/validation.go`: an EndpointSlice's address type is required,
 * known and immutable; at most 1000 endpoints of 1 to 100 addresses each, FQDN addresses as
 * domain names, the endpoints' node names, hostnames and zones; at most 20000 ports, their
 * names unique DNS labels, their protocols and application protocols. (IPv4 and IPv6
 * addresses' syntax is not checked yet.)
 */
import type { KubeObject } from '../registry/object.js'
import { type CauseLike, Path, duplicate, invalid, notSupported, required, tooMany } from './field/index.js'
import { validateDNS1123Label, validateQualifiedName } from './core/common.js'
import { validateLabels } from './meta-v1.js'
import { nameIsDNSSubdomain } from './names.js'
import { isFullyQualifiedDomainName, isValidLabelValue } from './strings.js'
import { arr, obj, str } from './helpers.js'
import { validateImmutableField } from './objectmeta.js'

type ErrorList = CauseLike[]

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6']
const MAX_ENDPOINTS = 1000
const MAX_ADDRESSES = 100
const MAX_PORTS = 20000

function validateAddressType(addressType: string): ErrorList {
  if (addressType === '') return [required(Path.of('addressType'), '')]
  return ADDRESS_TYPES.includes(addressType) ? [] : [notSupported(Path.of('addressType'), addressType, ADDRESS_TYPES)]
}

const PROTOCOLS = ['SCTP', 'TCP', 'UDP']
const MAX_TOPOLOGY_LABELS = 16
const isSet = (v: unknown) => v !== undefined && v !== null

/** An endpoint's node name, topology labels, zone and hostname. */
function validateEndpointFields(e: Record<string, unknown>, idxPath: Path): ErrorList {
  const errs: ErrorList = []
  if (isSet(e.nodeName)) for (const m of nameIsDNSSubdomain(str(e.nodeName), false)) errs.push(invalid(idxPath.child('nodeName'), str(e.nodeName), m))
  const topology = obj(e.deprecatedTopology)
  const topologyPath = idxPath.child('deprecatedTopology')
  if (Object.keys(topology).length > MAX_TOPOLOGY_LABELS) errs.push(tooMany(topologyPath, Object.keys(topology).length, MAX_TOPOLOGY_LABELS))
  errs.push(...validateLabels(topology, topologyPath))
  if (isSet(e.zone)) for (const m of isValidLabelValue(str(e.zone))) errs.push(invalid(idxPath.child('zone'), str(e.zone), m))
  if (isSet(e.hostname)) errs.push(...validateDNS1123Label(str(e.hostname), idxPath.child('hostname')))
  return errs
}

/** validatePorts: names unique DNS labels (or empty), a known protocol, an application protocol as a qualified name. */
function validatePorts(ports: unknown[]): ErrorList {
  const errs: ErrorList = []
  const names = new Set<string>()
  ports.forEach((p, i) => {
    const port = obj(p)
    const idxPath = Path.of('ports').index(i)
    const name = str(port.name)
    if (name.length > 0) errs.push(...validateDNS1123Label(name, idxPath.child('name')))
    if (names.has(name)) errs.push(duplicate(idxPath.child('name'), name))
    else names.add(name)
    if (!isSet(port.protocol)) errs.push(required(idxPath.child('protocol')))
    else if (!PROTOCOLS.includes(str(port.protocol))) errs.push(notSupported(idxPath.child('protocol'), str(port.protocol), PROTOCOLS))
    if (isSet(port.appProtocol)) errs.push(...validateQualifiedName(str(port.appProtocol), idxPath.child('appProtocol')))
  })
  return errs
}

export function validateEndpointSlice(o: KubeObject): ErrorList {
  const errs = validateAddressType(str(o.addressType))
  const endpoints = arr(o.endpoints)
  const p = Path.of('endpoints')
  if (endpoints.length > MAX_ENDPOINTS) errs.push(tooMany(p, endpoints.length, MAX_ENDPOINTS))
  endpoints.forEach((e, i) => {
    const addresses = arr(obj(e).addresses)
    const ap = p.index(i).child('addresses')
    if (addresses.length === 0) errs.push(required(ap, 'must contain at least 1 address'))
    else if (addresses.length > MAX_ADDRESSES) errs.push(invalid(ap, addresses, `must contain at most ${MAX_ADDRESSES} addresses`))
    if (str(o.addressType) === 'FQDN') addresses.forEach((a, ai) => errs.push(...isFullyQualifiedDomainName(ap.index(ai), str(a))))
    errs.push(...validateEndpointFields(obj(e), p.index(i)))
  })
  const ports = arr(o.ports)
  if (ports.length > MAX_PORTS) errs.push(tooMany(Path.of('ports'), ports.length, MAX_PORTS))
  else errs.push(...validatePorts(ports))
  return errs
}

export function validateEndpointSliceUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return [...validateEndpointSlice(o), ...validateImmutableField(str(o.addressType), str(old.addressType), Path.of('addressType'))]
}
