/**
 * Validation of resource.k8s.io/v1 (dynamic resource allocation), after the reference's
 * `pkg/apis/resource/validation/validation.go`, its main structural rules: DeviceClass
 * (selectors' CEL compiled, configuration, extended resource name), ResourceClaim and
 * ResourceClaimTemplate (requests: names, exactly one of `exactly` and `firstAvailable`, device
 * class, selectors, allocation mode and count, tolerations; constraints and configuration
 * naming known requests; the spec immutable; the status's reservations) and ResourceSlice
 * (driver, pool, exactly one node selection, devices: names, attributes, node selection per
 * device; pool, driver and node immutable).
 */
import type { KubeObject } from '../registry/object.js'
import { CelCompileError, celEnvironment, compileCel } from '../../../core/cel/index.js'
import { type ErrorList, Path, Rendered, duplicate, forbidden, invalid, notSupported, required, tooLong, tooMany } from './field/index.js'
import { compareQuantity, parseQuantity, quantityString, type Quantity } from './quantity.js'
import { arr, obj, semanticEqual, str } from './helpers.js'
import { validateDNS1123Label, validateDNS1123Subdomain, validateQualifiedName } from './core/common.js'
import { isExtendedResourceName } from './core/resources.js'
import { validateTemplateObjectMeta } from './core/persistent-volume-claims.js'
import { validateNodeSelector } from './core/scheduling.js'
import { validateCSIDriverName } from './core/volumes.js'
import { validateConditions, validateLabelName } from './meta-v1.js'
import { nameIsDNSSubdomain } from './names.js'
import { validateImmutableField } from './objectmeta.js'
import { isCIdentifier, isValidInterfaceAddress, isValidLabelValue } from './strings.js'

type Obj = Record<string, unknown>

const DEVICE_REQUESTS_MAX = 32
const DEVICE_CONSTRAINTS_MAX = 32
const DEVICE_CONFIG_MAX = 32
const DEVICE_SELECTORS_MAX = 32
const FIRST_AVAILABLE_MAX = 8
const CEL_SELECTOR_MAX_LENGTH = 10 * 1024
const OPAQUE_PARAMETERS_MAX_LENGTH = 10 * 1024
const POOL_NAME_MAX_LENGTH = 253
const RESOURCE_SLICE_MAX_DEVICES = 128
const DEVICE_TAINTS_MAX_LENGTH = 16
const RESOURCE_SLICE_MAX_DEVICES_WITH_TAINTS_OR_CONSUMES_COUNTERS = 64
const RESOURCE_SLICE_MAX_COUNTER_SETS = 8
const RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET = 32
const RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE = 2
const RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION = 32
const RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32
const DEVICE_MAX_ID_LENGTH = 32
const CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS = 10
const ALLOCATION_RESULTS_MAX_SIZE = 32
const ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS = 8
const ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH = 10 * 1024
const NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH = 256
const NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH = 128
const NETWORK_DEVICE_DATA_MAX_IPS = 16
const RESERVED_FOR_MAX = 256
const ATTRIBUTE_VALUE_MAX_LENGTH = 64
const ALLOCATION_MODES = ['All', 'ExactCount']
const TOLERATION_OPERATORS = ['Equal', 'Exists']
const TAINT_EFFECTS = ['NoExecute', 'NoSchedule', 'None']
const REQUEST_REF = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
const NODE_SELECTION = 'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required'
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$/

const isSet = (v: unknown) => v !== undefined && v !== null

// ---- lists, as the reference's validateSlice and validateSet ----

function validateSlice(list: unknown, max: number, item: (v: Obj, p: Path) => ErrorList, fldPath: Path): ErrorList {
  const items = arr(list)
  if (max >= 0 && items.length > max) return [tooMany(fldPath, items.length, max)]
  return items.flatMap((v, i) => item(obj(v), fldPath.index(i)))
}

function validateSet<T>(list: unknown, max: number, item: (v: T, p: Path) => ErrorList, key: (v: T) => string, fldPath: Path): ErrorList {
  const items = arr(list) as T[]
  if (max >= 0 && items.length > max) return [tooMany(fldPath, items.length, max)]
  const errs = items.flatMap((v, i) => item(v, fldPath.index(i)))
  const seen = new Set<string>()
  items.forEach((v, i) => {
    const k = key(v)
    if (seen.has(k)) errs.push(duplicate(fldPath.index(i), k))
    else seen.add(k)
  })
  return errs
}

// ---- names ----

function validatePoolName(name: string, fldPath: Path): ErrorList {
  if (name === '') return [required(fldPath)]
  const errs: ErrorList = []
  if (name.length > POOL_NAME_MAX_LENGTH) errs.push(tooLong(fldPath, POOL_NAME_MAX_LENGTH))
  for (const part of name.split('/')) errs.push(...validateDNS1123Subdomain(part, fldPath))
  return errs
}

function validateDeviceClassRef(name: string, fldPath: Path): ErrorList {
  return name === '' ? [required(fldPath)] : validateDNS1123Subdomain(name, fldPath)
}

/** gatherRequestNames: each request, with its subrequests' names when it has firstAvailable. */
function requestNames(devices: Obj): Map<string, Set<string> | undefined> {
  const names = new Map<string, Set<string> | undefined>()
  for (const r of arr(devices.requests).map(obj)) {
    const sub = arr(r.firstAvailable).map((s) => str(obj(s).name))
    names.set(str(r.name), sub.length === 0 ? undefined : new Set(sub))
  }
  return names
}

