/**
 * Validation of the networking.k8s.io API group, after the reference's
 * `pkg/apis/networking/validation/validation.go`: NetworkPolicy (selectors, peers, ipBlock
 * CIDRs, ports and port ranges, policy types), Ingress (rules, hosts, paths and their types,
 * backends, TLS, class name, load-balancer status), IngressClass (controller, parameters),
 * IPAddress (a name that is an IP, its parent reference) and ServiceCIDR (one or two CIDRs,
 * one per family). Bad values the reference passes as internal structs are printed as
 * encoding/json prints them: Go field names, declaration order.
 */
import type { KubeObject } from '../registry/object.js'
import { type ErrorList, Path, Rendered, forbidden, goJSON, invalid, notSupported, required, tooLong } from './field/index.js'
import { type Obj, arr, obj, str } from './helpers.js'
import { validateLabelSelector } from './meta-v1.js'
import { nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain } from './names.js'
import { FIELD_IMMUTABLE_ERROR_MSG, validateImmutableField } from './objectmeta.js'
import {
  ipFamilyOfCIDR,
  isDNS1123Subdomain,
  isDomainPrefixedPath,
  isStrictSubsetCIDR,
  isValidCIDR,
  isValidCIDRForLegacyField,
  isValidIP,
  isValidIPForLegacyField,
  isValidPathSegmentName,
  isValidPortName,
  isValidPortNum,
  isWildcardDNS1123Subdomain,
  parsesAsIP,
} from './strings.js'

const SPEC = Path.of('spec')
const isSet = (v: unknown): boolean => v !== undefined && v !== null
/** StrictIPCIDRValidation is alpha (off) in the reference's 1.35: legacy fields parse sloppily. */
const STRICT_IP_CIDR = false

// ---- NetworkPolicy ----

interface NetworkPolicyValidationOptions {
  allowInvalidLabelValueInSelector: boolean
  allowCIDRsEvenIfInvalid: string[]
}

const PROTOCOLS = ['TCP', 'UDP', 'SCTP']

/** ValidateNetworkPolicyPort. */
function validateNetworkPolicyPort(port: Obj, portPath: Path): ErrorList {
  const errs: ErrorList = []
  if (isSet(port.protocol) && !PROTOCOLS.includes(str(port.protocol))) errs.push(notSupported(portPath.child('protocol'), str(port.protocol), PROTOCOLS))
  const endPort = port.endPort
  if (isSet(port.port)) {
    if (typeof port.port === 'number') {
      for (const m of isValidPortNum(port.port)) errs.push(invalid(portPath.child('port'), port.port, m))
      if (typeof endPort === 'number') {
        if (endPort < port.port) errs.push(invalid(portPath.child('endPort'), endPort, 'must be greater than or equal to `port`'))
        for (const m of isValidPortNum(endPort)) errs.push(invalid(portPath.child('endPort'), endPort, m))
      }
    } else {
      if (isSet(endPort)) errs.push(invalid(portPath.child('endPort'), endPort, 'may not be specified when `port` is non-numeric'))
      const name = str(port.port)
      for (const m of isValidPortName(name)) errs.push(invalid(portPath.child('port'), name, m))
    }
  } else if (isSet(endPort)) errs.push(invalid(portPath.child('endPort'), endPort, 'may not be specified when `port` is not specified'))
  return errs
}

/** ValidateIPBlock: a CIDR, and exceptions strictly inside it (CIDRs already stored stay accepted). */
function validateIPBlock(ipb: Obj, fldPath: Path, opts: NetworkPolicyValidationOptions): ErrorList {
  const cidr = str(ipb.cidr)
  if (cidr === '') return [required(fldPath.child('cidr'))]
  const errs = isValidCIDRForLegacyField(fldPath.child('cidr'), cidr, STRICT_IP_CIDR, opts.allowCIDRsEvenIfInvalid)
  if (isStrictSubsetCIDR(cidr, cidr) === undefined) return errs
  arr(ipb.except).forEach((e, i) => {
    const exceptPath = fldPath.child('except').index(i)
    const except = str(e)
    errs.push(...isValidCIDRForLegacyField(exceptPath, except, STRICT_IP_CIDR, opts.allowCIDRsEvenIfInvalid))
    const subset = isStrictSubsetCIDR(cidr, except)
    if (subset === false) errs.push(invalid(exceptPath, except, 'must be a strict subset of `cidr`'))
  })
  return errs
}

