/**
 * Validation of the batch API group, after the reference's `pkg/apis/batch/validation/validation.go`
 * and `pkg/registry/batch/{job,cronjob}/strategy.go`: Jobs (generated selectors, counts,
 * completion mode, pod failure policy, restart policy; completions, selector, template,
 * completion mode and pod failure policy immutable) and CronJobs (schedule syntax and time
 * zones, concurrency policy, history limits, the job template).
 */
import type { KubeObject } from '../registry/object.js'
import { type CauseLike, OMIT_VALUE, Path, duplicate, invalid, notSupported, required, tooMany } from './field/index.js'
import { arr, obj, str, templateLabels } from './helpers.js'
import { labelSelectorJSON, selectorMatches, selectorParseFails } from './label-selector.js'
import { validateLabelSelector } from './meta-v1.js'
import { validateImmutableField, validateNonnegativeField } from './objectmeta.js'
import { validatePodTemplateSpec } from './core.js'
import { isDNS1123Label, isQualifiedName } from './strings.js'
import { loadLocationError, parseStandardError } from './cron.js'

type Obj = Record<string, unknown>
type ErrorList = CauseLike[]

const SPEC = Path.of('spec')

/** The labels the job strategy puts on a template and selects (batch/v1 types). */
export const LEGACY_JOB_NAME_LABEL = 'job-name'
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name'
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid'
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid'

const MAX_PARALLELISM_FOR_INDEXED_JOB = 100000
const MAX_POD_FAILURE_POLICY_RULES = 20
const MAX_ON_EXIT_CODES_VALUES = 255
const MAX_ON_POD_CONDITIONS_PATTERNS = 20
const POD_FAILURE_POLICY_ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore']
const ON_EXIT_CODES_OPERATORS = ['In', 'NotIn']
const CONDITION_STATUSES = ['False', 'True', 'Unknown']

const isSet = (v: unknown): boolean => v !== undefined && v !== null

/**
 * The job strategy's PrepareForCreate selector generation (generateSelectorIfNeeded): unless
 * manualSelector, the template gets the job-name and controller-uid labels (legacy and
 * prefixed) and the selector the prefixed controller-uid.
 */
export function generateJobSelector(o: KubeObject): void {
  const spec = obj(o.spec)
  if (spec.manualSelector === true) return
  const template = obj(spec.template)
  const meta = obj(template.metadata)
  const labels = obj(meta.labels) as Record<string, string>
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) if (!Object.hasOwn(labels, key)) labels[key] = o.metadata.name ?? ''
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) if (!Object.hasOwn(labels, key)) labels[key] = o.metadata.uid ?? ''
  meta.labels = labels
  template.metadata = meta
  spec.template = template
  const selector = obj(spec.selector)
  const matchLabels = obj(selector.matchLabels) as Record<string, string>
  if (!Object.hasOwn(matchLabels, CONTROLLER_UID_LABEL)) matchLabels[CONTROLLER_UID_LABEL] = o.metadata.uid ?? ''
  selector.matchLabels = matchLabels
  spec.selector = selector
  o.spec = spec
}

/** ValidateHasLabel. */
function validateHasLabel(labels: Obj, fldPath: Path, key: string, expected: string): ErrorList {
  if (!Object.hasOwn(labels, key)) return [required(fldPath.child('labels').key(key), expected)]
  return str(labels[key]) === expected ? [] : [invalid(fldPath.child('labels').key(key), labels, `must be '${expected}'`)]
}

/** ValidateGeneratedSelector (with the prefixed labels required, as for new jobs). */
function validateGeneratedSelector(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  if (spec.manualSelector === true || !isSet(spec.selector)) return []
  const errs: ErrorList = []
  const uid = o.metadata.uid ?? ''
  const name = o.metadata.name ?? ''
  if (uid === '') errs.push(required(Path.of('metadata').child('uid'), ''))
  const templateMeta = SPEC.child('template').child('metadata')
  const labels = obj(obj(obj(spec.template).metadata).labels)
  errs.push(...validateHasLabel(labels, templateMeta, LEGACY_CONTROLLER_UID_LABEL, uid), ...validateHasLabel(labels, templateMeta, LEGACY_JOB_NAME_LABEL, name))
  errs.push(...validateHasLabel(labels, templateMeta, CONTROLLER_UID_LABEL, uid), ...validateHasLabel(labels, templateMeta, JOB_NAME_LABEL, name))
  const expected = { [LEGACY_CONTROLLER_UID_LABEL]: uid, [LEGACY_JOB_NAME_LABEL]: name, [CONTROLLER_UID_LABEL]: uid, [JOB_NAME_LABEL]: name }
  if (!selectorParseFails(spec.selector) && !selectorMatches(spec.selector, expected)) {
    errs.push(invalid(SPEC.child('selector'), labelSelectorJSON(spec.selector), '`selector` not auto-generated'))
  }
  return errs
}

