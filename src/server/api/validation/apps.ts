/**
 * Validation of the apps API group, after the reference's `pkg/apis/apps/validation/validation.go`
 * (Deployments, ReplicaSets, StatefulSets, DaemonSets, ControllerRevisions) and the update rules
 * of `pkg/registry/apps/<kind>/strategy.go` (an apps/v1 selector is immutable). Objects are
 * validated after defaulting, as the reference validates its internal, defaulted objects; bad
 * values that are internal structs print with their Go field names (they have no JSON tags).
 */
import type { KubeObject } from '../registry/object.js'
import { type CauseLike, Path, Rendered, forbidden, goJSON, invalid, notSupported, required } from './field/index.js'
import { obj, str, templateLabels } from './helpers.js'
import { labelSelectorJSON, selectorEmpty, selectorMatches, selectorParseFails } from './label-selector.js'
import { validateLabelSelector } from './meta-v1.js'
import { validateImmutableField, validateNonnegativeField } from './objectmeta.js'
import { validatePodTemplateSpec, validateStatefulSetTemplateMeta } from './core.js'
import { isValidPercent } from './strings.js'

type Obj = Record<string, unknown>
/** Field errors (and the pod spec's plain causes, until that validation returns field errors too). */
type ErrorList = CauseLike[]

const SPEC = Path.of('spec')
const STATUS = Path.of('status')

function int(v: unknown): number {
  return typeof v === 'number' ? v : 0
}

function nonnegative(v: unknown, p: Path): ErrorList {
  return validateNonnegativeField(int(v), p)
}

/** The selector rules every workload shares (strict label values, LabelSelectorAsSelector). */
function validateSelector(selector: unknown, kind: string, fldPath: Path): ErrorList {
  if (selector === undefined || selector === null) return [required(fldPath, '')]
  const errs = validateLabelSelector(selector, { allowInvalidLabelValueInSelector: false }, fldPath)
  if (selectorEmpty(selector)) errs.push(invalid(fldPath, labelSelectorJSON(selector), `empty selector is invalid for ${kind}`))
  return errs
}

/** ValidatePodTemplateSpecForReplicaSet (Deployments and ReplicaSets). */
function validatePodTemplateSpecForReplicaSet(template: Obj, selector: unknown, kind: string, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const labels = obj(obj(template.metadata).labels)
  if (!selectorEmpty(selector) && !selectorMatches(selector, labels)) {
    errs.push(invalid(fldPath.child('metadata', 'labels'), templateLabels(template), '`selector` does not match template `labels`'))
  }
  errs.push(...validatePodTemplateSpec(template, fldPath))
  const podSpec = obj(template.spec)
  if (str(podSpec.restartPolicy) !== 'Always') errs.push(notSupported(fldPath.child('spec', 'restartPolicy'), str(podSpec.restartPolicy), ['Always']))
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    errs.push(forbidden(fldPath.child('spec', 'activeDeadlineSeconds'), `activeDeadlineSeconds in ${kind} is not Supported`))
  }
  return errs
}

/** IntOrString's JSON (the bad value of the rolling-update checks). */
function intOrString(v: unknown): unknown {
  return typeof v === 'string' || typeof v === 'number' ? v : 0
}

/** ValidatePositiveIntOrPercent. */
export function validatePositiveIntOrPercent(v: unknown, fldPath: Path): ErrorList {
  if (typeof v === 'string') return isValidPercent(v).map((m) => invalid(fldPath, v, m))
  if (typeof v === 'number') return validateNonnegativeField(v, fldPath)
  return []
}

function percentValue(v: unknown): number | undefined {
  if (typeof v !== 'string' || isValidPercent(v).length > 0) return undefined
  return Number.parseInt(v.slice(0, -1), 10)
}

/** getIntOrPercentValue: a percent's number, an int, or a string's Atoi (0 when not a number). */
function intOrPercentValue(v: unknown): number {
  const p = percentValue(v)
  if (p !== undefined) return p
  if (typeof v === 'number') return v
  return typeof v === 'string' && /^[+-]?\d+$/.test(v) ? Number.parseInt(v, 10) : 0
}

