/**
 * Validation of MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding
 * (admissionregistration.k8s.io v1alpha1/v1beta1), after the reference's
 * `pkg/apis/admissionregistration/validation/validation.go`
 * (`validateMutatingAdmissionPolicySpec`, `validateMutation`,
 * `validateMutatingAdmissionPolicyBindingSpec`). The rules shared with ValidatingAdmissionPolicy
 * (paramKind, match resources, match conditions, variables, paramRef) are those of
 * admissionregistration.ts.
 *
 * Mutation expressions are compiled as the plugin compiles them (typed construction of
 * `Object{...}` and `JSONPatch{...}` in the CEL engine, src/core/cel/construction.ts): an
 * ApplyConfiguration must evaluate to `Object`, a JSONPatch to `list(JSONPatch)`
 * (`must evaluate to Object but got string`).
 */
import type { KubeObject } from '../registry/object.js'
import { CelCompileError, compileConstructing } from '../../../core/cel/index.js'
import { type ErrorList, Path, invalid, notSupported, required } from './field/index.js'
import { type Obj, arr, obj, semanticEqual, str } from './helpers.js'
import {
  CREATE_OPTIONS,
  FAILURE_POLICIES,
  admissionEnvironment,
  validateBindingPolicyName,
  validateMatchConditions,
  validateMatchResources,
  validateParamKind,
  validateParamRef,
  validateVariable,
} from './admissionregistration.js'

const isSet = (v: unknown) => v !== undefined && v !== null

/** supportedMutatingOperations.List(): a mutation never applies to a DELETE. */
const MUTATING_OPERATIONS = ['*', 'CONNECT', 'CREATE', 'UPDATE']
/** The reference lists them in this order for a policy's reinvocationPolicy. */
const REINVOCATION_POLICIES = ['Never', 'IfNeeded']
const PATCH_TYPES = ['ApplyConfiguration', 'JSONPatch']

/** validateApplyConfiguration / validateJSONPatch: a blank expression is Required, else compiled with its result type. */
function validatePatchExpression(expression: string, patchType: 'ApplyConfiguration' | 'JSONPatch', hasParams: boolean, fldPath: Path): ErrorList {
  const trimmed = expression.trim()
  if (trimmed.length === 0) return [required(fldPath)]
  const returnType = patchType === 'ApplyConfiguration' ? 'Object' : 'list(JSONPatch)'
  try {
    compileConstructing(admissionEnvironment(hasParams, true, true), trimmed, [returnType])
    return []
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err
    return [invalid(fldPath, trimmed, err.kind === 'type' ? `${err.message} but got ${err.actualType}` : err.message)]
  }
}

/** validateMutation: the patchType union. */
function validateMutation(m: Obj, hasParams: boolean, fldPath: Path): ErrorList {
  const patchType = str(m.patchType)
  const errs: ErrorList = []
  switch (patchType) {
    case 'JSONPatch':
      if (!isSet(m.jsonPatch)) errs.push(required(fldPath.child('jsonPatch'), 'must be specified when patchType is JSONPatch'))
      else errs.push(...validatePatchExpression(str(obj(m.jsonPatch).expression), 'JSONPatch', hasParams, fldPath.child('jsonPatch', 'expression')))
      if (isSet(m.applyConfiguration)) errs.push(invalid(fldPath.child('applyConfiguration'), '{applyConfiguration}', 'must not be specified when patchType is JSONPatch'))
      break
    case 'ApplyConfiguration':
      if (!isSet(m.applyConfiguration)) errs.push(required(fldPath.child('applyConfiguration'), 'must be specified when patchType is ApplyConfiguration'))
      else errs.push(...validatePatchExpression(str(obj(m.applyConfiguration).expression), 'ApplyConfiguration', hasParams, fldPath.child('applyConfiguration', 'expression')))
      if (isSet(m.jsonPatch)) errs.push(invalid(fldPath.child('jsonPatch'), '{jsonPatch}', 'must not be specified when patchType is ApplyConfiguration'))
      break
    case '':
      errs.push(required(fldPath.child('patchType')))
      break
    default:
      errs.push(notSupported(fldPath.child('patchType'), patchType, PATCH_TYPES))
  }
  return errs
}

