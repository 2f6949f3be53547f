/**
 * A JSONPatch mutation (the reference's mutating/patch/json_patch.go): the expression's list of
 * JSONPatch values becomes RFC 6902 operations (`from` only when set, `value` when given,
 * constructed objects checked for type names that do not follow their field path) applied to
 * the object as gopkg.in/evanphx/json-patch.v4 does. A failed `test` leaves the object as it
 * was; another failure is `JSON Patch: <error>`. A built-in kind's result is decoded strictly,
 * as the reference decodes it into its Go type: an unknown field is an internal error.
 */
import { CelJsonPatchValue, CelObjectValue, mutationValueToJson, typeNameMismatches } from '../../../../core/cel/index.js'
import { JsonPatchTestFailed, applyJsonPatchOperations } from '../../../../core/patch/json-patch.js'
import type { JsonObject } from '../../../../core/patch/values.js'
import { type TypeNode, fieldType, isNamedField, resolve } from '../../../../core/apply/index.js'
import { errors } from '../../../api/status-errors.js'

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The JSON patch operations of an evaluated JSONPatch expression (evaluatePatchExpression). */
export function jsonPatchOperations(result: unknown): Obj[] {
  if (!Array.isArray(result)) throw new Error('type mismatch: JSONPatchType.expression should evaluate to array')
  return result.map((element) => {
    if (!(element instanceof CelJsonPatchValue)) {
      throw new Error(`type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch, got element of ${typeof element}`)
    }
    const op: Obj = { op: element.op, path: element.path }
    if (element.from.length > 0) op.from = element.from
    if (element.value !== undefined) {
      if (element.value instanceof CelObjectValue) {
        const mismatches = typeNameMismatches(element.value)
        if (mismatches.length > 0) throw new Error(`type mismatch: ${mismatches.join('\n')}`)
      }
      op.value = mutationValueToJson(element.value)
    }
    return op
  })
}

/**
 * Go's strict decoding of a built-in object: the fields no struct declares, as
 * `spec.template.spec.containers[1].ports[0].containerPortZ`.
 */
export function unknownFields(value: unknown, node: TypeNode, path = ''): string[] {
  const n = resolve(node, value)
  if (isObj(value) && n.k === 'map') {
    const out: string[] = []
    for (const [k, v] of Object.entries(value)) {
      const p = path === '' ? k : `${path}.${k}`
      if (!isNamedField(n, k) && n.elem === undefined) out.push(p)
      else out.push(...unknownFields(v, fieldType(n, k), p))
    }
    return out
  }
  if (Array.isArray(value) && n.k === 'list') return value.flatMap((item, i) => unknownFields(item, n.elem, `${path}[${i}]`))
  return []
}

/**
 * `object` with the operations applied. `strictType` is the schema of a built-in kind (decoded
 * strictly), undefined for a custom resource.
 */
export function applyJsonPatchMutation(object: Obj, operations: Obj[], strictType?: TypeNode): Obj {
  let patched: unknown
  try {
    patched = applyJsonPatchOperations(object as JsonObject, operations)
  } catch (err) {
    if (err instanceof JsonPatchTestFailed) return object
    throw new Error(`JSON Patch: ${(err as Error).message}`)
  }
  if (!isObj(patched)) throw errors.internal(`json: cannot unmarshal ${Array.isArray(patched) ? 'array' : typeof patched} into Go value of type map[string]interface {}`)
  if (strictType) {
    const unknown = unknownFields(patched, strictType)
    if (unknown.length > 0) throw errors.internal(`strict decoding error: ${unknown.map((f) => `unknown field ${JSON.stringify(f)}`).join(', ')}`)
  }
  return patched
}