/** IsNotMoreThan100Percent. */
function isNotMoreThan100Percent(v: unknown, fldPath: Path): ErrorList {
  const p = percentValue(v)
  return p === undefined || p <= 100 ? [] : [invalid(fldPath, intOrString(v), 'must not be greater than 100%')]
}

/**
 * json.Marshal of an internal strategy struct ({Type, RollingUpdate}), whose fields have no JSON
 * tags; its rolling update's MaxUnavailable and MaxSurge are IntOrStrings (0 when unset).
 */
function strategyJSON(strategy: Obj): Rendered {
  const ru = strategy.rollingUpdate
  const value = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? goJSON(v) : '0')
  const ruText = ru === undefined || ru === null ? 'null' : `{"MaxUnavailable":${value(obj(ru).maxUnavailable)},"MaxSurge":${value(obj(ru).maxSurge)}}`
  return new Rendered(`{"Type":${goJSON(str(strategy.type))},"RollingUpdate":${ruText}}`)
}

// ---- Deployments

function validateRollingUpdateDeployment(ru: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = [...validatePositiveIntOrPercent(ru.maxUnavailable, fldPath.child('maxUnavailable')), ...validatePositiveIntOrPercent(ru.maxSurge, fldPath.child('maxSurge'))]
  if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
    errs.push(invalid(fldPath.child('maxUnavailable'), intOrString(ru.maxUnavailable), 'may not be 0 when `maxSurge` is 0'))
  }
  errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, fldPath.child('maxUnavailable')))
  return errs
}