function nonnegativeIfSet(v: unknown, p: Path): ErrorList {
  return typeof v === 'number' ? validateNonnegativeField(v, p) : []
}

function validatePodFailurePolicy(spec: Obj, fldPath: Path): ErrorList {
  const policy = obj(spec.podFailurePolicy)
  const rules = arr(policy.rules).map(obj)
  const rulesPath = fldPath.child('rules')
  const errs: ErrorList = []
  if (rules.length > MAX_POD_FAILURE_POLICY_RULES) errs.push(tooMany(rulesPath, rules.length, MAX_POD_FAILURE_POLICY_RULES))
  const podSpec = obj(obj(spec.template).spec)
  const containerNames = new Set([...arr(podSpec.containers), ...arr(podSpec.initContainers)].map((c) => str(obj(c).name)))
  rules.forEach((rule, i) => {
    const rulePath = rulesPath.index(i)
    const action = str(rule.action)
    if (action === '') errs.push(required(rulePath.child('action'), `valid values: [${POD_FAILURE_POLICY_ACTIONS.map((a) => JSON.stringify(a)).join(' ')}]`))
    else if (!POD_FAILURE_POLICY_ACTIONS.includes(action)) errs.push(notSupported(rulePath.child('action'), action, POD_FAILURE_POLICY_ACTIONS))
    const onExitCodes = rule.onExitCodes
    const onPodConditions = arr(rule.onPodConditions)
    if (isSet(onExitCodes)) errs.push(...validateOnExitCodes(obj(onExitCodes), rulePath.child('onExitCodes'), containerNames))
    if (onPodConditions.length > 0) errs.push(...validateOnPodConditions(onPodConditions.map(obj), rulePath.child('onPodConditions')))
    if (isSet(onExitCodes) && onPodConditions.length > 0) errs.push(invalid(rulePath, OMIT_VALUE, 'specifying both OnExitCodes and OnPodConditions is not supported'))
    if (!isSet(onExitCodes) && onPodConditions.length === 0) errs.push(invalid(rulePath, OMIT_VALUE, 'specifying one of OnExitCodes and OnPodConditions is required'))
  })
  return errs
}

function validateOnPodConditions(patterns: Obj[], p: Path): ErrorList {
  const errs: ErrorList = []
  if (patterns.length > MAX_ON_POD_CONDITIONS_PATTERNS) errs.push(tooMany(p, patterns.length, MAX_ON_POD_CONDITIONS_PATTERNS))
  patterns.forEach((pattern, j) => {
    const patternPath = p.index(j)
    for (const m of isQualifiedName(str(pattern.type))) errs.push(invalid(patternPath.child('type'), str(pattern.type), m))
    const status = str(pattern.status)
    if (status === '') errs.push(required(patternPath.child('status'), `valid values: [${CONDITION_STATUSES.map((s) => JSON.stringify(s)).join(' ')}]`))
    else if (!CONDITION_STATUSES.includes(status)) errs.push(notSupported(patternPath.child('status'), status, CONDITION_STATUSES))
  })
  return errs
}

function validateOnExitCodes(req: Obj, p: Path, containerNames: Set<string>): ErrorList {
  const errs: ErrorList = []
  const operator = str(req.operator)
  if (operator === '') errs.push(required(p.child('operator'), `valid values: [${ON_EXIT_CODES_OPERATORS.map((s) => JSON.stringify(s)).join(' ')}]`))
  else if (!ON_EXIT_CODES_OPERATORS.includes(operator)) errs.push(notSupported(p.child('operator'), operator, ON_EXIT_CODES_OPERATORS))
  if (typeof req.containerName === 'string' && !containerNames.has(req.containerName)) {
    errs.push(invalid(p.child('containerName'), req.containerName, 'must be one of the container or initContainer names in the pod template'))
  }
  const values = arr(req.values).map((v) => (typeof v === 'number' ? v : 0))
  const valuesPath = p.child('values')
  if (values.length === 0) errs.push(invalid(valuesPath, values, 'at least one value is required'))
  else if (values.length > MAX_ON_EXIT_CODES_VALUES) errs.push(tooMany(valuesPath, values.length, MAX_ON_EXIT_CODES_VALUES))
  const seen = new Set<number>()
  let ordered = true
  values.forEach((v, j) => {
    if (operator === 'In' && v === 0) errs.push(invalid(valuesPath.index(j), v, 'must not be 0 for the In operator'))
    if (seen.has(v)) errs.push(duplicate(valuesPath.index(j), v))
    else seen.add(v)
    if (j > 0 && values[j - 1]! > v) ordered = false
  })
  if (!ordered) errs.push(invalid(valuesPath, values, 'must be ordered'))
  return errs
}

