/**
 * Validation of the policy API group, after the reference's `pkg/apis/policy/validation/validation.go`:
 * a PodDisruptionBudget has minAvailable or maxUnavailable (not both), each a non-negative
 * integer or a percentage up to 100%, a valid selector and a known unhealthy-pod eviction
 * policy; its status counts are not negative.
 */
import type { KubeObject } from '../registry/object.js'
import { type CauseLike, Path, Rendered, goJSON, invalid, notSupported } from './field/index.js'
import { obj } from './helpers.js'
import { labelSelectorJSON } from './label-selector.js'
import { validateConditions, validateLabelSelector } from './meta-v1.js'
import { validateNonnegativeField } from './objectmeta.js'
import { validatePositiveIntOrPercent } from './apps.js'
import { isValidPercent } from './strings.js'

type ErrorList = CauseLike[]
type Obj = Record<string, unknown>

const SPEC = Path.of('spec')
const UNHEALTHY_POD_EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget']

const isSet = (v: unknown): boolean => v !== undefined && v !== null

/** IsNotMoreThan100Percent (apps validation). */
function notMoreThan100Percent(v: unknown, fldPath: Path): ErrorList {
  if (typeof v !== 'string' || isValidPercent(v).length > 0) return []
  return Number.parseInt(v.slice(0, -1), 10) <= 100 ? [] : [invalid(fldPath, v, 'must not be greater than 100%')]
}

/** json.Marshal of the internal PodDisruptionBudgetSpec (Go field names, declaration order). */
function specJSON(spec: Obj): Rendered {
  const ptr = (v: unknown): string => (isSet(v) ? goJSON(v) : 'null')
  return new Rendered(
    `{"MinAvailable":${ptr(spec.minAvailable)},"Selector":${isSet(spec.selector) ? labelSelectorJSON(spec.selector).text : 'null'},"MaxUnavailable":${ptr(spec.maxUnavailable)},"UnhealthyPodEvictionPolicy":${ptr(spec.unhealthyPodEvictionPolicy)}}`,
  )
}

/** ValidatePodDisruptionBudgetSpec. */
export function validatePodDisruptionBudgetSpec(spec: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (isSet(spec.minAvailable) && isSet(spec.maxUnavailable)) errs.push(invalid(fldPath, specJSON(spec), 'minAvailable and maxUnavailable cannot be both set'))
  for (const f of ['minAvailable', 'maxUnavailable']) {
    if (!isSet(spec[f])) continue
    errs.push(...validatePositiveIntOrPercent(spec[f], fldPath.child(f)), ...notMoreThan100Percent(spec[f], fldPath.child(f)))
  }
  errs.push(...validateLabelSelector(spec.selector, { allowInvalidLabelValueInSelector: false }, fldPath.child('selector')))
  if (isSet(spec.unhealthyPodEvictionPolicy) && !UNHEALTHY_POD_EVICTION_POLICIES.includes(String(spec.unhealthyPodEvictionPolicy))) {
    errs.push(notSupported(fldPath.child('unhealthyPodEvictionPolicy'), String(spec.unhealthyPodEvictionPolicy), UNHEALTHY_POD_EVICTION_POLICIES))
  }
  return errs
}

export function validatePodDisruptionBudget(o: KubeObject): ErrorList {
  return validatePodDisruptionBudgetSpec(obj(o.spec), SPEC)
}

/** ValidatePodDisruptionBudgetStatusUpdate (policy/v1): counts not negative, valid conditions. */
export function validatePodDisruptionBudgetStatusUpdate(o: KubeObject): ErrorList {
  const s = obj(o.status)
  const p = Path.of('status')
  const errs: ErrorList = []
  for (const f of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) errs.push(...validateNonnegativeField(typeof s[f] === 'number' ? s[f] : 0, p.child(f)))
  errs.push(...validateConditions(s.conditions, p.child('conditions')))
  return errs
}