function validateDeploymentStrategy(strategy: Obj, fldPath: Path): ErrorList {
  switch (str(strategy.type)) {
    case 'Recreate':
      return strategy.rollingUpdate !== undefined && strategy.rollingUpdate !== null ? [forbidden(fldPath.child('rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'")] : []
    case 'RollingUpdate':
      if (strategy.rollingUpdate === undefined || strategy.rollingUpdate === null) return [required(fldPath.child('rollingUpdate'), 'this should be defaulted and never be nil')]
      return validateRollingUpdateDeployment(obj(strategy.rollingUpdate), fldPath.child('rollingUpdate'))
    default:
      return [
        notSupported(
          fldPath,
          strategyJSON(strategy),
          ['Recreate', 'RollingUpdate'],
        ),
      ]
  }
}

/** ValidateDeploymentSpec. */
export function validateDeploymentSpec(spec: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = [...nonnegative(spec.replicas, fldPath.child('replicas')), ...validateSelector(spec.selector, 'deployment', fldPath.child('selector'))]
  if (selectorParseFails(spec.selector)) errs.push(invalid(fldPath.child('selector'), labelSelectorJSON(spec.selector), 'invalid label selector'))
  else errs.push(...validatePodTemplateSpecForReplicaSet(obj(spec.template), spec.selector, 'ReplicaSet', fldPath.child('template')))
  errs.push(...validateDeploymentStrategy(obj(spec.strategy), fldPath.child('strategy')))
  errs.push(...nonnegative(spec.minReadySeconds, fldPath.child('minReadySeconds')))
  if (typeof spec.revisionHistoryLimit === 'number') errs.push(...nonnegative(spec.revisionHistoryLimit, fldPath.child('revisionHistoryLimit')))
  if (spec.rollbackTo !== undefined && spec.rollbackTo !== null) errs.push(...nonnegative(obj(spec.rollbackTo).revision, fldPath.child('rollback', 'version')))
  if (typeof spec.progressDeadlineSeconds === 'number') {
    errs.push(...nonnegative(spec.progressDeadlineSeconds, fldPath.child('progressDeadlineSeconds')))
    if (spec.progressDeadlineSeconds <= int(spec.minReadySeconds)) {
      errs.push(invalid(fldPath.child('progressDeadlineSeconds'), spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'))
    }
  }
  return errs
}

/** ValidateDeployment (without the object metadata, which the store checks first). */
export function validateDeployment(o: KubeObject): ErrorList {
  return validateDeploymentSpec(obj(o.spec), SPEC)
}

/** apps/v1 disallows changing a workload's selector (the strategies' ValidateUpdate). */
function immutableSelector(o: KubeObject, old: KubeObject): ErrorList {
  const n = obj(o.spec).selector
  const p = obj(old.spec).selector
  return validateImmutableField(n, p, SPEC.child('selector')).map((e) => invalid(e.field, labelSelectorJSON(n), 'field is immutable'))
}

/** ValidateDeploymentUpdate and the strategy's selector rule. */
export function validateDeploymentUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return [...validateDeploymentSpec(obj(o.spec), SPEC), ...immutableSelector(o, old)]
}

function greaterThanReplicas(status: Obj, fields: string[], fldPath: Path): ErrorList {
  const errs: ErrorList = []
  for (const f of fields) if (int(status[f]) > int(status.replicas)) errs.push(invalid(fldPath.child(f), int(status[f]), 'cannot be greater than status.replicas'))
  return errs
}

function collisionCountDecremented(o: KubeObject, old: KubeObject): ErrorList {
  const n = obj(o.status).collisionCount
  const p = obj(old.status).collisionCount
  if (typeof p !== 'number') return []
  if (typeof n === 'number' && n >= p) return []
  return [invalid(STATUS.child('collisionCount'), typeof n === 'number' ? n : 0, 'cannot be decremented')]
}

/** ValidateDeploymentStatusUpdate (without the metadata). */
export function validateDeploymentStatusUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const s = obj(o.status)
  const errs: ErrorList = []
  for (const f of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']) errs.push(...nonnegative(s[f], STATUS.child(f)))
  if (typeof s.collisionCount === 'number') errs.push(...nonnegative(s.collisionCount, STATUS.child('collisionCount')))
  errs.push(...greaterThanReplicas(s, ['updatedReplicas', 'readyReplicas', 'availableReplicas'], STATUS))
  if (int(s.availableReplicas) > int(s.readyReplicas)) errs.push(invalid(STATUS.child('availableReplicas'), int(s.availableReplicas), 'cannot be greater than readyReplicas'))
  return [...errs, ...collisionCountDecremented(o, old)]
}

// ---- ReplicaSets

/** ValidateReplicaSetSpec. */
export function validateReplicaSetSpec(spec: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = [...nonnegative(spec.replicas, fldPath.child('replicas')), ...nonnegative(spec.minReadySeconds, fldPath.child('minReadySeconds'))]
  errs.push(...validateSelector(spec.selector, 'deployment', fldPath.child('selector')))
  if (selectorParseFails(spec.selector)) errs.push(invalid(fldPath.child('selector'), labelSelectorJSON(spec.selector), 'invalid label selector'))
  else errs.push(...validatePodTemplateSpecForReplicaSet(obj(spec.template), spec.selector, 'ReplicaSet', fldPath.child('template')))
  return errs
}

export function validateReplicaSet(o: KubeObject): ErrorList {
  return validateReplicaSetSpec(obj(o.spec), SPEC)
}

export function validateReplicaSetUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return [...validateReplicaSetSpec(obj(o.spec), SPEC), ...immutableSelector(o, old)]
}

export function validateReplicaSetStatusUpdate(o: KubeObject): ErrorList {
  const s = obj(o.status)
  const errs: ErrorList = []
  for (const f of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']) errs.push(...nonnegative(s[f], STATUS.child(f)))
  errs.push(...greaterThanReplicas(s, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'], STATUS))
  if (int(s.availableReplicas) > int(s.readyReplicas)) errs.push(invalid(STATUS.child('availableReplicas'), int(s.availableReplicas), 'cannot be greater than readyReplicas'))
  return errs
}

// ---- StatefulSets

function validatePVCRetentionPolicyType(v: unknown, fldPath: Path): ErrorList {
  return v === 'Retain' || v === 'Delete' ? [] : [notSupported(fldPath, str(v), ['Retain', 'Delete'])]
}

function validateRollingUpdateStatefulSet(ru: Obj, fldPath: Path): ErrorList {
  const errs = nonnegative(ru.partition, fldPath.child('partition'))
  if (ru.maxUnavailable !== undefined && ru.maxUnavailable !== null) {
    const p = fldPath.child('maxUnavailable')
    errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable, p))
    if (intOrPercentValue(ru.maxUnavailable) === 0) errs.push(invalid(p, intOrString(ru.maxUnavailable), 'cannot be 0'))
    errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, p))
  }
  return errs
}

/** json.Marshal of the internal *RollingUpdateStatefulSetStrategy (Partition, MaxUnavailable *IntOrString). */
function statefulSetRollingUpdateJSON(ru: unknown): string {
  if (ru === undefined || ru === null) return 'null'
  const max = obj(ru).maxUnavailable
  return `{"Partition":${int(obj(ru).partition)},"MaxUnavailable":${max === undefined || max === null ? 'null' : goJSON(max)}}`
}

/** json.Marshal of the internal StatefulSetUpdateStrategy. */
function statefulSetStrategyJSON(strategy: Obj): Rendered {
  return new Rendered(`{"Type":${goJSON(str(strategy.type))},"RollingUpdate":${statefulSetRollingUpdateJSON(strategy.rollingUpdate)}}`)
}

/** ValidateStatefulSetSpec. */
export function validateStatefulSetSpec(spec: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const policy = str(spec.podManagementPolicy)
  if (policy === '') errs.push(required(fldPath.child('podManagementPolicy'), ''))
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') errs.push(invalid(fldPath.child('podManagementPolicy'), policy, "must be 'OrderedReady' or 'Parallel'"))
  const strategy = obj(spec.updateStrategy)
  const hasRollingUpdate = strategy.rollingUpdate !== undefined && strategy.rollingUpdate !== null
  switch (str(strategy.type)) {
    case '':
      errs.push(required(fldPath.child('updateStrategy'), ''))
      break
    case 'OnDelete':
      if (hasRollingUpdate) errs.push(invalid(fldPath.child('updateStrategy', 'rollingUpdate'), new Rendered(statefulSetRollingUpdateJSON(strategy.rollingUpdate)), "only allowed for updateStrategy 'RollingUpdate'"))
      break
    case 'RollingUpdate':
      if (hasRollingUpdate) errs.push(...validateRollingUpdateStatefulSet(obj(strategy.rollingUpdate), fldPath.child('updateStrategy', 'rollingUpdate')))
      break
    default:
      errs.push(invalid(fldPath.child('updateStrategy'), statefulSetStrategyJSON(strategy), "must be 'RollingUpdate' or 'OnDelete'"))
  }
  const retention = spec.persistentVolumeClaimRetentionPolicy
  if (retention !== undefined && retention !== null) {
    const p = fldPath.child('persistentVolumeClaimRetentionPolicy')
    errs.push(...validatePVCRetentionPolicyType(obj(retention).whenDeleted, p.child('whenDeleted')), ...validatePVCRetentionPolicyType(obj(retention).whenScaled, p.child('whenScaled')))
  }
  errs.push(...nonnegative(spec.replicas, fldPath.child('replicas')), ...nonnegative(spec.minReadySeconds, fldPath.child('minReadySeconds')))
  if (spec.ordinals !== undefined && spec.ordinals !== null) errs.push(...nonnegative(obj(spec.ordinals).start, fldPath.child('ordinals.start')))
  errs.push(...validateSelector(spec.selector, 'statefulset', fldPath.child('selector')))
  const template = obj(spec.template)
  if (selectorParseFails(spec.selector)) errs.push(invalid(fldPath.child('selector'), labelSelectorJSON(spec.selector), ''))
  else {
    const t = fldPath.child('template')
    const labels = obj(obj(template.metadata).labels)
    if (!selectorEmpty(spec.selector) && !selectorMatches(spec.selector, labels)) errs.push(invalid(t.child('metadata', 'labels'), templateLabels(template), '`selector` does not match template `labels`'))
    errs.push(...validateStatefulSetTemplateMeta(template, t))
  }
  const podSpec = obj(template.spec)
  if (str(podSpec.restartPolicy) !== 'Always') errs.push(notSupported(fldPath.child('template', 'spec', 'restartPolicy'), str(podSpec.restartPolicy), ['Always']))
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    errs.push(forbidden(fldPath.child('template', 'spec', 'activeDeadlineSeconds'), 'activeDeadlineSeconds in StatefulSet is not Supported'))
  }
  return errs
}

export function validateStatefulSet(o: KubeObject): ErrorList {
  return validateStatefulSetSpec(obj(o.spec), SPEC)
}

/** The spec fields a StatefulSet update may change (ValidateStatefulSetUpdate). */
const STATEFULSET_MUTABLE = ['replicas', 'template', 'updateStrategy', 'minReadySeconds', 'ordinals', 'persistentVolumeClaimRetentionPolicy']

export function validateStatefulSetUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const errs = validateStatefulSetSpec(obj(o.spec), SPEC)
  const rest = (s: Obj): Obj => Object.fromEntries(Object.entries(s).filter(([k]) => !STATEFULSET_MUTABLE.includes(k)))
  if (goJSON(rest(obj(o.spec))) !== goJSON(rest(obj(old.spec)))) {
    errs.push(forbidden(SPEC, "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"))
  }
  return errs
}

