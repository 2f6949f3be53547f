/**
 * Validation of the scheduling.k8s.io alpha kinds PodGroup and Workload (v1alpha2, feature gate
 * GenericWorkload), after the reference's `pkg/apis/scheduling/validation/validation.go`
 * (ValidatePodGroup, ValidatePodGroupUpdate, ValidateWorkload, ValidateWorkloadUpdate): a pod
 * group's template reference (workload and template names, short names) and its scheduling
 * policy (exactly one of basic and gang, a gang's minCount positive), both fixed on update; a
 * workload's controller reference and its pod group templates (one to eight, named, unique,
 * each with its policy), the templates fixed on update and the controller reference once set.
 *
 * The reference's file of the served version's era validates those fields only; the newer
 * v1alpha2 fields the OpenAPI document also has (disruptionMode, priority, resourceClaims,
 * schedulingConstraints) are not checked here.
 */
import type { KubeObject } from '../registry/object.js'
import { type ErrorList, Path, Rendered, duplicate, invalid, required, tooMany } from './field/index.js'
import { type Obj, arr, obj, str } from './helpers.js'
import { nameIsDNSLabel } from './names.js'
import { semanticEqual } from './helpers.js'
import { isDNS1123Subdomain, isValidPathSegmentName } from './strings.js'

/** WorkloadMaxPodGroupTemplates. */
const MAX_POD_GROUP_TEMPLATES = 8
const isSet = (v: unknown) => v !== undefined && v !== null

/**
 * The internal types the reference compares have no JSON tags: a changed value prints with the
 * Go field names (`{"WorkloadName":"w","PodGroupTemplateName":"t"}`).
 */
const goPolicy = (p: unknown): unknown => {
  if (!isSet(p)) return null
  const policy = obj(p)
  return { Basic: isSet(policy.basic) ? {} : null, Gang: isSet(policy.gang) ? { MinCount: typeof obj(policy.gang).minCount === 'number' ? obj(policy.gang).minCount : 0 } : null }
}
const goTemplateRef = (r: unknown): unknown => (isSet(r) ? { WorkloadName: str(obj(r).workloadName), PodGroupTemplateName: str(obj(r).podGroupTemplateName) } : null)
const goTemplates = (t: unknown): unknown => (isSet(t) ? arr(t).map((x) => ({ Name: str(obj(x).name), SchedulingPolicy: goPolicy(obj(x).schedulingPolicy) ?? { Basic: null, Gang: null } })) : null)
const goControllerRef = (r: unknown): unknown => (isSet(r) ? { APIGroup: str(obj(r).apiGroup), Kind: str(obj(r).kind), Name: str(obj(r).name) } : null)

/** ValidateImmutableField of an internal struct: the new value printed with its Go field names, in the struct's order. */
function immutable(newVal: unknown, oldVal: unknown, fldPath: Path, asGo: (v: unknown) => unknown): ErrorList {
  return semanticEqual(newVal ?? null, oldVal ?? null) ? [] : [invalid(fldPath, new Rendered(JSON.stringify(asGo(newVal))), 'field is immutable')]
}

/** ValidatePodGroupName: a DNS-1123 label (the reference's "k8s-short-name" format). */
export const validatePodGroupName = nameIsDNSLabel

function validateShortName(value: string, fldPath: Path): ErrorList {
  if (value === '') return [required(fldPath)]
  return validatePodGroupName(value, false).map((m) => invalid(fldPath, value, m))
}

/** validatePodGroupSchedulingPolicy: a union of `basic` and `gang`. */
function validatePodGroupSchedulingPolicy(policy: Obj, fldPath: Path): ErrorList {
  const set: string[] = []
  if (isSet(policy.basic)) set.push('`basic`')
  if (isSet(policy.gang)) set.push('`gang`')
  if (set.length === 0) return [invalid(fldPath, '', 'must specify one of: `basic`, `gang`')]
  if (set.length > 1) return [invalid(fldPath, `{${set.join(', ')}}`, 'exactly one of `basic`, `gang` is required, but multiple fields are set')]
  if (isSet(policy.gang)) {
    const minCount = typeof obj(policy.gang).minCount === 'number' ? (obj(policy.gang).minCount as number) : 0
    // 0 is "missing" (as the declarative rule sees it), a negative count not positive.
    if (minCount === 0) return [required(fldPath.child('gang', 'minCount'))]
    if (minCount < 0) return [invalid(fldPath.child('gang', 'minCount'), minCount, 'must be greater than zero')]
  }
  return []
}