function validateRequestNameRef(name: string, fldPath: Path, names: Map<string, Set<string> | undefined>): ErrorList {
  const segments = name.split('/')
  if (segments.length > 2) return [invalid(fldPath, name, REQUEST_REF)]
  const errs = segments.flatMap((s) => validateDNS1123Label(s, fldPath))
  const known = names.has(segments[0]!) && (segments.length === 1 || (names.get(segments[0]!)?.has(segments[1]!) ?? false))
  if (!known) errs.push(invalid(fldPath, name, REQUEST_REF))
  return errs
}

// ---- CEL selectors ----

let deviceEnvironment: ReturnType<typeof celEnvironment> | undefined

/** A device selector's expression, compiled with the `device` variable (driver, attributes, capacity). */
function validateCELSelector(cel: Obj, fldPath: Path): ErrorList {
  const expression = str(cel.expression)
  if (expression.length > CEL_SELECTOR_MAX_LENGTH) return [tooLong(fldPath.child('expression'), CEL_SELECTOR_MAX_LENGTH)]
  deviceEnvironment ??= celEnvironment({
    device: { schema: { driver: 'string', allowMultipleAllocations: 'bool', attributes: 'map<string, map<string, dyn>>', capacity: 'map<string, map<string, dyn>>' } },
  })
  try {
    compileCel(deviceEnvironment, expression, ['bool'])
    return []
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err
    return [invalid(fldPath.child('expression'), expression, err.kind === 'type' ? 'must evaluate to bool' : err.message)]
  }
}

function validateSelectors(list: unknown, fldPath: Path): ErrorList {
  return validateSlice(list, DEVICE_SELECTORS_MAX, (s, p) => (isSet(s.cel) ? validateCELSelector(obj(s.cel), p.child('cel')) : [required(p.child('cel'))]), fldPath)
}

// ---- configuration ----

function validateOpaque(opaque: Obj, fldPath: Path): ErrorList {
  const errs = validateCSIDriverName(str(opaque.driver), fldPath.child('driver'))
  const parameters = opaque.parameters
  const raw = parameters === undefined ? '' : JSON.stringify(parameters)
  if (raw === '' || parameters === null) errs.push(required(fldPath.child('parameters')))
  else if (Buffer.byteLength(raw) > OPAQUE_PARAMETERS_MAX_LENGTH) errs.push(tooLong(fldPath.child('parameters'), OPAQUE_PARAMETERS_MAX_LENGTH))
  else if (typeof parameters !== 'object' || Array.isArray(parameters)) errs.push(invalid(fldPath.child('parameters'), '<value omitted>', 'must be a valid JSON object'))
  return errs
}

function validateDeviceConfiguration(config: Obj, fldPath: Path): ErrorList {
  return isSet(config.opaque) ? validateOpaque(obj(config.opaque), fldPath.child('opaque')) : [required(fldPath.child('opaque'))]
}

// ---- requests ----

function validateToleration(t: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const key = str(t.key)
  if (key !== '') errs.push(...validateLabelName(key, fldPath.child('key')))
  const value = str(t.value)
  switch (str(t.operator)) {
    case 'Exists':
      if (value !== '') errs.push(invalid(fldPath.child('value'), value, 'must be empty for operator `Exists`'))
      break
    case 'Equal':
      for (const m of isValidLabelValue(value)) errs.push(invalid(fldPath.child('value'), value, m))
      break
    case '':
      errs.push(required(fldPath.child('operator')))
      break
    default:
      errs.push(notSupported(fldPath.child('operator'), str(t.operator), TOLERATION_OPERATORS))
  }
  const effect = str(t.effect)
  if (effect !== '' && !TAINT_EFFECTS.includes(effect)) errs.push(notSupported(fldPath.child('effect'), effect, TAINT_EFFECTS))
  return errs
}

function validateAllocationMode(r: Obj, fldPath: Path): ErrorList {
  const mode = str(r.allocationMode)
  const count = typeof r.count === 'number' ? r.count : 0
  switch (mode) {
    case 'All':
      return count !== 0 ? [invalid(fldPath.child('count'), count, "must not be specified when allocationMode is 'All'")] : []
    case 'ExactCount':
      return count <= 0 ? [invalid(fldPath.child('count'), count, 'must be greater than zero')] : []
    default:
      return [notSupported(fldPath.child('allocationMode'), mode, ALLOCATION_MODES)]
  }
}

/** validateExactDeviceRequest, and the same checks of a subrequest (after its name). */
function validateExactly(r: Obj, fldPath: Path): ErrorList {
  const errs = validateDeviceClassRef(str(r.deviceClassName), fldPath.child('deviceClassName'))
  errs.push(...validateSelectors(r.selectors, fldPath.child('selectors')))
  errs.push(...validateAllocationMode(r, fldPath))
  arr(r.tolerations).forEach((t, i) => errs.push(...validateToleration(obj(t), fldPath.child('tolerations').index(i))))
  return errs
}

/** The request fields resource.k8s.io/v1beta1 keeps on the request itself (v1 and v1beta2 under `exactly`). */
const FLATTENED_REQUEST_FIELDS = ['deviceClassName', 'selectors', 'allocationMode', 'count', 'adminAccess', 'tolerations']

/**
 * A request as the reference's internal form has it: a v1beta1 request with its fields on the
 * request converts to one whose `exactly` holds them, so its errors name `exactly` too.
 */
export function internalRequest(r: Obj): Obj {
  if (isSet(r.exactly) || arr(r.firstAvailable).length > 0 || !FLATTENED_REQUEST_FIELDS.some((k) => isSet(r[k]))) return r
  const exactly = Object.fromEntries(FLATTENED_REQUEST_FIELDS.filter((k) => isSet(r[k])).map((k) => [k, r[k]]))
  return { name: r.name, exactly }
}

