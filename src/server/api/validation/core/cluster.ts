/**
 * Namespaces, nodes, limit ranges and resource quotas (pkg/apis/core/validation:
 * ValidateNamespace*, ValidateNode*, ValidateLimitRange, ValidateResourceQuota*).
 */
import { type ErrorList, FieldError, Path, duplicate, forbidden, internalError, invalid, required, structJSON } from '../field/index.js'
import { type Obj, arr, obj, str } from '../helpers.js'
import { validateLabelName } from '../meta-v1.js'
import { validateFinalizerName } from '../objectmeta.js'
import { type Quantity, compareQuantity, milliValue, parseQuantity, quantityString } from '../quantity.js'
import { isQualifiedName, isValidCIDR, isValidLabelValue, isIPv6String } from '../strings.js'
import { quantityValue } from './common.js'
import { isOvercommitAllowed, validateResourceName, validateResourceQuantityValue } from './resources.js'
import { validateTaintEffect } from './scheduling.js'

const has = (o: Obj, k: string) => o[k] !== undefined && o[k] !== null

// ---- namespaces ----

function validateNamespaceFinalizer(name: string, fldPath: Path): ErrorList {
  const errs = validateFinalizerName(name, fldPath)
  if (!name.includes('/') && !['kubernetes', 'orphan', 'foregroundDeletion'].includes(name)) {
    errs.push(invalid(fldPath, name, 'name is neither a standard finalizer name nor is it fully qualified'))
  }
  return errs
}

/** ValidateNamespace (metadata by the generic store). */
export function validateNamespace(o: Obj): ErrorList {
  return arr(obj(o.spec).finalizers).flatMap((f) => validateNamespaceFinalizer(str(f), Path.of('spec', 'finalizers')))
}

/** ValidateNamespaceUpdate: metadata only (the spec's finalizers change through finalize). */
export function validateNamespaceUpdate(): ErrorList {
  return []
}