export function validateStatefulSetStatusUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const s = obj(o.status)
  const errs: ErrorList = []
  for (const f of ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']) errs.push(...nonnegative(s[f], STATUS.child(f)))
  if (typeof s.observedGeneration === 'number') errs.push(...nonnegative(s.observedGeneration, STATUS.child('observedGeneration')))
  if (typeof s.collisionCount === 'number') errs.push(...nonnegative(s.collisionCount, STATUS.child('collisionCount')))
  errs.push(...greaterThanReplicas(s, ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'], STATUS))
  if (int(s.availableReplicas) > int(s.readyReplicas)) errs.push(invalid(STATUS.child('availableReplicas'), int(s.availableReplicas), 'cannot be greater than status.readyReplicas'))
  return [...errs, ...collisionCountDecremented(o, old)]
}

// ---- DaemonSets

function validateRollingUpdateDaemonSet(ru: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = [...validatePositiveIntOrPercent(ru.maxUnavailable, fldPath.child('maxUnavailable')), ...validatePositiveIntOrPercent(ru.maxSurge, fldPath.child('maxSurge'))]
  errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, fldPath.child('maxUnavailable')), ...isNotMoreThan100Percent(ru.maxSurge, fldPath.child('maxSurge')))
  const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0
  const hasSurge = intOrPercentValue(ru.maxSurge) !== 0
  if (hasUnavailable && hasSurge) errs.push(invalid(fldPath.child('maxSurge'), intOrString(ru.maxSurge), 'may not be set when maxUnavailable is non-zero'))
  else if (!hasUnavailable && !hasSurge) errs.push(required(fldPath.child('maxUnavailable'), 'cannot be 0 when maxSurge is 0'))
  return errs
}

