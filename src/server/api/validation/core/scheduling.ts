/**
 * Where a pod may run (pkg/apis/core/validation: validateAffinity, ValidateNodeSelector,
 * ValidateTolerations, validateTaintEffect, validateTopologySpreadConstraints).
 */
import { type ErrorList, type Path, duplicate, forbidden, invalid, notSupported, required } from '../field/index.js'
import { type Obj, arr, obj, str } from '../helpers.js'
import { validateLabelName, validateLabelSelector } from '../meta-v1.js'
import { nameIsDNSLabel, nameIsDNSSubdomain } from '../names.js'
import { isValidLabelValue } from '../strings.js'
import { IS_NOT_POSITIVE_ERROR_MSG } from './common.js'

const has = (o: Obj, k: string) => o[k] !== undefined && o[k] !== null

export function validateNodeSelectorRequirement(rq: Obj, allowInvalidLabelValue: boolean, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const values = arr(rq.values).map((v) => str(v))
  const operator = str(rq.operator)
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(required(fldPath.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"))
      break
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(forbidden(fldPath.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
      break
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errs.push(required(fldPath.child('values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
      break
    default:
      errs.push(invalid(fldPath.child('operator'), operator, 'not a valid selector operator'))
  }
  errs.push(...validateLabelName(str(rq.key), fldPath.child('key')))
  if (!allowInvalidLabelValue) values.forEach((v, i) => isValidLabelValue(v).forEach((m) => errs.push(invalid(fldPath.child('values').index(i), v, m))))
  return errs
}

function validateNodeFieldSelectorRequirement(req: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const operator = str(req.operator)
  const values = arr(req.values).map((v) => str(v))
  if (operator === 'In' || operator === 'NotIn') {
    if (values.length !== 1) errs.push(required(fldPath.child('values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
  } else errs.push(invalid(fldPath.child('operator'), operator, 'not a valid selector operator'))
  if (str(req.key) !== 'metadata.name') errs.push(invalid(fldPath.child('key'), str(req.key), 'not a valid field selector key'))
  else values.forEach((v, i) => nameIsDNSSubdomain(v, false).forEach((m) => errs.push(invalid(fldPath.child('values').index(i), v, m))))
  return errs
}

export function validateNodeSelectorTerm(term: Obj, allowInvalidLabelValue: boolean, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  arr(term.matchExpressions).forEach((r, j) => errs.push(...validateNodeSelectorRequirement(obj(r), allowInvalidLabelValue, fldPath.child('matchExpressions').index(j))))
  arr(term.matchFields).forEach((r, j) => errs.push(...validateNodeFieldSelectorRequirement(obj(r), fldPath.child('matchFields').index(j))))
  return errs
}

/** ValidateNodeSelector (a required node affinity, a PV's node affinity). */
export function validateNodeSelector(ns: Obj, allowInvalidLabelValue: boolean, fldPath: Path): ErrorList {
  const termPath = fldPath.child('nodeSelectorTerms')
  const terms = arr(ns.nodeSelectorTerms)
  if (terms.length === 0) return [required(termPath, 'must have at least one node selector term')]
  return terms.flatMap((t, i) => validateNodeSelectorTerm(obj(t), allowInvalidLabelValue, termPath.index(i)))
}

function validatePodAffinityTerm(term: Obj, fldPath: Path): ErrorList {
  const errs = validateLabelSelector(term.labelSelector, {}, fldPath.child('labelSelector'))
  errs.push(...validateLabelSelector(term.namespaceSelector, {}, fldPath.child('namespaceSelector')))
  const namespaces = arr(term.namespaces)
  for (let i = 0; i < namespaces.length; i++) {
    const ns = str(namespaces[i])
    for (const m of nameIsDNSLabel(ns, false)) errs.push(invalid(fldPath.child('namespace'), ns, m))
  }
  errs.push(...validateMatchLabelKeys(fldPath, term))
  if (!str(term.topologyKey)) errs.push(required(fldPath.child('topologyKey'), 'can not be empty'))
  errs.push(...validateLabelName(str(term.topologyKey), fldPath.child('topologyKey')))
  return errs
}

/** validateMatchLabelKeysAndMismatchLabelKeys (as far as the keys themselves go). */
function validateMatchLabelKeys(fldPath: Path, term: Obj): ErrorList {
  // Nearly every term has neither list: nothing to check, and no lists, set or closures to make.
  if (arr(term.matchLabelKeys).length === 0 && arr(term.mismatchLabelKeys).length === 0) return []
  const errs: ErrorList = []
  const match = arr(term.matchLabelKeys).map((k) => str(k))
  const mismatch = arr(term.mismatchLabelKeys).map((k) => str(k))
  if ((match.length > 0 || mismatch.length > 0) && !has(term, 'labelSelector')) {
    if (match.length > 0) errs.push(forbidden(fldPath.child('matchLabelKeys'), 'must not be specified when labelSelector is not set'))
    if (mismatch.length > 0) errs.push(forbidden(fldPath.child('mismatchLabelKeys'), 'must not be specified when labelSelector is not set'))
    return errs
  }
  match.forEach((k, i) => errs.push(...validateLabelName(k, fldPath.child('matchLabelKeys').index(i))))
  mismatch.forEach((k, i) => errs.push(...validateLabelName(k, fldPath.child('mismatchLabelKeys').index(i))))
  const both = new Set(match.filter((k) => mismatch.includes(k)))
  mismatch.forEach((k, i) => {
    if (both.has(k)) errs.push(invalid(fldPath.child('mismatchLabelKeys').index(i), k, 'exists in both matchLabelKeys and mismatchLabelKeys'))
  })
  return errs
}

function validatePodAffinityTerms(terms: unknown, fldPath: Path): ErrorList {
  const list = arr(terms)
  const errs: ErrorList = []
  for (let i = 0; i < list.length; i++) errs.push(...validatePodAffinityTerm(obj(list[i]), fldPath.index(i)))
  return errs
}

function validateWeightedPodAffinityTerms(terms: unknown, fldPath: Path): ErrorList {
  const list = arr(terms)
  const errs: ErrorList = []
  for (let j = 0; j < list.length; j++) {
    const term = obj(list[j])
    const weight = typeof term.weight === 'number' ? term.weight : 0
    if (weight <= 0 || weight > 100) errs.push(invalid(fldPath.index(j).child('weight'), weight, 'must be in the range 1-100'))
    errs.push(...validatePodAffinityTerm(obj(term.podAffinityTerm), fldPath.index(j).child('podAffinityTerm')))
  }
  return errs
}

/** validateAffinity. */
export function validateAffinity(affinity: unknown, fldPath: Path): ErrorList {
  if (affinity === undefined || affinity === null) return []
  const a = obj(affinity)
  const errs: ErrorList = []
  if (has(a, 'nodeAffinity')) {
    const na = obj(a.nodeAffinity)
    const p = fldPath.child('nodeAffinity')
    if (has(na, 'requiredDuringSchedulingIgnoredDuringExecution')) {
      errs.push(...validateNodeSelector(obj(na.requiredDuringSchedulingIgnoredDuringExecution), false, p.child('requiredDuringSchedulingIgnoredDuringExecution')))
    }
    arr(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      const term = obj(t)
      const tp = p.child('preferredDuringSchedulingIgnoredDuringExecution').index(i)
      const weight = typeof term.weight === 'number' ? term.weight : 0
      if (weight <= 0 || weight > 100) errs.push(invalid(tp.child('weight'), weight, 'must be in the range 1-100'))
      errs.push(...validateNodeSelectorTerm(obj(term.preference), true, tp.child('preference')))
    })
  }
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    if (!has(a, kind)) continue
    const pa = obj(a[kind])
    const p = fldPath.child(kind)
    errs.push(...validatePodAffinityTerms(pa.requiredDuringSchedulingIgnoredDuringExecution, p.child('requiredDuringSchedulingIgnoredDuringExecution')))
    errs.push(...validateWeightedPodAffinityTerms(pa.preferredDuringSchedulingIgnoredDuringExecution, p.child('preferredDuringSchedulingIgnoredDuringExecution')))
  }
  return errs
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute']

export function validateTaintEffect(effect: string, allowEmpty: boolean, fldPath: Path): ErrorList {
  if (!allowEmpty && effect.length === 0) return [required(fldPath)]
  return TAINT_EFFECTS.includes(effect) ? [] : [notSupported(fldPath, effect, TAINT_EFFECTS)]
}

/** ValidateTolerations. */
export function validateTolerations(tolerations: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  arr(tolerations).forEach((t, i) => {
    const tol = obj(t)
    const idx = fldPath.index(i)
    const key = str(tol.key)
    const operator = str(tol.operator)
    const effect = str(tol.effect)
    const value = str(tol.value)
    if (key) errs.push(...validateLabelName(key, idx.child('key')))
    if (!key && operator !== 'Exists') errs.push(invalid(idx.child('operator'), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'))
    if (has(tol, 'tolerationSeconds') && effect !== 'NoExecute') errs.push(invalid(idx.child('effect'), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
    switch (operator) {
      case 'Equal':
      case '': {
        const msgs = isValidLabelValue(value)
        if (msgs.length > 0) errs.push(invalid(idx.child('operator'), value, msgs.join(';')))
        break
      }
      case 'Exists':
        if (value) errs.push(invalid(idx.child('operator'), value, "value must be empty when `operator` is 'Exists'"))
        break
      default:
        errs.push(notSupported(idx.child('operator'), operator, ['Equal', 'Exists']))
    }
    if (effect) errs.push(...validateTaintEffect(effect, true, idx.child('effect')))
  })
  return errs
}

/** validateTopologySpreadConstraints. */
export function validateTopologySpreadConstraints(constraints: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const list = arr(constraints).map(obj)
  list.forEach((c, i) => {
    const p = fldPath.index(i)
    const maxSkew = typeof c.maxSkew === 'number' ? c.maxSkew : 0
    if (maxSkew <= 0) errs.push(invalid(p.child('maxSkew'), maxSkew, IS_NOT_POSITIVE_ERROR_MSG))
    if (!str(c.topologyKey)) errs.push(required(p.child('topologyKey'), 'can not be empty'))
    const action = str(c.whenUnsatisfiable)
    if (action !== 'DoNotSchedule' && action !== 'ScheduleAnyway') errs.push(notSupported(p.child('whenUnsatisfiable'), action, ['DoNotSchedule', 'ScheduleAnyway']))
    const repeated = list.slice(i + 1).some((r) => str(r.topologyKey) === str(c.topologyKey) && str(r.whenUnsatisfiable) === action)
    if (repeated) errs.push(duplicate(p.child('{topologyKey, whenUnsatisfiable}'), `{${str(c.topologyKey)}, ${action}}`))
    if (has(c, 'minDomains')) {
      const md = typeof c.minDomains === 'number' ? c.minDomains : 0
      if (md <= 0) errs.push(invalid(p.child('minDomains'), md, IS_NOT_POSITIVE_ERROR_MSG))
      if (action !== 'DoNotSchedule') errs.push(invalid(p.child('minDomains'), md, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${action}`))
    }
    for (const f of ['nodeAffinityPolicy', 'nodeTaintsPolicy']) {
      if (has(c, f) && !['Honor', 'Ignore'].includes(str(c[f]))) errs.push(notSupported(p.child(f), str(c[f]), ['Honor', 'Ignore']))
    }
    const keys = arr(c.matchLabelKeys).map((k) => str(k))
    if (keys.length > 0 && !has(c, 'labelSelector')) errs.push(forbidden(p.child('matchLabelKeys'), 'must not be specified when labelSelector is not set'))
    else keys.forEach((k, j) => errs.push(...validateLabelName(k, p.child('matchLabelKeys').index(j))))
    errs.push(...validateLabelSelector(c.labelSelector, {}, p.child('labelSelector')))
  })
  return errs
}