/** ValidateNamespaceStatusUpdate (beyond metadata). */
export function validateNamespaceStatusUpdate(o: Obj): ErrorList {
  const phase = str(obj(o.status).phase)
  if (!o.metadata || !obj(o.metadata).deletionTimestamp) {
    if (phase !== 'Active') return [invalid(Path.of('status', 'Phase'), phase, "may only be 'Active' if `deletionTimestamp` is empty")]
  } else if (phase !== 'Terminating') return [invalid(Path.of('status', 'Phase'), phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")]
  return []
}

/** ValidateNamespaceFinalizeUpdate (beyond metadata). */
export function validateNamespaceFinalizeUpdate(o: Obj): ErrorList {
  return arr(obj(o.spec).finalizers).flatMap((f, i) => validateNamespaceFinalizer(str(f), Path.of('spec', 'finalizers').index(i)))
}

// ---- nodes ----

function validateNodeTaints(taints: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const unique = new Map<string, Set<string>>()
  arr(taints).forEach((t, i) => {
    const taint = obj(t)
    const idx = fldPath.index(i)
    const key = str(taint.key)
    const effect = str(taint.effect)
    errs.push(...validateLabelName(key, idx.child('key')))
    const msgs = isValidLabelValue(str(taint.value))
    if (msgs.length > 0) errs.push(invalid(idx.child('value'), str(taint.value), msgs.join(';')))
    errs.push(...validateTaintEffect(effect, false, idx.child('effect')))
    const keys = unique.get(effect) ?? new Set<string>()
    if (keys.has(key)) {
      // The internal core.Taint, json.Marshal'ed in its declaration order (no json tags).
      const value = structJSON({ Key: key, Value: str(taint.value), Effect: effect, TimeAdded: taint.timeAdded ?? null }, [['Key'], ['Value'], ['Effect'], ['TimeAdded']])
      errs.push(new FieldError('FieldValueDuplicate', idx.toString(), value, 'taints must be unique by key and effect pair'))
      return
    }
    keys.add(key)
    unique.set(effect, keys)
  })
  return errs
}

function validateNodeResources(o: Obj): ErrorList {
  const errs: ErrorList = []
  for (const kind of ['capacity', 'allocatable']) {
    for (const [k, v] of Object.entries(obj(obj(o.status)[kind]))) {
      const q = parseQuantity(v)
      if (q) errs.push(...validateResourceQuantityValue(k, q, Path.of('status', kind, k)))
    }
  }
  return errs
}

/** ValidateNode (metadata by the generic store). */
export function validateNode(o: Obj): ErrorList {
  const spec = obj(o.spec)
  const errs: ErrorList = []
  if (arr(spec.taints).length > 0) errs.push(...validateNodeTaints(spec.taints, Path.of('metadata', 'taints')))
  errs.push(...validateNodeResources(o))
  const cidrs = arr(spec.podCIDRs).map((c) => str(c))
  if (cidrs.length > 0) {
    const p = Path.of('spec', 'podCIDRs')
    cidrs.forEach((c, i) => errs.push(...isValidCIDR(p.index(i), c)))
    if (cidrs.length > 1) {
      const families = cidrs.map((c) => isIPv6String(c.split('/')[0]!))
      if (families[0] === families[1] || cidrs.length > 2) errs.push(invalid(p, cidrs, 'may specify no more than one CIDR for each IP family'))
      const seen = new Set<string>()
      cidrs.forEach((c, i) => {
        if (seen.has(c)) errs.push(duplicate(p.index(i), c))
        seen.add(c)
      })
    }
  }
  return errs
}

/** ValidateNodeUpdate (beyond metadata). */
export function validateNodeUpdate(o: Obj, old: Obj): ErrorList {
  const spec = obj(o.spec)
  const oldSpec = obj(old.spec)
  const errs = validateNodeResources(o)
  const seen = new Set<string>()
  arr(obj(o.status).addresses).forEach((a, i) => {
    const key = JSON.stringify([str(obj(a).type), str(obj(a).address)])
    if (seen.has(key)) errs.push(duplicate(Path.of('status', 'addresses').index(i), structJSON({ Type: str(obj(a).type), Address: str(obj(a).address) }, [['Type'], ['Address']])))
    seen.add(key)
  })
  const oldCIDRs = arr(oldSpec.podCIDRs).map((c) => str(c))
  const newCIDRs = arr(spec.podCIDRs).map((c) => str(c))
  if (oldCIDRs.length > 0) {
    const msg = 'node updates may not change podCIDR except from "" to valid'
    if (oldCIDRs.length !== newCIDRs.length) errs.push(forbidden(Path.of('spec', 'podCIDRs'), msg))
    else oldCIDRs.forEach((c, i) => c !== newCIDRs[i] && errs.push(forbidden(Path.of('spec', 'podCIDRs'), msg)))
  }
  if (str(oldSpec.providerID) && str(oldSpec.providerID) !== str(spec.providerID)) {
    errs.push(forbidden(Path.of('spec', 'providerID'), 'node updates may not change providerID except from "" to valid'))
  }
  if (arr(spec.taints).length > 0) errs.push(...validateNodeTaints(spec.taints, Path.of('metadata', 'taints')))
  if (str(spec.externalID) !== str(oldSpec.externalID)) errs.push(forbidden(Path.of('spec', 'externalID'), 'may not be updated'))
  return errs
}

// ---- limit ranges ----

const STANDARD_LIMIT_TYPES = new Set(['Pod', 'Container', 'PersistentVolumeClaim'])
const STANDARD_CONTAINER = new Set(['cpu', 'memory', 'ephemeral-storage'])

function validateLimitRangeResourceName(type: string, name: string, fldPath: Path): ErrorList {
  const errs = validateResourceName(name, fldPath)
  if (type !== 'Pod' && type !== 'Container') return errs
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER.has(name) && !name.startsWith('hugepages-')) return [...errs, invalid(fldPath, name, 'must be a standard resource for containers')]
  }
  return errs
}

