/**
 * Endpoints (pkg/apis/core/validation: ValidateEndpoints, validateEndpointSubsets,
 * validateEndpointAddress, ValidateNonSpecialIP, validateEndpointPort).
 */
import { type ErrorList, Path, invalid, notSupported, required } from '../field/index.js'
import { type Obj, arr, obj, str } from '../helpers.js'
import { nameIsDNSSubdomain } from '../names.js'
import { isValidIP, isValidPortNum } from '../strings.js'
import { validateDNS1123Label, validateQualifiedName } from './common.js'

const PROTOCOLS = ['SCTP', 'TCP', 'UDP']

/** The bytes of an IPv4 or IPv6 address written the sloppy way, or undefined. */
function ipBytes(ip: string): number[] | undefined {
  if (isValidIP('x', ip).length > 0 && !/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) return undefined
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) {
    const b = ip.split('.').map(Number)
    return b.some((x) => x > 255) ? undefined : b
  }
  const halves = ip.toLowerCase().split('::')
  const part = (h: string) => (h ? h.split(':') : [])
  const head = part(halves[0] ?? '')
  const tail = part(halves[1] ?? '')
  const groups = [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail].map((g) => parseInt(g, 16))
  const bytes: number[] = []
  for (const g of groups) bytes.push(g >> 8, g & 255)
  if (bytes.slice(0, 10).every((x) => x === 0) && bytes[10] === 255 && bytes[11] === 255) return bytes.slice(12)
  return bytes
}

/** ValidateNonSpecialIP: not unspecified, loopback or link-local. */
export function validateNonSpecialIP(ip: string, fldPath: Path): ErrorList {
  const b = ipBytes(ip)
  if (!b) return [invalid(fldPath, ip, 'must be a valid IP address')]
  const errs: ErrorList = []
  const v4 = b.length === 4
  if (b.every((x) => x === 0)) errs.push(invalid(fldPath, ip, `may not be unspecified (${ip})`))
  if (v4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1) errs.push(invalid(fldPath, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'))
  if (v4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) errs.push(invalid(fldPath, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'))
  if (v4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02) errs.push(invalid(fldPath, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'))
  return errs
}

function validateEndpointAddress(address: Obj, fldPath: Path): ErrorList {
  const ip = str(address.ip)
  const errs = isValidIP(fldPath.child('ip'), ip)
  if (str(address.hostname)) errs.push(...validateDNS1123Label(str(address.hostname), fldPath.child('hostname')))
  if (address.nodeName !== undefined && address.nodeName !== null) {
    for (const m of nameIsDNSSubdomain(str(address.nodeName), false)) errs.push(invalid(fldPath.child('nodeName'), str(address.nodeName), m))
  }
  errs.push(...validateNonSpecialIP(ip, fldPath.child('ip')))
  return errs
}

function validateEndpointPort(port: Obj, requireName: boolean, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const name = str(port.name)
  if (requireName && !name) errs.push(required(fldPath.child('name')))
  else if (name) errs.push(...validateDNS1123Label(name, fldPath.child('name')))
  const p = typeof port.port === 'number' ? port.port : 0
  for (const m of isValidPortNum(p)) errs.push(invalid(fldPath.child('port'), p, m))
  const protocol = str(port.protocol)
  if (!protocol) errs.push(required(fldPath.child('protocol')))
  else if (!PROTOCOLS.includes(protocol)) errs.push(notSupported(fldPath.child('protocol'), protocol, PROTOCOLS))
  if (port.appProtocol !== undefined && port.appProtocol !== null) errs.push(...validateQualifiedName(str(port.appProtocol), fldPath.child('appProtocol')))
  return errs
}

/** ValidateEndpoints (metadata by the generic store). */
export function validateEndpoints(o: Obj): ErrorList {
  const errs: ErrorList = []
  const fldPath = Path.of('subsets')
  arr(o.subsets).forEach((s, i) => {
    const ss = obj(s)
    const idx = fldPath.index(i)
    if (arr(ss.addresses).length === 0 && arr(ss.notReadyAddresses).length === 0) errs.push(required(idx, 'must specify `addresses` or `notReadyAddresses`'))
    arr(ss.addresses).forEach((a, j) => errs.push(...validateEndpointAddress(obj(a), idx.child('addresses').index(j))))
    arr(ss.notReadyAddresses).forEach((a, j) => errs.push(...validateEndpointAddress(obj(a), idx.child('notReadyAddresses').index(j))))
    const ports = arr(ss.ports)
    ports.forEach((p, j) => errs.push(...validateEndpointPort(obj(p), ports.length > 1, idx.child('ports').index(j))))
  })
  return errs
}
