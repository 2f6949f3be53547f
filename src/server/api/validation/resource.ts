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
import { type ErrorList, Path, duplicate, forbidden, invalid, notSupported, required, tooLong, tooMany } from './field/index.js'
import { arr, obj, semanticEqual, str } from './helpers.js'
import { validateDNS1123Label, validateDNS1123Subdomain, validateQualifiedName } from './core/common.js'
import { isExtendedResourceName } from './core/resources.js'
import { validateTemplateObjectMeta } from './core/persistent-volume-claims.js'
import { validateNodeSelector } from './core/scheduling.js'
import { validateCSIDriverName } from './core/volumes.js'
import { validateLabelName } from './meta-v1.js'
import { nameIsDNSSubdomain } from './names.js'
import { validateImmutableField } from './objectmeta.js'
import { isValidLabelValue } from './strings.js'

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

/** ValidateResourceClaimStatusUpdate: consumers complete and unique, reserved only when allocated, the allocation fixed once set. */
export function validateResourceClaimStatusUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const status = obj(o.status)
  const oldStatus = obj(old.status)
  const p = Path.of('status')
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
  if (arr(status.reservedFor).length > 0 && !isSet(status.allocation)) errs.push(forbidden(p.child('reservedFor'), 'may not be specified when `allocated` is not set'))
  if (isSet(oldStatus.allocation) && isSet(status.allocation) && !semanticEqual(status.allocation, oldStatus.allocation)) {
    errs.push(...validateImmutableField(status.allocation, oldStatus.allocation, p.child('allocation')))
  }
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

function validateDevice(d: Obj, perDevice: boolean, fldPath: Path): ErrorList {
  const errs = validateDNS1123Label(str(d.name), fldPath.child('name'))
  for (const [k, v] of Object.entries(obj(d.attributes))) errs.push(...validateAttribute(obj(v), fldPath.child('attributes').key(k)))
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
  errs.push(...validateSet<unknown>(spec.devices, RESOURCE_SLICE_MAX_DEVICES, (d, q) => validateDevice(obj(d), perDevice, q), (d) => str(obj(d).name), p.child('devices')))
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