/** ValidateNetworkPolicyPeer: exactly one kind of peer when one is an ipBlock. */
function validateNetworkPolicyPeer(peer: Obj, opts: NetworkPolicyValidationOptions, peerPath: Path): ErrorList {
  const errs: ErrorList = []
  const selectorOpts = { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector }
  let numPeers = 0
  if (isSet(peer.podSelector)) {
    numPeers++
    errs.push(...validateLabelSelector(peer.podSelector, selectorOpts, peerPath.child('podSelector')))
  }
  if (isSet(peer.namespaceSelector)) {
    numPeers++
    errs.push(...validateLabelSelector(peer.namespaceSelector, selectorOpts, peerPath.child('namespaceSelector')))
  }
  if (isSet(peer.ipBlock)) {
    numPeers++
    errs.push(...validateIPBlock(obj(peer.ipBlock), peerPath.child('ipBlock'), opts))
  }
  if (numPeers === 0) errs.push(required(peerPath, 'must specify a peer'))
  else if (numPeers > 1 && isSet(peer.ipBlock)) errs.push(forbidden(peerPath, 'may not specify both ipBlock and another peer'))
  return errs
}

const POLICY_TYPES = ['Ingress', 'Egress']

/** ValidateNetworkPolicySpec. */
function validateNetworkPolicySpec(spec: Obj, opts: NetworkPolicyValidationOptions, fldPath: Path): ErrorList {
  const errs = validateLabelSelector(spec.podSelector ?? {}, { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector }, fldPath.child('podSelector'))
  for (const [list, peers] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    arr(spec[list]).forEach((r, i) => {
      const rulePath = fldPath.child(list).index(i)
      const rule = obj(r)
      arr(rule.ports).forEach((p, j) => errs.push(...validateNetworkPolicyPort(obj(p), rulePath.child('ports').index(j))))
      arr(rule[peers]).forEach((p, j) => errs.push(...validateNetworkPolicyPeer(obj(p), opts, rulePath.child(peers).index(j))))
    })
  }
  const types = arr(spec.policyTypes)
  if (types.length > POLICY_TYPES.length) {
    errs.push(invalid(fldPath.child('policyTypes'), types, 'may not specify more than two policyTypes'))
    return errs
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(str(t))) errs.push(notSupported(fldPath.child('policyTypes').index(i), str(t), POLICY_TYPES))
  })
  return errs
}

/** ValidateNetworkPolicy (create). */
export function validateNetworkPolicy(o: KubeObject): ErrorList {
  return validateNetworkPolicySpec(obj(o.spec), { allowInvalidLabelValueInSelector: false, allowCIDRsEvenIfInvalid: [] }, SPEC)
}

/**
 * ValidateNetworkPolicyUpdate with ValidationOptionsForNetworking: label values the stored
 * pod selector already had invalid stay allowed, and so do the CIDRs the stored policy has.
 */
export function validateNetworkPolicyUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const oldSpec = obj(old.spec)
  const existingCIDRs: string[] = []
  for (const [list, peers] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    for (const r of arr(oldSpec[list])) {
      for (const p of arr(obj(r)[peers])) {
        const ipBlock = obj(p).ipBlock
        if (!isSet(ipBlock)) continue
        existingCIDRs.push(str(obj(ipBlock).cidr), ...arr(obj(ipBlock).except).map((e) => str(e)))
      }
    }
  }
  const allowInvalidLabelValueInSelector = validateLabelSelector(oldSpec.podSelector ?? {}, { allowInvalidLabelValueInSelector: false }, SPEC).length > 0
  return validateNetworkPolicySpec(obj(o.spec), { allowInvalidLabelValueInSelector, allowCIDRsEvenIfInvalid: existingCIDRs }, SPEC)
}

/** SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort (networking/v1). */
export function defaultNetworkPolicy(o: KubeObject): void {
  const spec = obj(o.spec)
  spec.podSelector ??= {}
  if (arr(spec.policyTypes).length === 0) {
    spec.policyTypes = arr(spec.egress).length > 0 ? ['Ingress', 'Egress'] : ['Ingress']
  }
  for (const list of ['ingress', 'egress']) {
    for (const r of arr(spec[list])) for (const p of arr(obj(r).ports)) if (p && typeof p === 'object') (p as Obj).protocol ??= 'TCP'
  }
  o.spec = spec
}

// ---- Ingress ----

interface IngressValidationOptions {
  allowInvalidSecretName: boolean
  allowInvalidWildcardHostRule: boolean
  /** RelaxedServiceNameValidation (alpha, off in 1.35) or a stored DNS-1123-label service name. */
  allowRelaxedServiceNameValidation: boolean
}

const ANNOTATION_INGRESS_CLASS = 'kubernetes.io/ingress.class'
const SUPPORTED_PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix']
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F']
const INVALID_PATH_SUFFIXES = ['/..', '/.']

/**
 * The apiGroup, kind and name of a typed reference: the part the reference's resource-backend
 * and IngressClass-parameters checks share (each is written out in its validation.go).
 */
function validateGroupKindName(params: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (isSet(params.apiGroup)) for (const m of isDNS1123Subdomain(str(params.apiGroup))) errs.push(invalid(fldPath.child('apiGroup'), str(params.apiGroup), m))
  for (const f of ['kind', 'name']) {
    const v = str(params[f])
    if (v === '') errs.push(required(fldPath.child(f)))
    else for (const m of isValidPathSegmentName(v)) errs.push(invalid(fldPath.child(f), v, m))
  }
  return errs
}

/** validateIngressTypedLocalObjectReference (a resource backend). */
function validateIngressTypedLocalObjectReference(params: Obj, fldPath: Path): ErrorList {
  return validateGroupKindName(params, fldPath)
}

/** validateIngressBackend: a resource or a service (with a port name or number), not both. */
function validateIngressBackend(backend: Obj, fldPath: Path, opts: IngressValidationOptions): ErrorList {
  const hasResource = isSet(backend.resource)
  const hasService = isSet(backend.service)
  if (hasResource && hasService) return [invalid(fldPath, '', 'cannot set both resource and service backends')]
  if (hasResource) return validateIngressTypedLocalObjectReference(obj(backend.resource), fldPath.child('resource'))
  if (!hasService) return [invalid(fldPath, '', 'resource or service backend is required')]
  const errs: ErrorList = []
  const service = obj(backend.service)
  const name = str(service.name)
  if (name === '') errs.push(required(fldPath.child('service', 'name')))
  else {
    const validateName = opts.allowRelaxedServiceNameValidation ? nameIsDNSLabel : nameIsDNS1035Label
    for (const m of validateName(name, false)) errs.push(invalid(fldPath.child('service', 'name'), name, m))
  }
  const port = obj(service.port)
  const portName = str(port.name)
  const portNumber = typeof port.number === 'number' ? port.number : 0
  if (portName !== '' && portNumber !== 0) errs.push(invalid(fldPath, '', 'cannot set both port name & port number'))
  else if (portName !== '') for (const m of isValidPortName(portName)) errs.push(invalid(fldPath.child('service', 'port', 'name'), portName, m))
  else if (portNumber !== 0) for (const m of isValidPortNum(portNumber)) errs.push(invalid(fldPath.child('service', 'port', 'number'), portNumber, m))
  else errs.push(required(fldPath, 'port name or number is required'))
  return errs
}

