/**
 * Validation of the discovery.k8s.io API group, after the reference's
 * `pkg/apis/discovery/validation/validation.go`, as far as built: an EndpointSlice's address
 * type is required, known and immutable; at most 1000 endpoints of 1 to 100 addresses each, and
 * at most 20000 ports (the addresses' syntax and the ports' fields are not checked yet).
 */
import type { KubeObject } from '../registry/object.js'
import { type CauseLike, Path, invalid, notSupported, required, tooMany } from './field/index.js'
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
  })
  const ports = arr(o.ports)
  if (ports.length > MAX_PORTS) errs.push(tooMany(Path.of('ports'), ports.length, MAX_PORTS))
  return errs
}

export function validateEndpointSliceUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return [...validateEndpointSlice(o), ...validateImmutableField(str(o.addressType), str(old.addressType), Path.of('addressType'))]
}