/** Only create, update and connect requests can be mutated: every operation of every rule, the path without an index as the reference's. */
function validateMutableOperations(matchResources: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  for (const rule of arr(matchResources.resourceRules)) {
    for (const op of arr(obj(rule).operations)) {
      if (!MUTATING_OPERATIONS.includes(str(op))) errs.push(notSupported(fldPath, str(op), MUTATING_OPERATIONS))
    }
  }
  return errs
}

function validateMutatingAdmissionPolicySpec(spec: Obj, ignoreMatchConditions: boolean, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (!isSet(spec.failurePolicy)) errs.push(required(fldPath.child('failurePolicy')))
  else if (!FAILURE_POLICIES.includes(str(spec.failurePolicy))) errs.push(notSupported(fldPath.child('failurePolicy'), str(spec.failurePolicy), FAILURE_POLICIES))
  const hasParams = isSet(spec.paramKind)
  if (hasParams) errs.push(...validateParamKind(obj(spec.paramKind), fldPath.child('paramKind')))
  if (!isSet(spec.matchConstraints)) errs.push(required(fldPath.child('matchConstraints')))
  else {
    const mc = obj(spec.matchConstraints)
    errs.push(...validateMatchResources(mc, fldPath.child('matchConstraints')))
    // At least one resource rule, to give the expressions their type.
    if (arr(mc.resourceRules).length === 0) errs.push(required(fldPath.child('matchConstraints', 'resourceRules')))
    errs.push(...validateMutableOperations(mc, fldPath.child('matchConstraints', 'resourceRules', 'operations')))
  }
  if (!ignoreMatchConditions) {
    errs.push(...validateMatchConditions(spec.matchConditions, { ...CREATE_OPTIONS, allowParamsInMatchConditions: hasParams }, fldPath.child('matchConditions')))
  }
  arr(spec.variables).forEach((v, i) => errs.push(...validateVariable(obj(v), hasParams, fldPath.child('variables').index(i))))
  const mutations = arr(spec.mutations)
  if (mutations.length === 0) errs.push(required(fldPath.child('mutations'), 'mutations must contain at least one item'))
  else mutations.forEach((m, i) => errs.push(...validateMutation(obj(m), hasParams, fldPath.child('mutations').index(i))))
  const reinvocation = str(spec.reinvocationPolicy)
  if (reinvocation === '') errs.push(required(fldPath.child('reinvocationPolicy')))
  else if (!REINVOCATION_POLICIES.includes(reinvocation)) errs.push(notSupported(fldPath.child('reinvocationPolicy'), reinvocation, REINVOCATION_POLICIES))
  return errs
}

/** ValidateMutatingAdmissionPolicy (without the metadata). */
export function validateMutatingAdmissionPolicy(o: KubeObject): ErrorList {
  return validateMutatingAdmissionPolicySpec(obj(o.spec), false, Path.of('spec'))
}

/** ValidateMutatingAdmissionPolicyUpdate: match conditions not compiled again when they and paramKind are unchanged. */
export function validateMutatingAdmissionPolicyUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const oldSpec = obj(old.spec)
  const ignore = semanticEqual(spec.paramKind, oldSpec.paramKind) && semanticEqual(spec.matchConditions, oldSpec.matchConditions)
  return validateMutatingAdmissionPolicySpec(spec, ignore, Path.of('spec'))
}

/** ValidateMutatingAdmissionPolicyBinding (without the metadata); also its update. */
export function validateMutatingAdmissionPolicyBinding(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const fldPath = Path.of('spec')
  const errs: ErrorList = []
  errs.push(...validateBindingPolicyName(spec.policyName, fldPath.child('policyName')))
  errs.push(...validateParamRef(spec.paramRef, fldPath.child('paramRef')))
  if (isSet(spec.matchResources)) {
    errs.push(...validateMatchResources(spec.matchResources, fldPath.child('matchResources')))
    errs.push(...validateMutableOperations(obj(spec.matchResources), fldPath.child('matchResources', 'resourceRules', 'operations')))
  }
  return errs
}