function validateDaemonSetUpdateStrategy(strategy: Obj, fldPath: Path): ErrorList {
  switch (str(strategy.type)) {
    case 'OnDelete':
      return []
    case 'RollingUpdate':
      if (strategy.rollingUpdate === undefined || strategy.rollingUpdate === null) return [required(fldPath.child('rollingUpdate'), '')]
      return validateRollingUpdateDaemonSet(obj(strategy.rollingUpdate), fldPath.child('rollingUpdate'))
    default:
      return [
        notSupported(
          fldPath,
          strategyJSON(strategy),
          ['RollingUpdate', 'OnDelete'],
        ),
      ]
  }
}

/** ValidateDaemonSetSpec. */
export function validateDaemonSetSpec(spec: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = validateLabelSelector(spec.selector, { allowInvalidLabelValueInSelector: false }, fldPath.child('selector'))
  const template = obj(spec.template)
  const labels = obj(obj(template.metadata).labels)
  if (!selectorParseFails(spec.selector) && !selectorMatches(spec.selector, labels)) {
    errs.push(invalid(fldPath.child('template', 'metadata', 'labels'), templateLabels(template), '`selector` does not match template `labels`'))
  }
  if (spec.selector !== undefined && spec.selector !== null && selectorEmpty(spec.selector)) {
    errs.push(invalid(fldPath.child('selector'), labelSelectorJSON(spec.selector), 'empty selector is invalid for daemonset'))
  }
  errs.push(...validatePodTemplateSpec(template, fldPath.child('template')))
  const podSpec = obj(template.spec)
  if (str(podSpec.restartPolicy) !== 'Always') errs.push(notSupported(fldPath.child('template', 'spec', 'restartPolicy'), str(podSpec.restartPolicy), ['Always']))
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    errs.push(forbidden(fldPath.child('template', 'spec', 'activeDeadlineSeconds'), 'activeDeadlineSeconds in DaemonSet is not Supported'))
  }
  errs.push(...nonnegative(spec.minReadySeconds, fldPath.child('minReadySeconds')), ...nonnegative(spec.templateGeneration, fldPath.child('templateGeneration')))
  errs.push(...validateDaemonSetUpdateStrategy(obj(spec.updateStrategy), fldPath.child('updateStrategy')))
  if (typeof spec.revisionHistoryLimit === 'number') errs.push(...nonnegative(spec.revisionHistoryLimit, fldPath.child('revisionHistoryLimit')))
  return errs
}

