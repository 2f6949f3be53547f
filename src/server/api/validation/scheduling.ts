/**
 * Validation of the scheduling.k8s.io API group, after the reference's
 * `pkg/apis/scheduling/validation/validation.go`: a PriorityClass's `system-` names are the
 * known system classes with their values, a user value is at most one billion, the preemption
 * policy is known; the value and the preemption policy are immutable.
 */
import type { KubeObject } from '../registry/object.js'
import { type CauseLike, Path, forbidden, notSupported, required } from './field/index.js'
import { validateImmutableField } from './objectmeta.js'

type ErrorList = CauseLike[]

export const HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000
const SYSTEM_PREFIX = 'system-'
const SYSTEM_CLASSES: { name: string; value: number; globalDefault: boolean }[] = [
  { name: 'system-node-critical', value: 2000001000, globalDefault: false },
  { name: 'system-cluster-critical', value: 2000000000, globalDefault: false },
]

/** scheduling.IsKnownSystemPriorityClass's error, or undefined. */
function knownSystemPriorityClassError(name: string, value: number, globalDefault: boolean): string | undefined {
  const spc = SYSTEM_CLASSES.find((c) => c.name === name)
  if (!spc) return `${name} is not a known system priority class`
  if (spc.value !== value) return `value of ${spc.name} PriorityClass must be ${spc.value}`
  if (spc.globalDefault !== globalDefault) return `globalDefault of ${spc.name} PriorityClass must be ${spc.globalDefault}`
  return undefined
}

/** core validation's ValidatePreemptionPolicy. */
export function validatePreemptionPolicy(policy: unknown, fldPath: Path): ErrorList {
  const p = typeof policy === 'string' ? policy : ''
  if (p === 'PreemptLowerPriority' || p === 'Never') return []
  if (p === '') return [required(fldPath, '')]
  return [notSupported(fldPath, p, ['PreemptLowerPriority', 'Never'])]
}

/** ValidatePriorityClass (without the object metadata). */
export function validatePriorityClass(o: KubeObject): ErrorList {
  const errs: ErrorList = []
  const name = o.metadata.name ?? ''
  const value = typeof o.value === 'number' ? o.value : 0
  if (name.startsWith(SYSTEM_PREFIX)) {
    const err = knownSystemPriorityClassError(name, value, o.globalDefault === true)
    if (err) errs.push(forbidden(Path.of('metadata', 'name'), `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${err}`))
  } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(forbidden(Path.of('value'), `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`))
  }
  if (o.preemptionPolicy !== undefined && o.preemptionPolicy !== null) errs.push(...validatePreemptionPolicy(o.preemptionPolicy, Path.of('preemptionPolicy')))
  return errs
}

/** ValidatePriorityClassUpdate (without the metadata): value and preemptionPolicy are immutable. */
export function validatePriorityClassUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const errs: ErrorList = []
  if ((typeof o.value === 'number' ? o.value : 0) !== (typeof old.value === 'number' ? old.value : 0)) errs.push(forbidden(Path.of('value'), 'may not be changed in an update.'))
  errs.push(...validateImmutableField(o.preemptionPolicy, old.preemptionPolicy, Path.of('preemptionPolicy')))
  return errs
}