function validateDeviceRequest(request: Obj, fldPath: Path): ErrorList {
  const r = internalRequest(request)
  const errs = validateDNS1123Label(str(r.name), fldPath.child('name'))
  const hasFirst = arr(r.firstAvailable).length > 0
  const hasExactly = isSet(r.exactly)
  if (!hasFirst && !hasExactly) errs.push(required(fldPath, 'exactly one of `exactly` or `firstAvailable` is required'))
  else if (hasFirst && hasExactly) errs.push(invalid(fldPath, null, 'exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set'))
  else if (hasFirst) {
    errs.push(
      ...validateSet<unknown>(
        r.firstAvailable,
        FIRST_AVAILABLE_MAX,
        (s, p) => [...validateDNS1123Label(str(obj(s).name), p.child('name')), ...validateExactly(obj(s), p)],
        (s) => str(obj(s).name),
        fldPath.child('firstAvailable'),
      ),
    )
  } else errs.push(...validateExactly(obj(r.exactly), fldPath.child('exactly')))
  return errs
}

function validateConstraint(c: Obj, fldPath: Path, names: Map<string, Set<string> | undefined>): ErrorList {
  const errs = validateSet<unknown>(c.requests, DEVICE_REQUESTS_MAX, (n, p) => validateRequestNameRef(str(n), p, names), (n) => str(n), fldPath.child('requests'))
  const fq = (name: string, p: Path) => [...validateQualifiedName(name, p), ...(name.includes('/') ? [] : [invalid(p, name, 'a fully qualified name must be a domain and a name separated by a slash')])]
  if (isSet(c.matchAttribute)) errs.push(...fq(str(c.matchAttribute), fldPath.child('matchAttribute')))
  else if (isSet(c.distinctAttribute)) errs.push(...fq(str(c.distinctAttribute), fldPath.child('distinctAttribute')))
  else errs.push(required(fldPath.child('matchAttribute')))
  return errs
}

function validateDeviceClaim(devices: Obj, fldPath: Path): ErrorList {
  const names = requestNames(devices)
  const errs = validateSet<unknown>(devices.requests, DEVICE_REQUESTS_MAX, (r, p) => validateDeviceRequest(obj(r), p), (r) => str(obj(r).name), fldPath.child('requests'))
  errs.push(...validateSlice(devices.constraints, DEVICE_CONSTRAINTS_MAX, (c, p) => validateConstraint(c, p, names), fldPath.child('constraints')))
  errs.push(
    ...validateSlice(
      devices.config,
      DEVICE_CONFIG_MAX,
      (c, p) => [...validateSet<unknown>(c.requests, DEVICE_REQUESTS_MAX, (n, q) => validateRequestNameRef(str(n), q, names), (n) => str(n), p.child('requests')), ...validateDeviceConfiguration(c, p)],
      fldPath.child('config'),
    ),
  )
  return errs
}

// ---- kinds ----

/** ValidateDeviceClass (without the metadata). */
export function validateDeviceClass(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const p = Path.of('spec')
  const errs = validateSelectors(spec.selectors, p.child('selectors'))
  errs.push(...validateSlice(spec.config, DEVICE_CONFIG_MAX, (c, q) => validateDeviceConfiguration(c, q), p.child('config')))
  if (isSet(spec.extendedResourceName) && !isExtendedResourceName(str(spec.extendedResourceName))) {
    errs.push(invalid(p.child('extendedResourceName'), str(spec.extendedResourceName), 'must be a valid extended resource name'))
  }
  return errs
}

/** ValidateResourceClaim (without the metadata). */
export function validateResourceClaim(o: KubeObject): ErrorList {
  return validateDeviceClaim(obj(obj(o.spec).devices), Path.of('spec', 'devices'))
}

/** ValidateResourceClaimUpdate: the spec is immutable (and only that is checked). */
export function validateResourceClaimUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return semanticEqual(o.spec, old.spec) ? [] : validateImmutableField(o.spec, old.spec, Path.of('spec'))
}

// ---- ResourceClaim status: allocation results and device status ----

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/** validateUID: uuid.Validate's verdict, then the normalized form. */
function validateUID(uid: string, fldPath: Path): ErrorList {
  let body = uid
  if (uid.length === 45 && uid.toLowerCase().startsWith('urn:uuid:')) body = uid.slice(9)
  else if (uid.length === 38 && uid.startsWith('{') && uid.endsWith('}')) body = uid.slice(1, -1)
  else if (uid.length === 32 && /^[0-9a-fA-F]{32}$/.test(uid)) body = `${uid.slice(0, 8)}-${uid.slice(8, 12)}-${uid.slice(12, 16)}-${uid.slice(16, 20)}-${uid.slice(20)}`
  if (![32, 36, 38, 45].includes(uid.length)) return [invalid(fldPath, uid, `error validating uid: invalid UUID length: ${uid.length}`)]
  if (!UUID_RE.test(body)) return [invalid(fldPath, uid, 'error validating uid: invalid UUID format')]
  if (uid.length !== 36 || uid !== uid.toLowerCase()) {
    return [invalid(fldPath, uid, 'uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters')]
  }
  return []
}