/** validateHTTPIngressPath: a path type, a path that fits it, a backend. */
function validateHTTPIngressPath(path: Obj, fldPath: Path, opts: IngressValidationOptions): ErrorList {
  if (!isSet(path.pathType)) return [required(fldPath.child('pathType'), 'pathType must be specified')]
  const errs: ErrorList = []
  const p = str(path.path)
  const pathType = str(path.pathType)
  switch (pathType) {
    case 'Exact':
    case 'Prefix':
      if (!p.startsWith('/')) errs.push(invalid(fldPath.child('path'), p, 'must be an absolute path'))
      if (p.length > 0) {
        for (const seq of INVALID_PATH_SEQUENCES) if (p.includes(seq)) errs.push(invalid(fldPath.child('path'), p, `must not contain '${seq}'`))
        for (const suffix of INVALID_PATH_SUFFIXES) if (p.endsWith(suffix)) errs.push(invalid(fldPath.child('path'), p, `cannot end with '${suffix}'`))
      }
      break
    case 'ImplementationSpecific':
      if (p.length > 0 && !p.startsWith('/')) errs.push(invalid(fldPath.child('path'), p, 'must be an absolute path'))
      break
    default:
      errs.push(notSupported(fldPath.child('pathType'), pathType, SUPPORTED_PATH_TYPES))
  }
  errs.push(...validateIngressBackend(obj(path.backend), fldPath.child('backend'), opts))
  return errs
}

/** validateIngressRuleValue: an http rule has at least one path. */
function validateIngressRuleValue(rule: Obj, fldPath: Path, opts: IngressValidationOptions): ErrorList {
  if (!isSet(rule.http)) return []
  const http = obj(rule.http)
  const httpPath = fldPath.child('http')
  const errs: ErrorList = []
  const paths = arr(http.paths)
  if (paths.length === 0) errs.push(required(httpPath.child('paths')))
  paths.forEach((p, i) => errs.push(...validateHTTPIngressPath(obj(p), httpPath.child('paths').index(i), opts)))
  return errs
}

/** validateIngressRules: hosts are DNS names (a leading `*.` allowed), not IPs. */
function validateIngressRules(rules: unknown[], fldPath: Path, opts: IngressValidationOptions): ErrorList {
  const errs: ErrorList = []
  rules.forEach((r, i) => {
    const rule = obj(r)
    const host = str(rule.host)
    let wildcardHost = false
    if (host.length > 0) {
      const hostPath = fldPath.index(i).child('host')
      if (parsesAsIP(host)) errs.push(invalid(hostPath, host, 'must be a DNS name, not an IP address'))
      if (host.includes('*')) {
        for (const m of isWildcardDNS1123Subdomain(host)) errs.push(invalid(hostPath, host, m))
        wildcardHost = true
      } else for (const m of isDNS1123Subdomain(host)) errs.push(invalid(hostPath, host, m))
    }
    if (!wildcardHost || !opts.allowInvalidWildcardHostRule) errs.push(...validateIngressRuleValue(rule, fldPath.index(i), opts))
  })
  return errs
}

/** validateTLSSecretName: empty is allowed, else a Secret's name. */
function validateTLSSecretName(name: string): readonly string[] {
  return name.length === 0 ? [] : nameIsDNSSubdomain(name, false)
}

function validateIngressTLS(tlsList: unknown[], fldPath: Path, opts: IngressValidationOptions): ErrorList {
  const errs: ErrorList = []
  tlsList.forEach((t, tlsIndex) => {
    const tls = obj(t)
    arr(tls.hosts).forEach((h, i) => {
      const host = str(h)
      const hostPath = fldPath.index(tlsIndex).child('hosts').index(i)
      const messages = host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host)
      for (const m of messages) errs.push(invalid(hostPath, host, m))
    })
    if (!opts.allowInvalidSecretName) {
      const secretName = str(tls.secretName)
      for (const m of validateTLSSecretName(secretName)) errs.push(invalid(fldPath.index(tlsIndex).child('secretName'), secretName, m))
    }
  })
  return errs
}