/** ValidateLimitRange (metadata by the generic store). */
export function validateLimitRange(o: Obj): ErrorList {
  const errs: ErrorList = []
  const fldPath = Path.of('spec', 'limits')
  const types = new Set<string>()
  arr(obj(o.spec).limits).forEach((l, i) => {
    const limit = obj(l)
    const idx = fldPath.index(i)
    const type = str(limit.type)
    const typeErrs = isQualifiedName(type).map((m) => invalid(idx.child('type'), type, m))
    if (typeErrs.length === 0 && !type.includes('/') && !STANDARD_LIMIT_TYPES.has(type)) typeErrs.push(invalid(idx.child('type'), type, 'must be a standard limit type or fully qualified'))
    errs.push(...typeErrs)
    if (types.has(type)) errs.push(duplicate(idx.child('type'), type))
    types.add(type)
    const keys = new Set<string>()
    const read = (field: string) => {
      const m = new Map<string, Quantity>()
      for (const [k, v] of Object.entries(obj(limit[field]))) {
        errs.push(...validateLimitRangeResourceName(type, k, idx.child(field).key(k)))
        keys.add(k)
        const q = parseQuantity(v)
        if (q) m.set(k, q)
      }
      return m
    }
    const max = read('max')
    const min = read('min')
    let defaults = new Map<string, Quantity>()
    let defaultRequests = new Map<string, Quantity>()
    if (type === 'Pod') {
      if (Object.keys(obj(limit.default)).length > 0) errs.push(forbidden(idx.child('default'), "may not be specified when `type` is 'Pod'"))
      if (Object.keys(obj(limit.defaultRequest)).length > 0) errs.push(forbidden(idx.child('defaultRequest'), "may not be specified when `type` is 'Pod'"))
    } else {
      defaults = read('default')
      defaultRequests = read('defaultRequest')
    }
    if (type === 'PersistentVolumeClaim' && !min.has('storage') && !max.has('storage')) {
      errs.push(required(idx.child('limits'), 'either minimum or maximum storage value is required, but neither was provided'))
    }
    const ratios = read('maxLimitRequestRatio')
    const s = quantityString
    for (const k of keys) {
      const mn = min.get(k)
      const mx = max.get(k)
      const df = defaults.get(k)
      const dr = defaultRequests.get(k)
      const ratio = ratios.get(k)
      if (mn && mx && compareQuantity(mn, mx) > 0) errs.push(invalid(idx.child('min').key(k), quantityValue(mn), `min value ${s(mn)} is greater than max value ${s(mx)}`))
      if (dr && mn && compareQuantity(mn, dr) > 0) errs.push(invalid(idx.child('defaultRequest').key(k), quantityValue(dr), `min value ${s(mn)} is greater than default request value ${s(dr)}`))
      if (dr && mx && compareQuantity(dr, mx) > 0) errs.push(invalid(idx.child('defaultRequest').key(k), quantityValue(dr), `default request value ${s(dr)} is greater than max value ${s(mx)}`))
      if (dr && df && compareQuantity(dr, df) > 0) errs.push(invalid(idx.child('defaultRequest').key(k), quantityValue(dr), `default request value ${s(dr)} is greater than default limit value ${s(df)}`))
      if (df && mn && compareQuantity(mn, df) > 0) errs.push(invalid(idx.child('default').key(k), quantityValue(mn), `min value ${s(mn)} is greater than default value ${s(df)}`))
      if (df && mx && compareQuantity(df, mx) > 0) errs.push(invalid(idx.child('default').key(k), quantityValue(mx), `default value ${s(df)} is greater than max value ${s(mx)}`))
      if (ratio && compareQuantity(ratio, parseQuantity('1')!) < 0) errs.push(invalid(idx.child('maxLimitRequestRatio').key(k), quantityValue(ratio), `ratio ${s(ratio)} is less than 1`))
      if (ratio && mn && mx) {
        const limit = Number(milliValue(mx)) / Number(milliValue(mn))
        if (Number(milliValue(ratio)) / 1000 > limit) errs.push(invalid(idx.child('maxLimitRequestRatio').key(k), quantityValue(ratio), `ratio ${s(ratio)} is greater than max/min = ${limit.toFixed(6)}`))
      }
      if (!isOvercommitAllowed(k) && df && dr && compareQuantity(df, dr) !== 0) {
        errs.push(invalid(idx.child('defaultRequest').key(k), quantityValue(dr), `default value ${s(df)} must equal to defaultRequest value ${s(dr)} in ${k}`))
      }
    }
  })
  return errs
}

// ---- resource quotas ----

const STANDARD_QUOTA = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
])
const STANDARD_SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity', 'VolumeAttributesClass']
const POD_OBJECT_COUNT = new Set(['pods', 'count/pods'])
const POD_COMPUTE = new Set(['cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage'])

function isStandardQuotaResourceName(name: string): boolean {
  return STANDARD_QUOTA.has(name) || name.startsWith('requests.hugepages-') || name.startsWith('count/')
}

function validateQuotaResourceName(name: string, fldPath: Path): ErrorList {
  const errs = validateResourceName(name, fldPath)
  if (!name.includes('/') && !isStandardQuotaResourceName(name)) return [...errs, invalid(fldPath, name, 'must be a standard resource for quota')]
  return errs
}

