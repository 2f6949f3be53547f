/**
 * Services (pkg/apis/core/validation: ValidateService, validateServicePort,
 * ValidateServiceClusterIPsRelatedFields, the traffic policies, ValidateServiceUpdate with
 * its cluster IP, IP family and load balancer class rules, ValidateServiceStatusUpdate).
 */
import { type ErrorList, Path, duplicate, forbidden, invalid, notSupported, required, Rendered } from '../field/index.js'
import { type Obj, arr, obj, str } from '../helpers.js'
import { validateLabels } from '../meta-v1.js'
import { isDNS1123Subdomain, isIPv6String, isValidCIDR, isValidIP, isValidIPForLegacyField, isValidPortNum } from '../strings.js'
import { validateDNS1123Label, validatePortNumOrName, validateQualifiedName } from './common.js'
import { validateNonSpecialIP } from './endpoints.js'

const SPEC = Path.of('spec')
const PROTOCOLS = ['SCTP', 'TCP', 'UDP']
const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort']
const has = (o: Obj, k: string) => o[k] !== undefined && o[k] !== null
const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400

/** The cluster IPs as the strategy normalizes them before validation (clusterIPs[0] is clusterIP). */
function clusterIPsOf(spec: Obj): string[] {
  const ips = arr(spec.clusterIPs).map((x) => str(x))
  if (ips.length === 0 && str(spec.clusterIP)) return [str(spec.clusterIP)]
  return ips
}

function isHeadless(spec: Obj): boolean {
  const ips = clusterIPsOf(spec)
  return ips.length === 1 && ips[0] === 'None'
}

function validateServicePort(sp: Obj, requireName: boolean, names: Set<string>, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const name = str(sp.name)
  if (requireName && !name) errs.push(required(fldPath.child('name')))
  else if (name) {
    errs.push(...validateDNS1123Label(name, fldPath.child('name')))
    if (names.has(name)) errs.push(duplicate(fldPath.child('name'), name))
    else names.add(name)
  }
  const port = typeof sp.port === 'number' ? sp.port : 0
  for (const m of isValidPortNum(port)) errs.push(invalid(fldPath.child('port'), port, m))
  const protocol = str(sp.protocol)
  if (!protocol) errs.push(required(fldPath.child('protocol')))
  else if (!PROTOCOLS.includes(protocol)) errs.push(notSupported(fldPath.child('protocol'), protocol, PROTOCOLS))
  errs.push(...validatePortNumOrName(sp.targetPort, fldPath.child('targetPort')))
  if (has(sp, 'appProtocol')) errs.push(...validateQualifiedName(str(sp.appProtocol), fldPath.child('appProtocol')))
  return errs
}

function validateClusterIPsRelatedFields(spec: Obj): ErrorList {
  if (str(spec.type) === 'ExternalName') return []
  const errs: ErrorList = []
  const ipsPath = SPEC.child('clusterIPs')
  const famPath = SPEC.child('ipFamilies')
  const ips = clusterIPsOf(spec)
  if (str(spec.clusterIP)) {
    if (ips.length === 0) errs.push(required(ipsPath))
    else if (ips[0] !== str(spec.clusterIP)) errs.push(invalid(ipsPath, ips, 'first value must match `clusterIP`'))
  } else if (ips.length !== 0) errs.push(invalid(ipsPath, ips, 'must be empty when `clusterIP` is not specified'))
  const seen = new Set<string>()
  arr(spec.ipFamilies).forEach((f, i) => {
    const fam = str(f)
    if (fam !== 'IPv4' && fam !== 'IPv6') errs.push(notSupported(famPath.index(i), fam, ['IPv4', 'IPv6']))
    if (seen.has(fam)) errs.push(duplicate(famPath.index(i), fam))
    seen.add(fam)
  })
  if (has(spec, 'ipFamilyPolicy') && !['PreferDualStack', 'RequireDualStack', 'SingleStack'].includes(str(spec.ipFamilyPolicy))) {
    errs.push(notSupported(SPEC.child('ipFamilyPolicy'), str(spec.ipFamilyPolicy), ['PreferDualStack', 'RequireDualStack', 'SingleStack']))
  }
  let hasInvalidIPs = false
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) {
        hasInvalidIPs = true
        errs.push(invalid(ipsPath, ips, "'None' must be the first and only value"))
      }
      return
    }
    const e = isValidIP(ipsPath.index(i), ip)
    if (e.length > 0) hasInvalidIPs = true
    errs.push(...e)
  })
  if (ips.length > 2) errs.push(invalid(ipsPath, ips, 'may only hold up to 2 values'))
  if (hasInvalidIPs) return errs
  if (ips.length > 1 && isIPv6String(ips[0]!) === isIPv6String(ips[1]!)) errs.push(invalid(ipsPath, ips, 'may specify no more than one IP for each IP family'))
  const families = arr(spec.ipFamilies).map((f) => str(f))
  if (!isHeadless(spec) && ips.length > 0 && families.length > 0) {
    ips.forEach((ip, i) => {
      if (i > families.length - 1) return
      if (families[i] === 'IPv4' && isIPv6String(ip)) errs.push(invalid(ipsPath.index(i), ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``))
      if (families[i] === 'IPv6' && !isIPv6String(ip)) errs.push(invalid(ipsPath.index(i), ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``))
    })
  }
  return errs
}

