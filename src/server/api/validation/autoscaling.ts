/**
 * Validation of the autoscaling API group, after the reference's
 * `pkg/apis/autoscaling/validation/validation.go`: a HorizontalPodAutoscaler's replica bounds,
 * scale target, metrics of every source type and their targets, and scaling behavior. The
 * reference validates the internal form, which is autoscaling/v2's shape: a v1 object is
 * converted first (its targetCPUUtilizationPercentage becomes a Resource metric), so its
 * errors carry the v2 paths, as the reference's do.
 */
import type { KubeObject } from '../registry/object.js'
import { type ErrorList, Path, forbidden, invalid, notSupported, required } from './field/index.js'
import { type Obj, arr, obj, str } from './helpers.js'
import { validateNonnegativeField } from './objectmeta.js'
import { ZERO_QUANTITY, compareQuantity, parseQuantity } from './quantity.js'
import { quantityValue } from './core/common.js'
import { validateContainerResourceName } from './core/resources.js'
import { isDNS1123Label, isValidPathSegmentName } from './strings.js'

/** The largest scaling policy period and stabilization window (seconds). */
const MAX_PERIOD_SECONDS = 1800
const MAX_STABILIZATION_WINDOW_SECONDS = 3600
/** HPAScaleToZero is alpha (off) in the reference's 1.35: minReplicas is at least 1. */
const HPA_SCALE_TO_ZERO = false

const SPEC = Path.of('spec')
const isSet = (v: unknown): boolean => v !== undefined && v !== null

/** The sign of a quantity field (Quantity.Sign()): -1, 0 or 1; an unparsable one reads as zero. */
function sign(v: unknown): number {
  const q = parseQuantity(v)
  return q ? compareQuantity(q, ZERO_QUANTITY) : 0
}

/** ValidateCrossVersionObjectReference: kind and name required, each a path segment. */
export function validateCrossVersionObjectReference(ref: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  for (const f of ['kind', 'name']) {
    const v = str(ref[f])
    if (v === '') errs.push(required(fldPath.child(f)))
    else for (const m of isValidPathSegmentName(v)) errs.push(invalid(fldPath.child(f), v, m))
  }
  return errs
}

/** validateMetricIdentifier. */
function validateMetricIdentifier(id: Obj, fldPath: Path): ErrorList {
  const name = str(id.name)
  if (name === '') return [required(fldPath.child('name'), 'must specify a metric name')]
  return isValidPathSegmentName(name).map((m) => invalid(fldPath.child('name'), name, m))
}

/** validateMetricTarget: a known type, positive values, a utilization of at least 1. */
function validateMetricTarget(mt: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const type = str(mt.type)
  if (type === '') errs.push(required(fldPath.child('type'), 'must specify a metric target type'))
  if (!['Utilization', 'Value', 'AverageValue'].includes(type)) errs.push(invalid(fldPath.child('type'), type, 'must be either Utilization, Value, or AverageValue'))
  for (const f of ['value', 'averageValue']) {
    if (isSet(mt[f]) && sign(mt[f]) !== 1) errs.push(invalid(fldPath.child(f), quantityValue(parseQuantity(mt[f]) ?? ZERO_QUANTITY), 'must be positive'))
  }
  if (typeof mt.averageUtilization === 'number' && mt.averageUtilization < 1) errs.push(invalid(fldPath.child('averageUtilization'), mt.averageUtilization, 'must be greater than 0'))
  return errs
}

function validateObjectSource(src: Obj, fldPath: Path): ErrorList {
  const target = obj(src.target)
  const errs = [
    ...validateCrossVersionObjectReference(obj(src.describedObject), fldPath.child('describedObject')),
    ...validateMetricIdentifier(obj(src.metric), fldPath.child('metric')),
    ...validateMetricTarget(target, fldPath.child('target')),
  ]
  if (!isSet(target.value) && !isSet(target.averageValue)) errs.push(required(fldPath.child('target', 'averageValue'), 'must set either a target value or averageValue'))
  return errs
}

function validateExternalSource(src: Obj, fldPath: Path): ErrorList {
  const target = obj(src.target)
  const errs = [...validateMetricIdentifier(obj(src.metric), fldPath.child('metric')), ...validateMetricTarget(target, fldPath.child('target'))]
  if (!isSet(target.value) && !isSet(target.averageValue)) errs.push(required(fldPath.child('target', 'averageValue'), 'must set either a target value for metric or a per-pod target'))
  if (isSet(target.value) && isSet(target.averageValue)) errs.push(forbidden(fldPath.child('target', 'value'), 'may not set both a target value for metric and a per-pod target'))
  return errs
}

