/**
 * Validation of apiregistration.k8s.io/v1 APIServices, after kube-aggregator's
 * `pkg/apis/apiregistration/validation/validation.go`: the name is `<version>.<group>`, the
 * group a DNS subdomain (empty only for v1), the version a DNS-1035 label, the priorities in
 * range; a local APIService has no CA bundle nor insecureSkipTLSVerify, a service-backed one a
 * namespace, a name and a valid port; the status's condition statuses.
 */
import type { KubeObject } from '../registry/object.js'
import { type ErrorList, Path, invalid, notSupported, required } from './field/index.js'
import { arr, obj, str } from './helpers.js'
import { isDNS1035Label, isDNS1123Subdomain, isValidPathSegmentName, isValidPortNum } from './strings.js'

const CONDITION_STATUSES = ['True', 'False', 'Unknown']
const SPEC = Path.of('spec')

/** ValidateAPIService (the name's path-segment rule is the strategy's validateName). */
export function validateAPIService(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const group = str(spec.group)
  const version = str(spec.version)
  const errs: ErrorList = []
  const name = o.metadata.name ?? ''
  const requiredName = `${version}.${group}`
  // The reference's name function: path-segment failures first (reported by the strategy's
  // name rule), then the name must be version.group.
  if (isValidPathSegmentName(name).length === 0 && name !== requiredName) {
    errs.push(invalid(Path.of('metadata', 'name'), name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`))
  }
  if (group.length === 0 && version !== 'v1') errs.push(required(SPEC.child('group'), 'only v1 may have an empty group and it better be legacy kube'))
  if (group.length > 0) for (const m of isDNS1123Subdomain(group)) errs.push(invalid(SPEC.child('group'), group, m))
  for (const m of isDNS1035Label(version)) errs.push(invalid(SPEC.child('version'), version, m))
  const groupPriority = typeof spec.groupPriorityMinimum === 'number' ? spec.groupPriorityMinimum : 0
  if (groupPriority <= 0 || groupPriority > 20000) errs.push(invalid(SPEC.child('groupPriorityMinimum'), groupPriority, 'must be positive and less than 20000'))
  const versionPriority = typeof spec.versionPriority === 'number' ? spec.versionPriority : 0
  if (versionPriority <= 0 || versionPriority > 1000) errs.push(invalid(SPEC.child('versionPriority'), versionPriority, 'must be positive and less than 1000'))
  // caBundle is base64 in JSON; the reference counts the decoded bytes.
  const caBytes = Buffer.from(str(spec.caBundle), 'base64').length
  const insecure = spec.insecureSkipTLSVerify === true
  if (spec.service === undefined || spec.service === null) {
    if (caBytes !== 0) errs.push(invalid(SPEC.child('caBundle'), `${caBytes} bytes`, 'local APIServices may not have a caBundle'))
    if (insecure) errs.push(invalid(SPEC.child('insecureSkipTLSVerify'), true, 'local APIServices may not have insecureSkipTLSVerify'))
    return errs
  }
  const service = obj(spec.service)
  if (str(service.namespace) === '') errs.push(required(SPEC.child('service', 'namespace')))
  if (str(service.name) === '') errs.push(required(SPEC.child('service', 'name')))
  const port = typeof service.port === 'number' ? service.port : 0
  const portErrs = isValidPortNum(port)
  if (portErrs.length > 0) errs.push(invalid(SPEC.child('service', 'port'), port, `port is not valid: ${portErrs.join(', ')}`))
  if (insecure && caBytes > 0) errs.push(invalid(SPEC.child('insecureSkipTLSVerify'), true, 'may not be true if caBundle is present'))
  return errs
}

/** ValidateAPIServiceStatusUpdate: each condition's status True, False or Unknown. */
export function validateAPIServiceStatusUpdate(o: KubeObject): ErrorList {
  const errs: ErrorList = []
  arr(obj(o.status).conditions).forEach((c, i) => {
    const status = str(obj(c).status)
    if (!CONDITION_STATUSES.includes(status)) errs.push(notSupported(Path.of('status', 'conditions').index(i).child('status'), status, CONDITION_STATUSES))
  })
  return errs
}