/** ValidateIngressSpec. */
function validateIngressSpec(spec: Obj, fldPath: Path, opts: IngressValidationOptions): ErrorList {
  const errs: ErrorList = []
  const rules = arr(spec.rules)
  if (rules.length === 0 && !isSet(spec.defaultBackend)) errs.push(invalid(fldPath, Array.isArray(spec.rules) ? [] : null, 'either `defaultBackend` or `rules` must be specified'))
  if (isSet(spec.defaultBackend)) errs.push(...validateIngressBackend(obj(spec.defaultBackend), fldPath.child('defaultBackend'), opts))
  if (rules.length > 0) errs.push(...validateIngressRules(rules, fldPath.child('rules'), opts))
  const tls = arr(spec.tls)
  if (tls.length > 0) errs.push(...validateIngressTLS(tls, fldPath.child('tls'), opts))
  if (isSet(spec.ingressClassName)) {
    const className = str(spec.ingressClassName)
    for (const m of nameIsDNSSubdomain(className, false)) errs.push(invalid(fldPath.child('ingressClassName'), className, m))
  }
  return errs
}

/** allowInvalidSecretName: a stored TLS secret name already invalid. */
function allowInvalidSecretName(old: Obj): boolean {
  return arr(old.tls).some((t) => validateTLSSecretName(str(obj(t).secretName)).length > 0)
}

/** allowInvalidWildcardHostRule: a stored wildcard rule whose value is already invalid. */
function allowInvalidWildcardHostRule(old: Obj): boolean {
  const none: IngressValidationOptions = { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false, allowRelaxedServiceNameValidation: false }
  return arr(old.rules).some((r) => str(obj(r).host).includes('*') && validateIngressRuleValue(obj(r), SPEC, none).length > 0)
}

/** allowRelaxedServiceNameValidation: a stored service name valid as a DNS-1123 label but not as a DNS-1035 one. */
function allowRelaxedServiceNameValidation(old: Obj): boolean {
  const relaxedOnly = (name: string) => nameIsDNSLabel(name, false).length === 0 && nameIsDNS1035Label(name, false).length > 0
  const defaultService = obj(old.defaultBackend).service
  if (isSet(defaultService) && relaxedOnly(str(obj(defaultService).name))) return true
  for (const r of arr(old.rules)) {
    for (const p of arr(obj(obj(r).http).paths)) {
      const service = obj(obj(p).backend).service
      if (isSet(service) && relaxedOnly(str(obj(service).name))) return true
    }
  }
  return false
}

/** ValidateIngressCreate: the spec, and the class annotation agreeing with ingressClassName. */
export function validateIngress(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const errs = validateIngressSpec(spec, SPEC, { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false, allowRelaxedServiceNameValidation: false })
  const annotation = o.metadata.annotations?.[ANNOTATION_INGRESS_CLASS]
  if (annotation !== undefined && isSet(spec.ingressClassName) && annotation !== str(spec.ingressClassName)) {
    errs.push(invalid(Path.of('annotations').child(ANNOTATION_INGRESS_CLASS), annotation, 'must match `ingressClassName` when both are specified'))
  }
  return errs
}

/** ValidateIngressUpdate: the spec, with what the stored object already had tolerated. */
export function validateIngressUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const oldSpec = obj(old.spec)
  return validateIngressSpec(obj(o.spec), SPEC, {
    allowInvalidSecretName: allowInvalidSecretName(oldSpec),
    allowInvalidWildcardHostRule: allowInvalidWildcardHostRule(oldSpec),
    allowRelaxedServiceNameValidation: allowRelaxedServiceNameValidation(oldSpec),
  })
}