function validatePodsSource(src: Obj, fldPath: Path): ErrorList {
  const target = obj(src.target)
  const errs = [...validateMetricIdentifier(obj(src.metric), fldPath.child('metric')), ...validateMetricTarget(target, fldPath.child('target'))]
  if (!isSet(target.averageValue)) errs.push(required(fldPath.child('target', 'averageValue'), 'must specify a positive target averageValue'))
  return errs
}

/** The utilization-or-value rule shared by Resource and ContainerResource sources. */
function utilizationOrValue(target: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (!isSet(target.averageUtilization) && !isSet(target.averageValue)) errs.push(required(fldPath.child('target', 'averageUtilization'), 'must set either a target raw value or a target utilization'))
  if (isSet(target.averageUtilization) && isSet(target.averageValue)) errs.push(forbidden(fldPath.child('target', 'averageValue'), 'may not set both a target raw value and a target utilization'))
  return errs
}

function validateResourceSource(src: Obj, fldPath: Path): ErrorList {
  const target = obj(src.target)
  const errs: ErrorList = []
  if (str(src.name) === '') errs.push(required(fldPath.child('name'), 'must specify a resource name'))
  errs.push(...validateMetricTarget(target, fldPath.child('target')), ...utilizationOrValue(target, fldPath))
  return errs
}

function validateContainerResourceSource(src: Obj, fldPath: Path): ErrorList {
  const target = obj(src.target)
  const errs: ErrorList = []
  const name = str(src.name)
  if (name === '') errs.push(required(fldPath.child('name'), 'must specify a resource name'))
  else errs.push(...validateContainerResourceName(name, fldPath.child('name')))
  const container = str(src.container)
  if (container === '') errs.push(required(fldPath.child('container'), 'must specify a container'))
  else for (const m of isDNS1123Label(container)) errs.push(invalid(fldPath.child('container'), container, m))
  errs.push(...validateMetricTarget(target, fldPath.child('target')), ...utilizationOrValue(target, fldPath))
  return errs
}

const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource']
/** [metric type, its field, the source's validator], in the reference's order of checks. */
const SOURCES: readonly [string, string, (src: Obj, p: Path) => ErrorList][] = [
  ['Object', 'object', validateObjectSource],
  ['External', 'external', validateExternalSource],
  ['Pods', 'pods', validatePodsSource],
  ['Resource', 'resource', validateResourceSource],
  ['ContainerResource', 'containerResource', validateContainerResourceSource],
]

/** validateMetricSpec: a known type, its source populated, and that source only. */
function validateMetricSpec(spec: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const type = str(spec.type)
  if (type === '') errs.push(required(fldPath.child('type'), 'must specify a metric source type'))
  if (!METRIC_SOURCE_TYPES.includes(type)) errs.push(notSupported(fldPath.child('type'), type, METRIC_SOURCE_TYPES))
  const present: string[] = []
  for (const [, field, validate] of SOURCES) {
    if (!isSet(spec[field])) continue
    present.push(field)
    // Only the first source present is validated, as the reference's typesPresent.Len() == 1.
    if (present.length === 1) errs.push(...validate(obj(spec[field]), fldPath.child(field)))
  }
  const expected = SOURCES.find(([t]) => t === type)
  if (expected) {
    if (!isSet(spec[expected[1]])) errs.push(required(fldPath.child(expected[1]), 'must populate information for the given metric source'))
  } else errs.push(notSupported(fldPath.child('type'), type, METRIC_SOURCE_TYPES))
  if (present.length !== 1) {
    for (const field of present) if (field !== expected?.[1]) errs.push(forbidden(fldPath.child(field), 'must populate the given metric source only'))
  }
  return errs
}

/** validateMetrics: each metric, and scaling to zero only with an Object or External metric. */
function validateMetrics(metrics: unknown[], fldPath: Path, minReplicas: unknown): ErrorList {
  const errs: ErrorList = []
  let objectOrExternal = false
  metrics.forEach((m, i) => {
    errs.push(...validateMetricSpec(obj(m), fldPath.index(i)))
    if (['Object', 'External'].includes(str(obj(m).type))) objectOrExternal = true
  })
  if (minReplicas === 0 && !objectOrExternal) errs.push(forbidden(fldPath, 'must specify at least one Object or External metric to support scaling to zero replicas'))
  return errs
}

const SELECT_POLICIES = ['Disabled', 'Max', 'Min']
const POLICY_TYPES = ['Percent', 'Pods']