/** helper.IsResourceQuotaScopeValidForResource. */
function scopeValidForResource(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
    case 'CrossNamespacePodAffinity':
      return POD_OBJECT_COUNT.has(resource) || POD_COMPUTE.has(resource)
    case 'BestEffort':
      return POD_OBJECT_COUNT.has(resource)
    case 'VolumeAttributesClass':
      return ['persistentvolumeclaims', 'requests.storage', 'count/persistentvolumeclaims'].includes(resource)
    default:
      return true
  }
}

function validateHard(hard: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  for (const [k, v] of Object.entries(obj(hard))) {
    const p = fldPath.key(k)
    errs.push(...validateQuotaResourceName(k, p))
    const q = parseQuantity(v)
    if (q) errs.push(...validateResourceQuantityValue(k, q, p))
  }
  return errs
}

function validateQuotaSpec(spec: Obj, fld: Path): ErrorList {
  const errs = validateHard(spec.hard, fld.child('hard'))
  const hard = Object.keys(obj(spec.hard)).sort()
  const scopes = arr(spec.scopes).map((s) => str(s))
  if (scopes.length > 0) {
    const p = fld.child('scopes')
    for (const scope of scopes) {
      if (!STANDARD_SCOPES.includes(scope)) errs.push(invalid(p, scopes, 'unsupported scope'))
      for (const k of hard) if (isStandardQuotaResourceName(k) && !scopeValidForResource(scope, k)) errs.push(invalid(p, scopes, 'unsupported scope applied to resource'))
    }
    if ((scopes.includes('BestEffort') && scopes.includes('NotBestEffort')) || (scopes.includes('Terminating') && scopes.includes('NotTerminating'))) {
      for (const pair of [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']]) if (pair.every((x) => scopes.includes(x))) errs.push(invalid(p, scopes, 'conflicting scopes'))
    }
  }
  if (has(spec, 'scopeSelector')) {
    const p = fld.child('scopeSelector').child('matchExpressions')
    const seen = new Set<string>()
    for (const r of arr(obj(spec.scopeSelector).matchExpressions).map(obj)) {
      const scope = str(r.scopeName)
      const operator = str(r.operator)
      const values = arr(r.values)
      if (!STANDARD_SCOPES.includes(scope)) errs.push(invalid(p.child('scopeName'), scope, 'unsupported scope'))
      for (const k of hard) if (isStandardQuotaResourceName(k) && !scopeValidForResource(scope, k)) errs.push(invalid(p, spec.scopeSelector, 'unsupported scope applied to resource'))
      if (['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity'].includes(scope) && operator !== 'Exists') {
        errs.push(
          invalid(
            p.child('operator'),
            operator,
            "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
          ),
        )
      }
      if (operator === 'In' || operator === 'NotIn') {
        if (values.length === 0) errs.push(required(p.child('values'), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))
      } else if (operator === 'Exists' || operator === 'DoesNotExist') {
        if (values.length !== 0) errs.push(invalid(p.child('values'), values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))
      } else errs.push(invalid(p.child('operator'), operator, 'not a valid selector operator'))
      seen.add(scope)
    }
    for (const pair of [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']]) if (pair.every((x) => seen.has(x))) errs.push(invalid(p, spec.scopes ?? null, 'conflicting scopes'))
  }
  return errs
}

/** ValidateResourceQuota (metadata by the generic store). */
export function validateResourceQuota(o: Obj): ErrorList {
  const status = obj(o.status)
  return [...validateQuotaSpec(obj(o.spec), Path.of('spec')), ...validateHard(status.hard, Path.of('status', 'hard')), ...validateHard(status.used, Path.of('status', 'used'))]
}

/** ValidateResourceQuotaUpdate (beyond metadata): the scopes are fixed. */
export function validateResourceQuotaUpdate(o: Obj, old: Obj): ErrorList {
  const errs = validateQuotaSpec(obj(o.spec), Path.of('spec'))
  const n = new Set(arr(obj(o.spec).scopes).map((s) => str(s)))
  const p = new Set(arr(obj(old.spec).scopes).map((s) => str(s)))
  if (n.size !== p.size || [...n].some((s) => !p.has(s))) errs.push(invalid(Path.of('spec', 'scopes'), obj(o.spec).scopes ?? null, 'field is immutable'))
  return errs
}

/** ValidateResourceQuotaStatusUpdate (beyond metadata). */
export function validateResourceQuotaStatusUpdate(o: Obj): ErrorList {
  const status = obj(o.status)
  return [...validateHard(status.hard, Path.of('status', 'hard')), ...validateHard(status.used, Path.of('status', 'used'))]
}

void internalError
void milliValue