export function validateDaemonSet(o: KubeObject): ErrorList {
  return validateDaemonSetSpec(obj(o.spec), SPEC)
}

export function validateDaemonSetUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const n = obj(o.spec)
  const p = obj(old.spec)
  const errs: ErrorList = []
  const newGen = int(n.templateGeneration)
  const oldGen = int(p.templateGeneration)
  if (newGen < oldGen) errs.push(invalid(SPEC.child('templateGeneration'), newGen, 'must not be decremented'))
  const templateUpdated = goJSON(n.template) !== goJSON(p.template)
  if (newGen === oldGen && templateUpdated && (n.templateGeneration !== undefined || p.templateGeneration !== undefined)) {
    errs.push(invalid(SPEC.child('templateGeneration'), newGen, 'must be incremented upon template update'))
  } else if (newGen > oldGen && !templateUpdated) errs.push(invalid(SPEC.child('templateGeneration'), newGen, 'must not be incremented without template update'))
  return [...errs, ...validateDaemonSetSpec(n, SPEC), ...immutableSelector(o, old)]
}

export function validateDaemonSetStatusUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const s = obj(o.status)
  const errs: ErrorList = []
  for (const f of ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable']) {
    errs.push(...nonnegative(s[f], STATUS.child(f)))
  }
  if (typeof s.collisionCount === 'number') errs.push(...nonnegative(s.collisionCount, STATUS.child('collisionCount')))
  return [...errs, ...collisionCountDecremented(o, old)]
}

// ---- ControllerRevisions

export function validateControllerRevision(o: KubeObject): ErrorList {
  const errs: ErrorList = []
  if (o.data === undefined || o.data === null) errs.push(required(Path.of('data'), 'data is mandatory'))
  errs.push(...nonnegative(o.revision, Path.of('revision')))
  return errs
}

export function validateControllerRevisionUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return [...validateControllerRevision(o), ...validateImmutableField(o.data, old.data, Path.of('data'))]
}

