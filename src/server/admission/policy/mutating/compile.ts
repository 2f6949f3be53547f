/**
 * A MutatingAdmissionPolicy compiled (the reference's mutating/compilation.go compilePolicy):
 * its variables, its matchConditions, and one patcher per mutation, in order. A mutation's
 * expression is compiled with typed construction (`Object{...}`, `JSONPatch{...}`) and the
 * JSONPatch library, and must evaluate to `Object` (ApplyConfiguration) or `list(JSONPatch)`
 * (JSONPatch); a compile error is kept and reported when the mutation runs.
 */
import type { KubeObject } from '../../../api/registry/object.js'
import { isPlainObject } from '../../../api/registry/object.js'
import { admissionEnvironment } from '../../../api/validation/admissionregistration.js'
import { CelCompileError, compileConstructing } from '../../../../core/cel/index.js'
import { type CompiledExpression, CompiledVariables, type ExpressionOptions } from '../composition.js'
import { type CompiledMatchCondition, compileMatchConditions } from '../match-conditions.js'
import { specOf } from '../sources.js'

export type PatchType = 'ApplyConfiguration' | 'JSONPatch'

export interface CompiledMutation {
  readonly patchType: PatchType
  readonly compiled: CompiledExpression
}

export interface MutatingPolicyEvaluator {
  readonly variables: CompiledVariables
  readonly matchConditions: readonly CompiledMatchCondition[]
  readonly mutations: readonly CompiledMutation[]
}

/** What each patch type's expression must evaluate to (ApplyConfigurationCondition, JSONPatchCondition). */
const RETURN_TYPES: Record<PatchType, string> = { ApplyConfiguration: 'Object', JSONPatch: 'list(JSONPatch)' }

/** Compiles one mutation expression; a type mismatch reads `must evaluate to Object but got string`. */
export function compileMutationExpression(patchType: PatchType, expression: string, options: ExpressionOptions): CompiledExpression {
  try {
    const program = compileConstructing(admissionEnvironment(options.hasParams, options.hasAuthorizer, true), expression, [RETURN_TYPES[patchType]])
    return { expression, program }
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err
    return { expression, error: err.kind === 'type' ? `${err.message} but got ${err.actualType}` : err.message }
  }
}

function expressionOf(value: unknown): string {
  return isPlainObject(value) && typeof value.expression === 'string' ? value.expression : ''
}

export function compilePolicy(policy: KubeObject): MutatingPolicyEvaluator {
  const spec = specOf(policy)
  const options: ExpressionOptions = { hasParams: isPlainObject(spec.paramKind), hasAuthorizer: true }
  const variables = (Array.isArray(spec.variables) ? spec.variables : []).filter(isPlainObject).map((v) => ({ name: String(v.name ?? ''), expression: expressionOf(v) }))
  const mutations: CompiledMutation[] = []
  for (const m of Array.isArray(spec.mutations) ? spec.mutations.filter(isPlainObject) : []) {
    // As the reference: a mutation whose patchType names no set expression compiles to nothing.
    if (m.patchType === 'JSONPatch' && isPlainObject(m.jsonPatch)) {
      mutations.push({ patchType: 'JSONPatch', compiled: compileMutationExpression('JSONPatch', expressionOf(m.jsonPatch), options) })
    } else if (m.patchType === 'ApplyConfiguration' && isPlainObject(m.applyConfiguration)) {
      mutations.push({ patchType: 'ApplyConfiguration', compiled: compileMutationExpression('ApplyConfiguration', expressionOf(m.applyConfiguration), options) })
    }
  }
  return {
    variables: new CompiledVariables(variables, options),
    matchConditions: compileMatchConditions(spec.matchConditions, options),
    mutations,
  }
}