const LB_SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges'
const TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode'
const TOPOLOGY_HINTS = 'service.kubernetes.io/topology-aware-hints'

/** ValidateService (metadata by the generic store). */
export function validateService(o: Obj): ErrorList {
  const spec = obj(o.spec)
  const ann = obj(obj(o.metadata).annotations)
  const errs: ErrorList = []
  const type = str(spec.type)
  if (TOPOLOGY_MODE in ann && TOPOLOGY_HINTS in ann && ann[TOPOLOGY_MODE] !== ann[TOPOLOGY_HINTS]) {
    errs.push(invalid(Path.of('metadata', 'annotations').key(TOPOLOGY_MODE), str(ann[TOPOLOGY_MODE]), `must match annotations[${TOPOLOGY_HINTS}] when both are specified`))
  }
  const ports = arr(spec.ports).map(obj)
  const headless = isHeadless(spec)
  if (ports.length === 0 && !headless && type !== 'ExternalName') errs.push(required(SPEC.child('ports')))
  if (type === 'LoadBalancer' && headless) errs.push(invalid(SPEC.child('clusterIPs').index(0), 'None', 'may not be set to \'None\' for LoadBalancer services'))
  if (type === 'NodePort' && headless) errs.push(invalid(SPEC.child('clusterIPs').index(0), 'None', "may not be set to 'None' for NodePort services"))
  if (type === 'ExternalName') {
    if (clusterIPsOf(spec).length > 0) errs.push(forbidden(SPEC.child('clusterIPs'), 'may not be set for ExternalName services'))
    if (arr(spec.ipFamilies).length > 0) errs.push(forbidden(SPEC.child('ipFamilies'), 'may not be set for ExternalName services'))
    if (has(spec, 'ipFamilyPolicy')) errs.push(forbidden(SPEC.child('ipFamilyPolicy'), 'may not be set for ExternalName services'))
    const cname = str(spec.externalName).replace(/\.$/, '')
    if (cname) for (const m of isDNS1123Subdomain(cname)) errs.push(invalid(SPEC.child('externalName'), cname, m))
    else errs.push(required(SPEC.child('externalName')))
  }
  const names = new Set<string>()
  ports.forEach((p, i) => errs.push(...validateServicePort(p, ports.length > 1, names, SPEC.child('ports').index(i))))
  if (has(spec, 'selector')) errs.push(...validateLabels(spec.selector, SPEC.child('selector')))
  const affinity = str(spec.sessionAffinity)
  if (!affinity) errs.push(required(SPEC.child('sessionAffinity')))
  else if (affinity !== 'ClientIP' && affinity !== 'None') errs.push(notSupported(SPEC.child('sessionAffinity'), affinity, ['ClientIP', 'None']))
  const configPath = SPEC.child('sessionAffinityConfig')
  if (affinity === 'ClientIP') {
    const cfg = spec.sessionAffinityConfig
    const when = 'when session affinity type is ClientIP'
    if (cfg === undefined || cfg === null) errs.push(required(configPath, when))
    else if (!has(obj(cfg), 'clientIP')) errs.push(required(configPath.child('clientIP'), when))
    else {
      const timeout = obj(obj(cfg).clientIP).timeoutSeconds
      if (typeof timeout !== 'number') errs.push(required(configPath.child('clientIP').child('timeoutSeconds'), when))
      else if (timeout <= 0 || timeout > MAX_CLIENT_IP_AFFINITY_SECONDS) {
        errs.push(invalid(configPath.child('clientIP').child('timeoutSeconds'), timeout, `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`))
      }
    }
  } else if (affinity === 'None' && has(spec, 'sessionAffinityConfig')) {
    errs.push(forbidden(configPath, 'must not be set when session affinity is None'))
  }
  errs.push(...validateClusterIPsRelatedFields(spec))
  arr(spec.externalIPs).forEach((ip, i) => {
    const p = SPEC.child('externalIPs').index(i)
    const e = isValidIP(p, str(ip))
    errs.push(...(e.length > 0 ? e : validateNonSpecialIP(str(ip), p)))
  })
  if (!type) errs.push(required(SPEC.child('type')))
  else if (!SERVICE_TYPES.includes(type)) errs.push(notSupported(SPEC.child('type'), type, SERVICE_TYPES))
  if (type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (typeof p.nodePort === 'number' && p.nodePort !== 0) errs.push(forbidden(SPEC.child('ports').index(i).child('nodePort'), "may not be used when `type` is 'ClusterIP'"))
    })
  }
  const nodePorts = new Set<string>()
  ports.forEach((p, i) => {
    if (typeof p.nodePort !== 'number' || p.nodePort === 0) return
    const key = `${str(p.protocol)}/${p.nodePort}`
    if (nodePorts.has(key)) errs.push(duplicate(SPEC.child('ports').index(i).child('nodePort'), p.nodePort))
    nodePorts.add(key)
  })
  const portKeys = new Set<string>()
  ports.forEach((p, i) => {
    const port = typeof p.port === 'number' ? p.port : 0
    const key = `${str(p.protocol)}/${port}`
    // The reference prints the internal ServicePort it used as the key (its json.Marshal).
    if (portKeys.has(key)) errs.push(duplicate(SPEC.child('ports').index(i), new Rendered(`{"Name":"","Protocol":${JSON.stringify(str(p.protocol))},"AppProtocol":null,"Port":${port},"TargetPort":0,"NodePort":0}`)))
    portKeys.add(key)
  })
  const ranges = arr(spec.loadBalancerSourceRanges).map((r) => str(r))
  if (ranges.length > 0) {
    const p = SPEC.child('LoadBalancerSourceRanges')
    if (type !== 'LoadBalancer') errs.push(forbidden(p, "may only be used when `type` is 'LoadBalancer'"))
    ranges.forEach((r, i) => errs.push(...isValidCIDR(p.index(i), r.trim())))
  } else if (LB_SOURCE_RANGES_ANNOTATION in ann) {
    const p = Path.of('metadata', 'annotations').key(LB_SOURCE_RANGES_ANNOTATION)
    if (type !== 'LoadBalancer') errs.push(forbidden(p, "may only be used when `type` is 'LoadBalancer'"))
    const val = str(ann[LB_SOURCE_RANGES_ANNOTATION]).trim()
    if (val) for (const c of val.split(',')) errs.push(...isValidCIDR(p, c.trim()))
  }
  if (has(spec, 'allocateLoadBalancerNodePorts') && type !== 'LoadBalancer') errs.push(forbidden(SPEC.child('allocateLoadBalancerNodePorts'), "may only be used when `type` is 'LoadBalancer'"))
  if (type === 'LoadBalancer' && !has(spec, 'allocateLoadBalancerNodePorts')) errs.push(required(Path.of('allocateLoadBalancerNodePorts')))
  errs.push(...validateLoadBalancerClass(undefined, spec))
  errs.push(...validateExternalTrafficPolicy(spec))
  if (!has(spec, 'internalTrafficPolicy')) {
    if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP') errs.push(required(SPEC.child('internalTrafficPolicy')))
  } else if (!['Cluster', 'Local'].includes(str(spec.internalTrafficPolicy))) {
    errs.push(notSupported(SPEC.child('internalTrafficPolicy'), str(spec.internalTrafficPolicy), ['Cluster', 'Local']))
  }
  if (has(spec, 'trafficDistribution') && !['PreferClose', 'PreferSameZone', 'PreferSameNode'].includes(str(spec.trafficDistribution))) {
    errs.push(notSupported(SPEC.child('trafficDistribution'), str(spec.trafficDistribution), ['PreferClose', 'PreferSameZone', 'PreferSameNode']))
  }
  return errs
}