/** ValidateIngressLoadBalancerStatus: IPs (stored ones kept), hostnames that are DNS names. */
export function validateIngressLoadBalancerStatus(status: Obj, oldStatus: Obj, fldPath: Path): ErrorList {
  const existingIPs = arr(oldStatus.ingress)
    .map((i) => str(obj(i).ip))
    .filter((ip) => ip.length > 0)
  const errs: ErrorList = []
  arr(status.ingress).forEach((entry, i) => {
    const ingress = obj(entry)
    const idxPath = fldPath.child('ingress').index(i)
    const ip = str(ingress.ip)
    if (ip.length > 0) errs.push(...isValidIPForLegacyField(idxPath.child('ip'), ip, STRICT_IP_CIDR, existingIPs))
    const hostname = str(ingress.hostname)
    if (hostname.length > 0) {
      for (const m of isDNS1123Subdomain(hostname)) errs.push(invalid(idxPath.child('hostname'), hostname, m))
      if (parsesAsIP(hostname)) errs.push(invalid(idxPath.child('hostname'), hostname, 'must be a DNS name, not an IP address'))
    }
  })
  return errs
}

/** ValidateIngressStatusUpdate. */
export function validateIngressStatusUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return validateIngressLoadBalancerStatus(obj(obj(o.status).loadBalancer), obj(obj(old.status).loadBalancer), Path.of('status', 'loadBalancer'))
}

// ---- IngressClass ----

const MAX_LEN_INGRESS_CLASS_CONTROLLER = 250
const PARAMETER_SCOPES = ['Cluster', 'Namespace']

/** validateIngressClassParametersReference. */
function validateIngressClassParametersReference(params: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = validateGroupKindName(params, fldPath)
  if (!isSet(params.scope)) {
    errs.push(required(fldPath.child('scope')))
    return errs
  }
  const scope = str(params.scope)
  if (!PARAMETER_SCOPES.includes(scope)) {
    errs.push(notSupported(fldPath.child('scope'), scope, PARAMETER_SCOPES))
    return errs
  }
  if (scope === 'Namespace') {
    if (!isSet(params.namespace)) errs.push(required(fldPath.child('namespace'), "`parameters.scope` is set to 'Namespace'"))
    else for (const m of nameIsDNSLabel(str(params.namespace), false)) errs.push(invalid(fldPath.child('namespace'), str(params.namespace), m))
  }
  if (scope === 'Cluster' && isSet(params.namespace)) errs.push(forbidden(fldPath.child('namespace'), "`parameters.scope` is set to 'Cluster'"))
  return errs
}

/** validateIngressClassSpec: a domain-prefixed controller of at most 250 bytes, valid parameters. */
function validateIngressClassSpec(spec: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const controller = str(spec.controller)
  if (controller.length === 0) errs.push(required(fldPath.child('controller')))
  else {
    if (Buffer.byteLength(controller) > MAX_LEN_INGRESS_CLASS_CONTROLLER) errs.push(tooLong(fldPath.child('controller'), MAX_LEN_INGRESS_CLASS_CONTROLLER))
    errs.push(...isDomainPrefixedPath(fldPath.child('controller'), controller))
  }
  if (isSet(spec.parameters)) errs.push(...validateIngressClassParametersReference(obj(spec.parameters), fldPath.child('parameters')))
  return errs
}

/** ValidateIngressClass (create). */
export function validateIngressClass(o: KubeObject): ErrorList {
  return validateIngressClassSpec(obj(o.spec), SPEC)
}

/** ValidateIngressClassUpdate: the controller is fixed. */
export function validateIngressClassUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return [...validateImmutableField(str(obj(o.spec).controller), str(obj(old.spec).controller), SPEC.child('controller')), ...validateIngressClass(o)]
}

/** SetDefaults_IngressClass: parameters without a scope are cluster-scoped. */
export function defaultIngressClass(o: KubeObject): void {
  const parameters = obj(o.spec).parameters
  if (parameters && typeof parameters === 'object') (parameters as Obj).scope ??= 'Cluster'
}

// ---- IPAddress ----

/** ValidateIPAddressName: the name is an IP address in canonical form. */
export function ipAddressName(name: string): string[] {
  return isValidIP(undefined, name).map((e) => e.detail)
}

/** The internal ParentReference as encoding/json prints it (no JSON tags: Go names, all fields). */
function parentRefJSON(ref: unknown): Rendered | null {
  if (!isSet(ref)) return null
  const r = obj(ref)
  return new Rendered(`{"Group":${goJSON(str(r.group))},"Resource":${goJSON(str(r.resource))},"Namespace":${goJSON(str(r.namespace))},"Name":${goJSON(str(r.name))}}`)
}