/** validateDeviceBindingParameters: at most 4 of each, label names, unique, not overlapping, both or neither. */
function validateDeviceBindingParameters(conditions: unknown, failureConditions: unknown, fldPath: Path): ErrorList {
  const bc = arr(conditions).map((c) => str(c))
  const bfc = arr(failureConditions).map((c) => str(c))
  const errs: ErrorList = []
  const labelNames = (list: string[], path: Path): ErrorList => (list.length > 4 ? [tooMany(path, list.length, 4)] : list.flatMap((c, i) => validateLabelName(c, path.index(i))))
  errs.push(...labelNames(bc, fldPath.child('bindingConditions')))
  errs.push(...labelNames(bfc, fldPath.child('bindingFailureConditions')))
  const seen = new Set<string>()
  bc.forEach((c, i) => {
    if (seen.has(c)) errs.push(duplicate(fldPath.child('bindingConditions').index(i), c))
    else seen.add(c)
  })
  const seenFailure = new Set<string>()
  bfc.forEach((c, i) => {
    if (seenFailure.has(c)) errs.push(duplicate(fldPath.child('bindingFailureConditions').index(i), c))
    else seenFailure.add(c)
    if (bc.includes(c)) errs.push(invalid(fldPath.child('bindingFailureConditions').index(i), c, 'bindingFailureConditions must not overlap with bindingConditions'))
  })
  if (bc.length === 0 && bfc.length > 0) errs.push(invalid(fldPath.child('bindingConditions'), bc, 'bindingConditions are required to use bindingFailureConditions'))
  if (bfc.length === 0 && bc.length > 0) errs.push(invalid(fldPath.child('bindingFailureConditions'), bfc, 'bindingFailureConditions are required to use bindingConditions'))
  return errs
}

/** A device as structured.SharedDeviceID prints it: `<driver>/<pool>/<device>[/<shareID>]`. */
const sharedDeviceID = (d: Obj) => `${str(d.driver)}/${str(d.pool)}/${str(d.device)}${isSet(d.shareID) ? `/${str(d.shareID)}` : ''}`

function validateDeviceRequestAllocationResult(result: Obj, fldPath: Path, names: Map<string, Set<string> | undefined>): ErrorList {
  const errs = validateRequestNameRef(str(result.request), fldPath.child('request'), names)
  errs.push(...validateCSIDriverName(str(result.driver), fldPath.child('driver')))
  errs.push(...validatePoolName(str(result.pool), fldPath.child('pool')))
  errs.push(...validateDNS1123Label(str(result.device), fldPath.child('device')))
  errs.push(...validateDeviceBindingParameters(result.bindingConditions, result.bindingFailureConditions, fldPath))
  if (isSet(result.shareID)) errs.push(...validateUID(str(result.shareID), fldPath.child('shareID')))
  return errs
}

function validateDeviceAllocationConfiguration(config: Obj, fldPath: Path, names: Map<string, Set<string> | undefined>): ErrorList {
  const errs: ErrorList = []
  const source = str(config.source)
  if (source === '') errs.push(required(fldPath.child('source')))
  else if (source !== 'FromClaim' && source !== 'FromClass') errs.push(notSupported(fldPath.child('source'), source, ['FromClaim', 'FromClass']))
  errs.push(...validateSet<unknown>(config.requests, DEVICE_REQUESTS_MAX, (n, q) => validateRequestNameRef(str(n), q, names), (n) => str(n), fldPath.child('requests')))
  errs.push(...validateDeviceConfiguration(config, fldPath))
  return errs
}

/** validateAllocationResult: the rules of a new allocation (a stored one is only compared). */
function validateAllocationResult(allocation: Obj, fldPath: Path, names: Map<string, Set<string> | undefined>): ErrorList {
  const devices = obj(allocation.devices)
  const path = fldPath.child('devices')
  const errs = validateSlice(devices.results, ALLOCATION_RESULTS_MAX_SIZE, (r, q) => validateDeviceRequestAllocationResult(r, q, names), path.child('results'))
  errs.push(...validateSlice(devices.config, 2 * DEVICE_CONFIG_MAX, (c, q) => validateDeviceAllocationConfiguration(c, q, names), path.child('config')))
  if (isSet(allocation.nodeSelector)) errs.push(...validateNodeSelector(obj(allocation.nodeSelector), false, fldPath.child('nodeSelector')))
  return errs
}

function validateNetworkDeviceData(data: unknown, fldPath: Path): ErrorList {
  if (!isSet(data)) return []
  const d = obj(data)
  const errs: ErrorList = []
  if (str(d.interfaceName).length > NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH) errs.push(tooLong(fldPath.child('interfaceName'), NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH))
  if (str(d.hardwareAddress).length > NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH) errs.push(tooLong(fldPath.child('hardwareAddress'), NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH))
  errs.push(...validateSet<unknown>(d.ips, NETWORK_DEVICE_DATA_MAX_IPS, (ip, q) => isValidInterfaceAddress(q, str(ip)), (ip) => str(ip), fldPath.child('ips')))
  return errs
}

/** validateDeviceStatus: a device of the allocation, its conditions, data and network data. */
function validateDeviceStatus(device: Obj, fldPath: Path, allocated: Set<string>): ErrorList {
  const errs = validateCSIDriverName(str(device.driver), fldPath.child('driver'))
  errs.push(...validatePoolName(str(device.pool), fldPath.child('pool')))
  errs.push(...validateDNS1123Label(str(device.device), fldPath.child('device')))
  if (isSet(device.shareID)) errs.push(...validateUID(str(device.shareID), fldPath.child('shareID')))
  const id = sharedDeviceID(device)
  if (!allocated.has(id)) errs.push(invalid(fldPath, new Rendered(id), 'must be an allocated device in the claim'))
  const conditions = arr(device.conditions)
  if (conditions.length > ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS) errs.push(tooMany(fldPath.child('conditions'), conditions.length, ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS))
  errs.push(...validateConditions(device.conditions, fldPath.child('conditions')))
  if (isSet(device.data)) {
    const raw = JSON.stringify(device.data)
    if (Buffer.byteLength(raw) > ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH) errs.push(tooLong(fldPath.child('data'), ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH))
    else if (typeof device.data !== 'object' || Array.isArray(device.data)) errs.push(invalid(fldPath.child('data'), '<value omitted>', 'must be a valid JSON object'))
  }
  errs.push(...validateNetworkDeviceData(device.networkData, fldPath.child('networkData')))
  return errs
}