/** apiservice.ExternallyAccessible: NodePort, LoadBalancer, or ClusterIP with external IPs. */
function externallyAccessible(spec: Obj): boolean {
  const type = str(spec.type)
  return type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && arr(spec.externalIPs).length > 0)
}

function validateExternalTrafficPolicy(spec: Obj): ErrorList {
  const errs: ErrorList = []
  const policy = str(spec.externalTrafficPolicy)
  if (!externallyAccessible(spec)) {
    if (policy) errs.push(invalid(SPEC.child('externalTrafficPolicy'), policy, 'may only be set for externally-accessible services'))
  } else if (!policy) errs.push(required(SPEC.child('externalTrafficPolicy')))
  else if (policy !== 'Cluster' && policy !== 'Local') errs.push(notSupported(SPEC.child('externalTrafficPolicy'), policy, ['Cluster', 'Local']))
  const hc = typeof spec.healthCheckNodePort === 'number' ? spec.healthCheckNodePort : 0
  const needsHealthCheck = str(spec.type) === 'LoadBalancer' && policy === 'Local'
  if (!needsHealthCheck) {
    if (hc !== 0) errs.push(invalid(SPEC.child('healthCheckNodePort'), hc, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
  } else if (hc !== 0) {
    // Zero is allocated by the registry after validation here (before it in the reference).
    for (const m of isValidPortNum(hc)) errs.push(invalid(SPEC.child('healthCheckNodePort'), hc, m))
  }
  return errs
}

function validateLoadBalancerClass(oldSpec: Obj | undefined, spec: Obj): ErrorList {
  const errs: ErrorList = []
  const path = SPEC.child('loadBalancerClass')
  if (oldSpec && str(oldSpec.type) === 'LoadBalancer' && str(spec.type) === 'LoadBalancer' && (oldSpec.loadBalancerClass ?? null) !== (spec.loadBalancerClass ?? null)) {
    errs.push(invalid(path, spec.loadBalancerClass ?? null, 'may not change once set'))
  }
  if (str(spec.type) === 'LoadBalancer') {
    if (has(spec, 'loadBalancerClass')) errs.push(...validateQualifiedName(str(spec.loadBalancerClass), path))
  } else if (has(spec, 'loadBalancerClass')) errs.push(forbidden(path, "may only be used when `type` is 'LoadBalancer'"))
  return errs
}

/** ValidateServiceUpdate (beyond metadata): cluster IPs and families fixed once set. */
export function validateServiceUpdate(o: Obj, old: Obj): ErrorList {
  const spec = obj(o.spec)
  const oldSpec = obj(old.spec)
  const errs: ErrorList = []
  const notExternal = str(spec.type) !== 'ExternalName' && str(oldSpec.type) !== 'ExternalName'
  const ipsPath = SPEC.child('clusterIPs')
  const newIPs = clusterIPsOf(spec)
  const oldIPs = clusterIPsOf(oldSpec)
  if (notExternal && !(isHeadless(spec) && isHeadless(oldSpec))) {
    if (oldIPs.length === newIPs.length) {
      oldIPs.forEach((ip, i) => {
        if (ip !== newIPs[i]) errs.push(invalid(ipsPath.index(i), newIPs, 'may not change once set'))
      })
    } else if (oldIPs.length > newIPs.length) {
      if (newIPs.length === 0) errs.push(invalid(ipsPath.index(0), newIPs.length === 0 ? null : newIPs, 'primary clusterIP can not be unset'))
      if (oldIPs.length > 0 && newIPs.length > 0 && newIPs[0] !== oldIPs[0]) errs.push(invalid(ipsPath.index(0), newIPs, 'may not change once set'))
      if (newIPs.length === 1 && str(spec.ipFamilyPolicy) !== 'SingleStack') {
        errs.push(invalid(SPEC.child('ipFamilyPolicy'), spec.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary clusterIP"))
      }
    } else if (oldIPs.length > 0 && newIPs[0] !== oldIPs[0]) errs.push(invalid(ipsPath.index(0), newIPs, 'may not change once set'))
  }
  const famPath = SPEC.child('ipFamilies')
  const newFam = arr(spec.ipFamilies).map((f) => str(f))
  const oldFam = arr(oldSpec.ipFamilies).map((f) => str(f))
  if (notExternal && isHeadless(spec) === isHeadless(oldSpec) && !isHeadless(spec)) {
    if (oldFam.length === newFam.length) {
      oldFam.forEach((f, i) => {
        if (f !== newFam[i]) errs.push(invalid(famPath.index(0), newFam, 'may not change once set'))
      })
    } else if (oldFam.length > newFam.length) {
      if (newIPs.length === 0) errs.push(invalid(famPath.index(0), newFam, 'primary ipFamily can not be unset'))
      if (newFam.length > 0 && newFam[0] !== oldFam[0]) errs.push(invalid(famPath.index(0), newIPs, 'may not change once set'))
      if (newFam.length === 1 && str(spec.ipFamilyPolicy) !== 'SingleStack') {
        errs.push(invalid(SPEC.child('ipFamilyPolicy'), spec.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary ipFamily"))
      }
    } else if (oldFam.length > 0 && newFam.length > 0 && newFam[0] !== oldFam[0]) errs.push(invalid(famPath.index(0), newIPs, 'may not change once set'))
  }
  errs.push(...validateLoadBalancerClass(oldSpec, spec).filter((e) => e.detail === 'may not change once set'))
  const oldNeeds = str(oldSpec.type) === 'LoadBalancer' && str(oldSpec.externalTrafficPolicy) === 'Local'
  const newNeeds = str(spec.type) === 'LoadBalancer' && str(spec.externalTrafficPolicy) === 'Local'
  if (oldNeeds && newNeeds && (spec.healthCheckNodePort ?? 0) !== (oldSpec.healthCheckNodePort ?? 0)) errs.push(forbidden(SPEC.child('healthCheckNodePort'), 'field is immutable'))
  return [...errs, ...validateService(o)]
}

/** ValidateServiceStatusUpdate (beyond metadata): the load balancer's ingress points. */
export function validateServiceStatusUpdate(o: Obj): ErrorList {
  const spec = obj(o.spec)
  const ingress = arr(obj(obj(o.status).loadBalancer).ingress).map(obj)
  const p = Path.of('status', 'loadBalancer', 'ingress')
  const errs: ErrorList = []
  // AllowServiceLBStatusOnNonLB is off: only LoadBalancer services report ingress points.
  if (str(spec.type) !== 'LoadBalancer' && ingress.length !== 0) return [forbidden(p, "may only be used when `spec.type` is 'LoadBalancer'")]
  ingress.forEach((ing, i) => {
    const idx = p.index(i)
    const ip = str(ing.ip)
    if (ip) errs.push(...isValidIP(idx.child('ip'), ip))
    if (!has(ing, 'ipMode')) {
      if (ip) errs.push(required(idx.child('ipMode'), 'must be specified when `ip` is set'))
    } else if (!ip) errs.push(forbidden(idx.child('ipMode'), 'may not be specified when `ip` is not set'))
    else if (!['Proxy', 'VIP'].includes(str(ing.ipMode))) errs.push(notSupported(idx.child('ipMode'), str(ing.ipMode), ['Proxy', 'VIP']))
    const hostname = str(ing.hostname)
    if (hostname) {
      for (const m of isDNS1123Subdomain(hostname)) errs.push(invalid(idx.child('hostname'), hostname, m))
      if (isValidIPForLegacyField('x', hostname, false).length === 0) errs.push(invalid(idx.child('hostname'), hostname, 'must be a DNS name, not an IP address'))
    }
  })
  return errs
}