/** validateJobSpec: the part of a job spec a CronJob's template shares. */
function validateJobSpecCommon(spec: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  errs.push(...nonnegativeIfSet(spec.parallelism, fldPath.child('parallelism')), ...nonnegativeIfSet(spec.completions, fldPath.child('completions')))
  errs.push(...nonnegativeIfSet(spec.activeDeadlineSeconds, fldPath.child('activeDeadlineSeconds')), ...nonnegativeIfSet(spec.backoffLimit, fldPath.child('backoffLimit')))
  errs.push(...nonnegativeIfSet(spec.ttlSecondsAfterFinished, fldPath.child('ttlSecondsAfterFinished')))
  if (isSet(spec.completionMode)) {
    const mode = str(spec.completionMode)
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(notSupported(fldPath.child('completionMode'), mode, ['NonIndexed', 'Indexed']))
    if (mode === 'Indexed') {
      if (!isSet(spec.completions)) errs.push(required(fldPath.child('completions'), 'when completion mode is Indexed'))
      if (typeof spec.parallelism === 'number' && spec.parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB) {
        errs.push(invalid(fldPath.child('parallelism'), spec.parallelism, `must be less than or equal to ${MAX_PARALLELISM_FOR_INDEXED_JOB} when completion mode is Indexed`))
      }
    }
  }
  if (isSet(spec.podFailurePolicy)) errs.push(...validatePodFailurePolicy(spec, fldPath.child('podFailurePolicy')))
  errs.push(...validatePodTemplateSpec(spec.template, fldPath.child('template')))
  const restartPolicy = str(obj(obj(spec.template).spec).restartPolicy)
  const rp = fldPath.child('template', 'spec', 'restartPolicy')
  if (restartPolicy === 'Always' || restartPolicy === '') errs.push(required(rp, 'valid values: "OnFailure", "Never"'))
  else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') errs.push(notSupported(rp, restartPolicy, ['OnFailure', 'Never']))
  else if (isSet(spec.podFailurePolicy) && restartPolicy !== 'Never') errs.push(invalid(rp, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'))
  return errs
}

/** ValidateJobSpec. */
function validateJobSpec(spec: Obj, fldPath: Path): ErrorList {
  const errs = validateJobSpecCommon(spec, fldPath)
  if (!isSet(spec.selector)) errs.push(required(fldPath.child('selector'), ''))
  else errs.push(...validateLabelSelector(spec.selector, { allowInvalidLabelValueInSelector: false }, fldPath.child('selector')))
  const labels = obj(obj(obj(spec.template).metadata).labels)
  if (!selectorParseFails(spec.selector) && !selectorMatches(spec.selector, labels)) {
    errs.push(invalid(fldPath.child('template', 'metadata', 'labels'), templateLabels(spec.template), '`selector` does not match template `labels`'))
  }
  return errs
}

/** ValidateJob (without the object metadata). */
export function validateJob(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const errs = [...validateGeneratedSelector(o), ...validateJobSpec(spec, SPEC)]
  if (str(spec.completionMode) === 'Indexed' && typeof spec.completions === 'number' && spec.completions > 0) {
    // The controller names pods <job>-<index>: the largest must be a DNS label.
    const hostname = `${o.metadata.name ?? ''}-${spec.completions - 1}`
    if (isDNS1123Label(hostname).length > 0) errs.push(invalid(Path.of('metadata').child('name'), o.metadata.name ?? '', `will not able to create pod with invalid DNS label: ${hostname}`))
  }
  return errs
}

/** ValidateJobUpdate (without the metadata): the spec again and its immutable fields. */
export function validateJobUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const prev = obj(old.spec)
  return [
    ...validateJobSpec(spec, SPEC),
    ...validateImmutableField(spec.completions, prev.completions, SPEC.child('completions')),
    ...validateImmutableField(spec.selector, prev.selector, SPEC.child('selector')).map(() => invalid(SPEC.child('selector'), labelSelectorJSON(spec.selector), 'field is immutable')),
    ...validateImmutableField(spec.template, prev.template, SPEC.child('template')),
    ...validateImmutableField(spec.completionMode, prev.completionMode, SPEC.child('completionMode')),
    ...validateImmutableField(spec.podFailurePolicy, prev.podFailurePolicy, SPEC.child('podFailurePolicy')),
  ]
}

/** ValidateJobStatusUpdate (without the metadata). */
export function validateJobStatusUpdate(o: KubeObject): ErrorList {
  const s = obj(o.status)
  const p = Path.of('status')
  const errs: ErrorList = []
  for (const f of ['active', 'succeeded', 'failed']) errs.push(...nonnegativeIfSet(s[f], p.child(f)))
  errs.push(...nonnegativeIfSet(s.ready, p.child('ready')), ...nonnegativeIfSet(s.terminating, p.child('terminating')))
  return errs
}

// ---- CronJobs

function validateTimeZone(zone: unknown, fldPath: Path): ErrorList {
  if (!isSet(zone)) return []
  const z = str(zone)
  if (z === '') return [invalid(fldPath, z, 'timeZone must be nil or non-empty string')]
  const errs: ErrorList = []
  if (z.toLowerCase() === 'local') errs.push(invalid(fldPath, z, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'))
  const err = loadLocationError(z)
  if (err) errs.push(invalid(fldPath, z, err))
  return errs
}

function validateScheduleFormat(schedule: string, allowTZInSchedule: boolean, timeZone: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const err = parseStandardError(schedule)
  if (err) errs.push(invalid(fldPath, schedule, err))
  if (allowTZInSchedule && schedule.includes('TZ') && isSet(timeZone)) errs.push(invalid(fldPath, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'))
  else if (!allowTZInSchedule && schedule.includes('TZ')) errs.push(invalid(fldPath, schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'))
  return errs
}

/** ValidateJobTemplateSpec: a job spec without a selector (it is generated). */
function validateJobTemplateSpec(template: Obj, fldPath: Path): ErrorList {
  const spec = obj(template.spec)
  const errs = validateJobSpecCommon(spec, fldPath.child('spec'))
  if (isSet(spec.selector)) errs.push(invalid(fldPath.child('spec', 'selector'), labelSelectorJSON(spec.selector), '`selector` will be auto-generated'))
  if (spec.manualSelector === true) errs.push(notSupported(fldPath.child('spec', 'manualSelector'), true, ['nil', 'false']))
  return errs
}

function validateCronJobSpec(spec: Obj, oldSpec: Obj | undefined, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const schedule = str(spec.schedule)
  if (schedule === '') errs.push(required(fldPath.child('schedule'), ''))
  else errs.push(...validateScheduleFormat(schedule, oldSpec !== undefined && str(oldSpec.schedule).includes('TZ'), spec.timeZone, fldPath.child('schedule')))
  errs.push(...nonnegativeIfSet(spec.startingDeadlineSeconds, fldPath.child('startingDeadlineSeconds')))
  if (oldSpec === undefined || oldSpec.timeZone !== spec.timeZone) errs.push(...validateTimeZone(spec.timeZone, fldPath.child('timeZone')))
  const policy = str(spec.concurrencyPolicy)
  if (policy === '') errs.push(required(fldPath.child('concurrencyPolicy'), ''))
  else if (!['Allow', 'Forbid', 'Replace'].includes(policy)) errs.push(notSupported(fldPath.child('concurrencyPolicy'), policy, ['Allow', 'Forbid', 'Replace']))
  errs.push(...validateJobTemplateSpec(obj(spec.jobTemplate), fldPath.child('jobTemplate')))
  errs.push(...nonnegativeIfSet(spec.successfulJobsHistoryLimit, fldPath.child('successfulJobsHistoryLimit')), ...nonnegativeIfSet(spec.failedJobsHistoryLimit, fldPath.child('failedJobsHistoryLimit')))
  return errs
}

/** ValidateCronJobCreate (without the object metadata). */
export function validateCronJob(o: KubeObject): ErrorList {
  const errs = validateCronJobSpec(obj(o.spec), undefined, SPEC)
  // The controller names jobs <cronjob>-<11 characters>: 52 characters at most.
  const name = o.metadata.name ?? ''
  if (name.length > 52) errs.push(invalid(Path.of('metadata').child('name'), name, 'must be no more than 52 characters'))
  return errs
}

export function validateCronJobUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return validateCronJobSpec(obj(o.spec), obj(old.spec), SPEC)
}