/**
 * ValidateResourceClaimStatusUpdate: consumers complete and unique, each device status of an
 * allocated device, reserved only when allocated and no new consumer while the claim is being
 * deleted, a new allocation's results checked and a stored one fixed.
 */
export function validateResourceClaimStatusUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const status = obj(o.status)
  const oldStatus = obj(old.status)
  const p = Path.of('status')
  const names = requestNames(obj(obj(o.spec).devices))
  const errs = validateSet<unknown>(
    status.reservedFor,
    RESERVED_FOR_MAX,
    (r, q) => {
      const ref = obj(r)
      const e: ErrorList = []
      if (str(ref.resource) === '') e.push(required(q.child('resource')))
      if (str(ref.name) === '') e.push(required(q.child('name')))
      if (str(ref.uid) === '') e.push(required(q.child('uid')))
      return e
    },
    (r) => str(obj(r).uid),
    p.child('reservedFor'),
  )
  const allocated = new Set(isSet(status.allocation) ? arr(obj(obj(status.allocation).devices).results).map((r) => sharedDeviceID(obj(r))) : [])
  errs.push(...validateSet<unknown>(status.devices, -1, (d, q) => validateDeviceStatus(obj(d), q, allocated), (d) => sharedDeviceID(obj(d)), p.child('devices')))
  if (arr(status.reservedFor).length > 0) {
    if (!isSet(status.allocation)) errs.push(forbidden(p.child('reservedFor'), 'may not be specified when `allocated` is not set'))
    else if (isSet(o.metadata.deletionTimestamp)) {
      const before = new Set(arr(oldStatus.reservedFor).map((r) => JSON.stringify(r)))
      if (arr(status.reservedFor).some((r) => !before.has(JSON.stringify(r)))) {
        errs.push(forbidden(p.child('reservedFor'), 'new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set'))
      }
    }
  }
  if (isSet(oldStatus.allocation) && isSet(status.allocation)) {
    if (!semanticEqual(status.allocation, oldStatus.allocation)) errs.push(...validateImmutableField(status.allocation, oldStatus.allocation, p.child('allocation')))
  } else if (isSet(status.allocation)) errs.push(...validateAllocationResult(obj(status.allocation), p.child('allocation'), names))
  return errs
}

/** ValidateResourceClaimTemplate (without the metadata). */
export function validateResourceClaimTemplate(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const p = Path.of('spec')
  return [...validateTemplateObjectMeta(obj(spec.metadata), p.child('metadata')), ...validateDeviceClaim(obj(obj(spec.spec).devices), p.child('spec', 'devices'))]
}

/** ValidateResourceClaimTemplateUpdate: the spec is immutable. */
export function validateResourceClaimTemplateUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return semanticEqual(o.spec, old.spec) ? [] : validateImmutableField(o.spec, old.spec, Path.of('spec'))
}

function validateAttribute(a: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  let fields = 0
  if (isSet(a.bool)) fields++
  if (isSet(a.int)) fields++
  if (isSet(a.string)) {
    fields++
    if (str(a.string).length > ATTRIBUTE_VALUE_MAX_LENGTH) errs.push(tooLong(fldPath.child('string'), ATTRIBUTE_VALUE_MAX_LENGTH))
  }
  if (isSet(a.version)) {
    fields++
    const v = str(a.version)
    if (!SEMVER.test(v)) errs.push(invalid(fldPath.child('version'), v, 'must be a string compatible with semver.org spec 2.0.0'))
    if (v.length > ATTRIBUTE_VALUE_MAX_LENGTH) errs.push(tooLong(fldPath.child('version'), ATTRIBUTE_VALUE_MAX_LENGTH))
  }
  if (fields === 0) errs.push(invalid(fldPath, '', 'exactly one value must be specified'))
  else if (fields > 1) errs.push(invalid(fldPath, a, 'exactly one value must be specified'))
  return errs
}

// ---- qualified names, counters and capacity (ResourceSlice) ----

/** validateCIdentifier: at most 32 bytes, a C identifier. */
function validateCIdentifier(id: string, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (Buffer.byteLength(id) > DEVICE_MAX_ID_LENGTH) errs.push(tooLong(fldPath, DEVICE_MAX_ID_LENGTH))
  for (const m of isCIdentifier(id)) errs.push(invalid(fldPath, id, m))
  return errs
}

/** The resource group's validateQualifiedName: `<C identifier>` or `<driver domain>/<C identifier>`. */
function validateResourceQualifiedName(name: string, fldPath: Path): ErrorList {
  const parts = name.split('/')
  if (parts.length === 1) return validateCIdentifier(parts[0]!, fldPath)
  if (parts.length !== 2) return []
  const errs: ErrorList = []
  if (parts[0] === '') errs.push(invalid(fldPath, '', 'the domain must not be empty'))
  else errs.push(...validateCSIDriverName(parts[0]!, fldPath))
  if (parts[1] === '') errs.push(invalid(fldPath, '', 'the name must not be empty'))
  else errs.push(...validateCIdentifier(parts[1]!, fldPath))
  return errs
}

/** truncateIfTooLong: a long map key in a path shortened in the middle. */
function truncateIfTooLong(key: string, maxLen: number): string {
  const max = Math.max(maxLen, 16)
  if (key.length <= max) return key
  const remaining = max - 3
  return `${key.slice(0, Math.floor((remaining + 1) / 2))}...${key.slice(key.length - Math.floor(remaining / 2))}`
}