/** ValidatePodGroup (without the metadata). */
export function validatePodGroup(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const fldPath = Path.of('spec')
  const errs: ErrorList = []
  if (isSet(spec.podGroupTemplateRef)) {
    const ref = obj(spec.podGroupTemplateRef)
    const path = fldPath.child('podGroupTemplateRef')
    errs.push(...validateShortName(str(ref.workloadName), path.child('workloadName')))
    errs.push(...validateShortName(str(ref.podGroupTemplateName), path.child('podGroupTemplateName')))
  }
  errs.push(...validatePodGroupSchedulingPolicy(obj(spec.schedulingPolicy), fldPath.child('schedulingPolicy')))
  return errs
}

/** ValidatePodGroupUpdate: the template reference and the scheduling policy are immutable. */
export function validatePodGroupUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const oldSpec = obj(old.spec)
  return [
    ...immutable(spec.podGroupTemplateRef, oldSpec.podGroupTemplateRef, Path.of('spec', 'podGroupTemplateRef'), goTemplateRef),
    ...immutable(spec.schedulingPolicy, oldSpec.schedulingPolicy, Path.of('spec', 'schedulingPolicy'), goPolicy),
  ]
}

function validateControllerRef(ref: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const apiGroup = str(ref.apiGroup)
  if (apiGroup !== '') for (const m of isDNS1123Subdomain(apiGroup)) errs.push(invalid(fldPath.child('apiGroup'), apiGroup, m))
  for (const key of ['kind', 'name']) {
    const value = str(ref[key])
    if (value === '') errs.push(required(fldPath.child(key)))
    else for (const m of isValidPathSegmentName(value)) errs.push(invalid(fldPath.child(key), value, m))
  }
  return errs
}

function validatePodGroupTemplates(spec: Obj, fldPath: Path, update: boolean): ErrorList {
  const templates = arr(spec.podGroupTemplates)
  const path = fldPath.child('podGroupTemplates')
  if (templates.length === 0) return [required(path, 'must have at least one item')]
  if (templates.length > MAX_POD_GROUP_TEMPLATES) return [tooMany(path, templates.length, MAX_POD_GROUP_TEMPLATES)]
  // The templates are immutable after create: an update only compares them.
  if (update) return []
  const errs: ErrorList = []
  const names = new Set<string>()
  templates.forEach((t, i) => {
    const template = obj(t)
    const name = str(template.name)
    errs.push(...validateShortName(name, path.index(i).child('name')))
    if (names.has(name)) errs.push(duplicate(path.index(i), name))
    else names.add(name)
    errs.push(...validatePodGroupSchedulingPolicy(obj(template.schedulingPolicy), path.index(i).child('schedulingPolicy')))
  })
  return errs
}

/** ValidateWorkload (without the metadata; the name is a DNS subdomain). */
export function validateWorkload(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const fldPath = Path.of('spec')
  const errs: ErrorList = []
  if (isSet(spec.controllerRef)) errs.push(...validateControllerRef(obj(spec.controllerRef), fldPath.child('controllerRef')))
  errs.push(...validatePodGroupTemplates(spec, fldPath, false))
  return errs
}

/** ValidateWorkloadUpdate: the controller reference fixed once set, the templates fixed. */
export function validateWorkloadUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const oldSpec = obj(old.spec)
  const fldPath = Path.of('spec')
  const errs: ErrorList = []
  if (isSet(oldSpec.controllerRef)) errs.push(...immutable(spec.controllerRef, oldSpec.controllerRef, fldPath.child('controllerRef'), goControllerRef))
  else if (isSet(spec.controllerRef)) errs.push(...validateControllerRef(obj(spec.controllerRef), fldPath.child('controllerRef')))
  errs.push(...immutable(spec.podGroupTemplates, oldSpec.podGroupTemplates, fldPath.child('podGroupTemplates'), goTemplates))
  errs.push(...validatePodGroupTemplates(spec, fldPath, true))
  return errs
}