/** validateIPAddressParentReference: resource and name required, each a path segment. */
function validateIPAddressParentReference(ref: unknown, fldPath: Path): ErrorList {
  if (!isSet(ref)) return [required(fldPath.child('parentRef'))]
  const p = fldPath.child('parentRef')
  const params = obj(ref)
  const errs: ErrorList = []
  const group = str(params.group)
  if (group !== '') for (const m of isDNS1123Subdomain(group)) errs.push(invalid(p.child('group'), group, m))
  for (const f of ['resource', 'name']) {
    const v = str(params[f])
    if (v === '') errs.push(required(p.child(f)))
    else for (const m of isValidPathSegmentName(v)) errs.push(invalid(p.child(f), v, m))
  }
  const namespace = str(params.namespace)
  if (namespace !== '') for (const m of isValidPathSegmentName(namespace)) errs.push(invalid(p.child('namespace'), namespace, m))
  return errs
}

/** ValidateIPAddress (create). */
export function validateIPAddress(o: KubeObject): ErrorList {
  return validateIPAddressParentReference(obj(o.spec).parentRef, SPEC)
}

/** ValidateIPAddressUpdate: the parent reference is fixed. */
export function validateIPAddressUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const now = obj(o.spec).parentRef
  const before = obj(old.spec).parentRef
  if (JSON.stringify(parentRefJSON(now)) === JSON.stringify(parentRefJSON(before))) return []
  return [invalid(SPEC.child('parentRef'), parentRefJSON(now), FIELD_IMMUTABLE_ERROR_MSG)]
}

// ---- ServiceCIDR ----

/** validateServiceCIDRSpec: one or two valid CIDRs, at most one of each IP family. */
function validateServiceCIDRSpec(spec: Obj, fldPath: Path): ErrorList {
  const cidrs = arr(spec.cidrs).map((c) => str(c))
  if (cidrs.length === 0) return [required(fldPath, 'at least one CIDR required')]
  if (cidrs.length > 2) return [invalid(fldPath, new Rendered(`{"CIDRs":${goJSON(cidrs)}}`), 'may only hold up to 2 values')]
  const errs: ErrorList = []
  cidrs.forEach((c, i) => errs.push(...isValidCIDR(fldPath.index(i), c)))
  if (cidrs.length === 2 && ipFamilyOfCIDR(cidrs[0]!) === ipFamilyOfCIDR(cidrs[1]!) && ipFamilyOfCIDR(cidrs[0]!) !== '') {
    errs.push(invalid(fldPath, cidrs, 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'))
  }
  return errs
}

const CIDRS = Path.of('spec', 'cidrs')

/** ValidateServiceCIDR (create). */
export function validateServiceCIDR(o: KubeObject): ErrorList {
  return validateServiceCIDRSpec(obj(o.spec), CIDRS)
}

/** ValidateServiceCIDRUpdate: CIDRs fixed, except a second one added to a single-family range. */
export function validateServiceCIDRUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const now = arr(obj(o.spec).cidrs).map((c) => str(c))
  const before = arr(obj(old.spec).cidrs).map((c) => str(c))
  const errs: ErrorList = []
  if (now.length === before.length) {
    before.forEach((c, i) => {
      if (c !== now[i]) errs.push(invalid(CIDRS.index(i), now[i]!, FIELD_IMMUTABLE_ERROR_MSG))
    })
  } else if (before.length === 1 && now.length === 2) {
    if (now[0] !== before[0]) errs.push(invalid(CIDRS.index(0), now[0]!, FIELD_IMMUTABLE_ERROR_MSG))
    errs.push(...validateServiceCIDRSpec(obj(o.spec), CIDRS))
  } else errs.push(invalid(CIDRS, Array.isArray(obj(o.spec).cidrs) ? now : null, FIELD_IMMUTABLE_ERROR_MSG))
  return errs
}