/** validateMap: the size first (it short-circuits), then each key and item. */
function validateMap(m: unknown, max: number, truncateKeyLen: number, key: (k: string, p: Path) => ErrorList, item: (v: Obj, p: Path) => ErrorList, fldPath: Path): ErrorList {
  const entries = Object.entries(obj(m))
  if (max >= 0 && entries.length > max) return [tooMany(fldPath, entries.length, max)]
  return entries.flatMap(([k, v]) => {
    const keyPath = fldPath.key(truncateIfTooLong(k, truncateKeyLen))
    return [...key(k, keyPath), ...item(obj(v), keyPath)]
  })
}

const ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH = 63 + 1 + DEVICE_MAX_ID_LENGTH
const validateCounterName = (name: string, fldPath: Path) => validateDNS1123Label(name, fldPath)
/** validateDeviceCounter: any parsed quantity is valid. */
const validateDeviceCounter = (): ErrorList => []

/** validateCounterSet: a named set of counters. */
function validateCounterSet(set: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const name = str(set.name)
  if (name === '') errs.push(required(fldPath.child('name')))
  else errs.push(...validateCounterName(name, fldPath.child('name')))
  if (Object.keys(obj(set.counters)).length === 0) errs.push(required(fldPath.child('counters')))
  else errs.push(...validateMap(set.counters, RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET, 63, validateCounterName, validateDeviceCounter, fldPath.child('counters')))
  return errs
}

/** validateDeviceCounterConsumption: the counter set a device draws from and how much. */
function validateDeviceCounterConsumption(c: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const counterSet = str(c.counterSet)
  if (counterSet === '') errs.push(required(fldPath.child('counterSet')))
  else errs.push(...validateCounterName(counterSet, fldPath.child('counterSet')))
  if (Object.keys(obj(c.counters)).length === 0) errs.push(required(fldPath.child('counters')))
  else errs.push(...validateMap(c.counters, RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION, 63, validateCounterName, validateDeviceCounter, fldPath.child('counters')))
  return errs
}

const q = (v: unknown): Quantity | undefined => parseQuantity(v)
/** The quantity in thousandths, rounded up (Quantity.MilliValue). */
function quantityMilli(x: Quantity): bigint {
  const e = x.exp10 + 3
  const v = e >= 0 ? x.digits * 10n ** BigInt(e) : (x.digits + 10n ** BigInt(-e) - 1n) / 10n ** BigInt(-e)
  return x.negative ? -v : v
}

/** Quantity.Value(): the value rounded up to an integer. */
function integerValue(x: Quantity): bigint {
  const m = quantityMilli(x)
  return m >= 0n ? (m + 999n) / 1000n : -(-m / 1000n)
}

/** a.Add(b): the sum, in a's format. */
function addQuantity(a: Quantity, b: Quantity): Quantity {
  const sum = quantityMilli(a) + quantityMilli(b)
  let digits = sum < 0n ? -sum : sum
  let exp10 = -3
  while (digits !== 0n && digits % 10n === 0n) {
    digits /= 10n
    exp10++
  }
  return { digits, exp10, negative: sum < 0n, format: a.format }
}

/** validateRequestPolicyRangeStep: the value a whole number of steps from min. */
function validateRequestPolicyRangeStep(value: Quantity, min: Quantity, step: Quantity, fldPath: Path): ErrorList {
  const stepVal = integerValue(step)
  if (stepVal === 0n) return []
  return (integerValue(value) - integerValue(min)) % stepVal !== 0n
    ? [invalid(fldPath, quantityString(value), `value is not a multiple of a given step (${quantityString(step)}) from (${quantityString(min)})`)]
    : []
}

/** validateRequestPolicy: validValues or validRange, with a default that fits. */
function validateRequestPolicy(capacityValue: Quantity, policy: Obj, fldPath: Path): ErrorList {
  const validValues = arr(policy.validValues)
  if (validValues.length > 0 && isSet(policy.validRange)) return [forbidden(fldPath, 'exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time')]
  const def = isSet(policy.default) ? q(policy.default) : undefined
  const errs: ErrorList = []
  if (validValues.length > 0) {
    if (!def) return [required(fldPath.child('default'), 'required when validValues is defined')]
    const path = fldPath.child('validValues')
    const values = validValues.map((v) => q(v)).filter((v): v is Quantity => v !== undefined)
    for (let i = 0; i + 1 < values.length; i++) {
      if (compareQuantity(values[i]!, values[i + 1]!) > 0) errs.push(invalid(path.index(i + 1), quantityString(values[i + 1]!), 'values must be sorted in ascending order'))
    }
    let foundDefault = false
    const seen = new Set<string>()
    values.forEach((option, i) => {
      if (compareQuantity(option, capacityValue) > 0) errs.push(invalid(path.index(i), quantityString(option), `option is larger than capacity value: ${quantityString(capacityValue)}`))
      if (compareQuantity(option, def) === 0) foundDefault = true
    })
    values.forEach((option, i) => {
      const key = integerValue(option).toString()
      if (seen.has(key)) errs.push(duplicate(path.index(i), key))
      else seen.add(key)
    })
    if (!foundDefault) errs.push(invalid(path, quantityString(def), 'default value is not valid according to the requestPolicy'))
    return errs
  }
  if (!isSet(policy.validRange)) return errs
  if (!def) return [required(fldPath.child('default'), 'required when validRange is defined')]
  const range = obj(policy.validRange)
  const path = fldPath.child('validRange')
  const min = isSet(range.min) ? q(range.min) : undefined
  if (!min) return [required(path.child('min'), 'required when validRange is defined')]
  if (compareQuantity(min, capacityValue) > 0) errs.push(invalid(path.child('min'), quantityString(min), `min is larger than capacity value: ${quantityString(capacityValue)}`))
  if (compareQuantity(def, min) < 0) errs.push(invalid(path.child('min'), quantityString(def), `default is less than min: ${quantityString(min)}`))
  const max = isSet(range.max) ? q(range.max) : undefined
  if (max) {
    if (compareQuantity(min, max) > 0) errs.push(invalid(path.child('max'), quantityString(min), `min is larger than max: ${quantityString(max)}`))
    if (compareQuantity(max, capacityValue) > 0) errs.push(invalid(path.child('max'), quantityString(max), `max is larger than capacity value: ${quantityString(capacityValue)}`))
    if (compareQuantity(def, max) > 0) errs.push(invalid(path.child('max'), quantityString(def), `default is more than max: ${quantityString(max)}`))
  }
  const step = isSet(range.step) ? q(range.step) : undefined
  if (step) {
    const added = addQuantity(min, step)
    if (compareQuantity(added, capacityValue) > 0) {
      errs.push(invalid(path.child('step'), quantityString(step), `one step ${quantityString(added)} is larger than capacity value: ${quantityString(capacityValue)}`))
    }
    errs.push(...validateRequestPolicyRangeStep(def, min, step, path.child('step')))
    if (max) errs.push(...validateRequestPolicyRangeStep(max, min, step, path.child('step')))
  }
  return errs
}

