/**
 * One mutation run against the object (the reference's patch.Patcher implementations): the
 * expression is evaluated in the policy's activation, its result applied as an apply
 * configuration or as JSON patch operations. A compile error is returned as it is (the
 * reference joins the patcher's compilation errors), an evaluation error as the activation
 * words it (`expression '<e>' resulted in error: ...`).
 */
import type { TypeNode } from '../../../../core/apply/index.js'
import { CelObjectValue, mutationValueToJson, typeNameMismatches } from '../../../../core/cel/index.js'
import type { PolicyActivation } from '../composition.js'
import { applyStructuredMergeDiff } from './apply-configuration.js'
import type { CompiledMutation } from './compile.js'
import { applyJsonPatchMutation, jsonPatchOperations } from './json-patch.js'

type Obj = Record<string, unknown>

/** The schema of the object's kind, and whether it is built in (decoded strictly after a JSON patch). */
export interface ObjectType {
  readonly type: TypeNode
  readonly builtIn: boolean
}

/** The object after the mutation; throws an Error (policy error) or an ApiError (returned as it is). */
export async function runMutation(mutation: CompiledMutation, activation: PolicyActivation, object: Obj, objectType: ObjectType): Promise<Obj> {
  if (mutation.compiled.error !== undefined) throw new Error(mutation.compiled.error)
  // An expression asking an authorizer that answers asynchronously evaluates to a Promise.
  const result = await activation.evaluate(mutation.compiled)
  if (result.error !== undefined) throw new Error(result.error)
  if (mutation.patchType === 'JSONPatch') {
    return applyJsonPatchMutation(object, jsonPatchOperations(result.value), objectType.builtIn ? objectType.type : undefined)
  }
  if (!(result.value instanceof CelObjectValue)) throw new Error('unsupported return type from ApplyConfiguration expression')
  const mismatches = typeNameMismatches(result.value)
  if (mismatches.length > 0) throw new Error(`type mismatch: ${mismatches.join('\n')}`)
  try {
    return applyStructuredMergeDiff(objectType.type, object, mutationValueToJson(result.value) as Obj)
  } catch (err) {
    throw new Error(`error applying patch: ${(err as Error).message}`)
  }
}