/** validateScalingPolicy. */
function validateScalingPolicy(policy: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const type = str(policy.type)
  if (type !== 'Pods' && type !== 'Percent') errs.push(notSupported(fldPath.child('type'), type, POLICY_TYPES))
  const value = typeof policy.value === 'number' ? policy.value : 0
  if (value <= 0) errs.push(invalid(fldPath.child('value'), value, 'must be greater than zero'))
  const period = typeof policy.periodSeconds === 'number' ? policy.periodSeconds : 0
  if (period <= 0) errs.push(invalid(fldPath.child('periodSeconds'), period, 'must be greater than zero'))
  if (period > MAX_PERIOD_SECONDS) errs.push(invalid(fldPath.child('periodSeconds'), period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`))
  return errs
}

/** validateScalingRules: the window, the select policy, at least one valid policy, the tolerance. */
function validateScalingRules(value: unknown, fldPath: Path): ErrorList {
  if (!isSet(value)) return []
  const rules = obj(value)
  const errs: ErrorList = []
  const window = rules.stabilizationWindowSeconds
  if (typeof window === 'number' && window < 0) errs.push(invalid(fldPath.child('stabilizationWindowSeconds'), window, 'must be greater than or equal to zero'))
  if (typeof window === 'number' && window > MAX_STABILIZATION_WINDOW_SECONDS) {
    errs.push(invalid(fldPath.child('stabilizationWindowSeconds'), window, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`))
  }
  if (isSet(rules.selectPolicy) && !SELECT_POLICIES.includes(str(rules.selectPolicy))) errs.push(notSupported(fldPath.child('selectPolicy'), str(rules.selectPolicy), SELECT_POLICIES))
  const policies = arr(rules.policies)
  if (policies.length === 0) errs.push(required(fldPath.child('policies'), 'must specify at least one Policy'))
  policies.forEach((p, i) => errs.push(...validateScalingPolicy(obj(p), fldPath.child('policies').index(i))))
  // HPAConfigurableTolerance (beta, on in 1.35): a tolerance is not negative.
  if (isSet(rules.tolerance) && sign(rules.tolerance) < 0) {
    errs.push(invalid(fldPath.child('tolerance'), quantityValue(parseQuantity(rules.tolerance) ?? ZERO_QUANTITY), 'must be greater than or equal to zero'))
  }
  return errs
}

/** validateHorizontalPodAutoscalerSpec of the internal (v2-shaped) spec. */
function validateHorizontalPodAutoscalerSpec(spec: Obj, fldPath: Path, minReplicasLowerBound: number): ErrorList {
  const errs: ErrorList = []
  const min = spec.minReplicas
  const max = typeof spec.maxReplicas === 'number' ? spec.maxReplicas : 0
  if (typeof min === 'number' && min < minReplicasLowerBound) errs.push(invalid(fldPath.child('minReplicas'), min, `must be greater than or equal to ${minReplicasLowerBound}`))
  if (max < 1) errs.push(invalid(fldPath.child('maxReplicas'), max, 'must be greater than 0'))
  if (typeof min === 'number' && max < min) errs.push(invalid(fldPath.child('maxReplicas'), max, 'must be greater than or equal to `minReplicas`'))
  errs.push(...validateCrossVersionObjectReference(obj(spec.scaleTargetRef), fldPath.child('scaleTargetRef')))
  errs.push(...validateMetrics(arr(spec.metrics), fldPath.child('metrics'), min))
  if (isSet(spec.behavior)) {
    const behavior = obj(spec.behavior)
    errs.push(...validateScalingRules(behavior.scaleUp, fldPath.child('behavior', 'scaleUp')), ...validateScalingRules(behavior.scaleDown, fldPath.child('behavior', 'scaleDown')))
  }
  return errs
}

/** ValidateHorizontalPodAutoscaler (create) of an object in the internal (v2) shape. */
export function validateHorizontalPodAutoscaler(o: KubeObject): ErrorList {
  return validateHorizontalPodAutoscalerSpec(obj(o.spec), SPEC, HPA_SCALE_TO_ZERO ? 0 : 1)
}

/** ValidateHorizontalPodAutoscalerUpdate: a stored minReplicas of 0 may stay 0. */
export function validateHorizontalPodAutoscalerUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const lowerBound = HPA_SCALE_TO_ZERO || obj(old.spec).minReplicas === 0 ? 0 : 1
  return validateHorizontalPodAutoscalerSpec(obj(o.spec), SPEC, lowerBound)
}

/** ValidateHorizontalPodAutoscalerStatusUpdate: replica counts not negative. */
export function validateHorizontalPodAutoscalerStatusUpdate(o: KubeObject): ErrorList {
  const status = obj(o.status)
  const count = (v: unknown) => (typeof v === 'number' ? v : 0)
  return [
    ...validateNonnegativeField(count(status.currentReplicas), Path.of('status', 'currentReplicas')),
    ...validateNonnegativeField(count(status.desiredReplicas), Path.of('status', 'desiredReplicas')),
  ]
}