/** A device's capacity: a request policy only on a device that allows multiple allocations. */
function validateDeviceCapacity(allowMultipleAllocations: boolean) {
  return (capacity: Obj, fldPath: Path): ErrorList => {
    if (!isSet(capacity.requestPolicy)) return []
    if (!allowMultipleAllocations) return [forbidden(fldPath.child('requestPolicy'), 'allowMultipleAllocations must be true')]
    return validateRequestPolicy(q(capacity.value) ?? { digits: 0n, exp10: 0, negative: false, format: 'DecimalSI' }, obj(capacity.requestPolicy), fldPath.child('requestPolicy'))
  }
}

function validateDevice(d: Obj, oldDevice: Obj | undefined, perDevice: boolean, fldPath: Path): ErrorList {
  const errs = validateDNS1123Label(str(d.name), fldPath.child('name'))
  // The total is reported once: if one map is too large, so is the sum.
  const attributesAndCapacities = Object.keys(obj(d.attributes)).length + Object.keys(obj(d.capacity)).length
  if (attributesAndCapacities > RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE) {
    errs.push(invalid(fldPath, attributesAndCapacities, `the total number of attributes and capacities must not exceed ${RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE}`))
  }
  errs.push(...validateMap(d.attributes, -1, ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH, validateResourceQualifiedName, validateAttribute, fldPath.child('attributes')))
  errs.push(...validateMap(d.capacity, -1, ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH, validateResourceQualifiedName, validateDeviceCapacity(d.allowMultipleAllocations === true), fldPath.child('capacity')))
  // Unchanged taints are not checked again.
  if (!oldDevice || !semanticEqual(oldDevice.taints, d.taints)) {
    errs.push(...validateSlice(d.taints, DEVICE_TAINTS_MAX_LENGTH, (t, q) => validateDeviceTaint(t, undefined, q), fldPath.child('taints')))
  }
  errs.push(
    ...validateSet<unknown>(
      d.consumesCounters,
      RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE,
      (c, p) => validateDeviceCounterConsumption(obj(c), p),
      (c) => str(obj(c).counterSet),
      fldPath.child('consumesCounters'),
    ),
  )
  if (perDevice) {
    const set: string[] = []
    if (isSet(d.nodeName)) {
      if (str(d.nodeName) !== '') {
        set.push('`nodeName`')
        for (const m of nameIsDNSSubdomain(str(d.nodeName), false)) errs.push(invalid(fldPath.child('nodeName'), str(d.nodeName), m))
      } else errs.push(invalid(fldPath.child('nodeName'), '', 'must not be empty'))
    }
    if (isSet(d.nodeSelector)) {
      set.push('`nodeSelector`')
      errs.push(...validateNodeSelector(obj(d.nodeSelector), false, fldPath.child('nodeSelector')))
    }
    if (isSet(d.allNodes)) {
      if (d.allNodes === true) set.push('`allNodes`')
      else errs.push(invalid(fldPath.child('allNodes'), d.allNodes, 'must be either unset or set to true'))
    }
    const what = 'exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec'
    if (set.length === 0) errs.push(required(fldPath, what))
    else if (set.length > 1) errs.push(invalid(fldPath, `{${set.join(', ')}}`, what))
  } else if (isSet(d.nodeName) || isSet(d.nodeSelector) || isSet(d.allNodes)) {
    errs.push(invalid(fldPath, null, '`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec'))
  }
  errs.push(...validateDeviceBindingParameters(d.bindingConditions, d.bindingFailureConditions, fldPath))
  return errs
}

function validateResourceSliceSpec(spec: Obj, oldSpec: Obj | undefined): ErrorList {
  const p = Path.of('spec')
  const errs = validateCSIDriverName(str(spec.driver), p.child('driver'))
  const pool = obj(spec.pool)
  errs.push(...validatePoolName(str(pool.name), p.child('pool', 'name')))
  const count = typeof pool.resourceSliceCount === 'number' ? pool.resourceSliceCount : 0
  if (count <= 0) errs.push(invalid(p.child('pool', 'resourceSliceCount'), count, 'must be greater than zero'))
  const generation = typeof pool.generation === 'number' ? pool.generation : 0
  if (generation < 0) errs.push(invalid(p.child('pool', 'generation'), generation, 'must be greater than or equal to zero'))
  if (oldSpec) {
    errs.push(...validateImmutableField(str(pool.name), str(obj(oldSpec.pool).name), p.child('pool', 'name')))
    errs.push(...validateImmutableField(str(spec.driver), str(oldSpec.driver), p.child('driver')))
    errs.push(...validateImmutableField(spec.nodeName ?? null, oldSpec.nodeName ?? null, p.child('nodeName')))
  }
  const set: string[] = []
  if (isSet(spec.nodeName)) {
    if (str(spec.nodeName) !== '') {
      set.push('`nodeName`')
      for (const m of nameIsDNSSubdomain(str(spec.nodeName), false)) errs.push(invalid(p.child('nodeName'), str(spec.nodeName), m))
    } else errs.push(invalid(p.child('nodeName'), '', 'must be either unset or set to a non-empty string'))
  }
  if (isSet(spec.nodeSelector)) {
    set.push('`nodeSelector`')
    const ns = obj(spec.nodeSelector)
    errs.push(...validateNodeSelector(ns, false, p.child('nodeSelector')))
    if (arr(ns.nodeSelectorTerms).length !== 1) errs.push(invalid(p.child('nodeSelector', 'nodeSelectorTerms'), arr(ns.nodeSelectorTerms), 'must have exactly one node selector term'))
  }
  for (const flag of ['allNodes', 'perDeviceNodeSelection'] as const) {
    if (!isSet(spec[flag])) continue
    if (spec[flag] === true) set.push(`\`${flag}\``)
    else errs.push(invalid(p.child(flag), spec[flag], 'must be either unset or set to true'))
  }
  if (set.length === 0) errs.push(required(p, NODE_SELECTION))
  else if (set.length > 1) errs.push(invalid(p, `{${set.join(', ')}}`, `${NODE_SELECTION}, but multiple fields are set`))
  if (isSet(spec.sharedCounters) && isSet(spec.devices)) errs.push(invalid(p, '', 'only one of `sharedCounters` or `devices` is allowed'))
  const perDevice = spec.perDeviceNodeSelection === true
  const devices = arr(spec.devices).map(obj)
  const maxDevices = devices.some((d) => arr(d.taints).length > 0 || arr(d.consumesCounters).length > 0) ? RESOURCE_SLICE_MAX_DEVICES_WITH_TAINTS_OR_CONSUMES_COUNTERS : RESOURCE_SLICE_MAX_DEVICES
  errs.push(...validateSet<unknown>(spec.devices, maxDevices, (d, q) => validateDevice(obj(d), oldSpec ? arr(oldSpec.devices).map(obj).find((o) => str(o.name) === str(obj(d).name)) : undefined, perDevice, q), (d) => str(obj(d).name), p.child('devices')))
  errs.push(...validateSet<unknown>(spec.sharedCounters, RESOURCE_SLICE_MAX_COUNTER_SETS, (c, q) => validateCounterSet(obj(c), q), (c) => str(obj(c).name), p.child('sharedCounters')))
  return errs
}

/** ValidateResourceSlice (without the metadata). */
export function validateResourceSlice(o: KubeObject): ErrorList {
  return validateResourceSliceSpec(obj(o.spec), undefined)
}

/** ValidateResourceSliceUpdate: the spec's rules with pool name, driver and node name immutable. */
export function validateResourceSliceUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return validateResourceSliceSpec(obj(o.spec), obj(old.spec))
}

// ---- DeviceTaintRule (beta and alpha) ----

function validateDeviceTaint(taint: Obj, oldTaint: Obj | undefined, fldPath: Path): ErrorList {
  const errs = validateLabelName(str(taint.key), fldPath.child('key'))
  const value = str(taint.value)
  if (value !== '') for (const m of isValidLabelValue(value)) errs.push(invalid(fldPath.child('value'), value, m))
  const effect = str(taint.effect)
  if (!oldTaint || str(oldTaint.effect) !== effect) {
    if (effect === '') errs.push(required(fldPath.child('effect')))
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(notSupported(fldPath.child('effect'), effect, TAINT_EFFECTS))
  }
  return errs
}

function validateDeviceTaintRuleSpec(spec: Obj, oldSpec: Obj | undefined): ErrorList {
  const p = Path.of('spec')
  const errs: ErrorList = []
  if (isSet(spec.deviceSelector)) {
    const selector = obj(spec.deviceSelector)
    const sp = p.child('deviceSelector')
    if (isSet(selector.driver)) errs.push(...validateCSIDriverName(str(selector.driver), sp.child('driver')))
    if (isSet(selector.pool)) errs.push(...validatePoolName(str(selector.pool), sp.child('pool')))
    if (isSet(selector.device)) errs.push(...validateDNS1123Label(str(selector.device), sp.child('device')))
  }
  errs.push(...validateDeviceTaint(obj(spec.taint), oldSpec ? obj(oldSpec.taint) : undefined, p.child('taint')))
  return errs
}

/** ValidateDeviceTaintRule (without the metadata): the selector's driver, pool and device, the taint. */
export function validateDeviceTaintRule(o: KubeObject): ErrorList {
  return validateDeviceTaintRuleSpec(obj(o.spec), undefined)
}

/** ValidateDeviceTaintRuleUpdate: an unchanged effect is not checked again. */
export function validateDeviceTaintRuleUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return validateDeviceTaintRuleSpec(obj(o.spec), obj(old.spec))
}
