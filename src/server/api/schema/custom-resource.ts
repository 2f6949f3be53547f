/**
 * The validation of a custom resource, after the reference's
 * `pkg/registry/customresource/validator.go` and `strategy.go`: the schema's field errors
 * (`openapi-validate.ts`), the scale subresource's replicas and selector paths, the embedded
 * resources (`embedded.ts`), the list types (`listtype.ts`) and the `x-kubernetes-validations`
 * CEL rules (`cel-validation.ts`), which run only when no blocking schema error was found.
 */
import type { Cause } from '../status-errors.js'
import { fieldValue } from './go-value.js'
import { validateEmbedded } from './embedded.js'
import { validateListSetsAndMaps } from './listtype.js'
import { validateOpenAPI } from './openapi-validate.js'
import type { RuleTree } from './cel-rules.js'
import { blockingError, validateCelRules } from './cel-validation.js'

type Json = Record<string, unknown>

/** The CRD version's `subresources.scale` paths as written (`.spec.replicas`). */
export interface ScaleSpec {
  specReplicasPath: string
  statusReplicasPath: string
  labelSelectorPath?: string
}

function invalid(field: string, value: unknown, detail: string): Cause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${fieldValue(value)}: ${detail}`, field }
}

function goTypeName(v: unknown): string {
  if (typeof v === 'string') return 'string'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64'
  if (Array.isArray(v)) return '[]interface {}'
  return v === null ? '<nil>' : 'map[string]interface {}'
}

function goV(v: unknown): string {
  if (v === null) return '<nil>'
  if (typeof v === 'object') return Array.isArray(v) ? `[${v.map(goV).join(' ')}]` : `map[${Object.keys(v as Json).sort().map((k) => `${k}:${goV((v as Json)[k])}`).join(' ')}]`
  return String(v)
}

/** unstructured.NestedFieldNoCopy and the typed accessors' errors. */
function nested(o: Json, path: string, want: 'int64' | 'string'): { value: unknown; error?: string } {
  const fields = path.replace(/^\./, '').split('.')
  let cur: unknown = o
  for (const [i, f] of fields.entries()) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) {
      return { value: want === 'int64' ? 0 : '', error: `${`.${fields.slice(0, i).join('.')}`} accessor error: ${goV(cur)} is of the type ${goTypeName(cur)}, expected map[string]interface{}` }
    }
    if (!Object.hasOwn(cur as Json, f)) return { value: want === 'int64' ? 0 : '' }
    cur = (cur as Json)[f]
  }
  const ok = want === 'int64' ? typeof cur === 'number' && Number.isInteger(cur) : typeof cur === 'string'
  if (!ok) return { value: want === 'int64' ? 0 : '', error: `.${fields.join('.')} accessor error: ${goV(cur)} is of the type ${goTypeName(cur)}, expected ${want}` }
  return { value: cur }
}

function validateReplicas(o: Json, path: string): Cause[] {
  const { value, error } = nested(o, path, 'int64')
  if (error) return [invalid(path, value, error)]
  const n = value as number
  if (n < 0) return [invalid(path, n, 'should be a non-negative integer')]
  if (n > 2147483647) return [invalid(path, n, 'should be less than or equal to 2147483647')]
  return []
}

/** ValidateScaleSpec: the spec replicas path holds a non-negative int32. */
export function validateScaleSpec(o: Json, scale: ScaleSpec | undefined): Cause[] {
  return scale ? validateReplicas(o, scale.specReplicasPath) : []
}

/** ValidateScaleStatus: the status replicas path likewise, and the selector path a string. */
export function validateScaleStatus(o: Json, scale: ScaleSpec | undefined): Cause[] {
  if (!scale) return []
  const causes = validateReplicas(o, scale.statusReplicasPath)
  if (scale.labelSelectorPath) {
    const { value, error } = nested(o, scale.labelSelectorPath, 'string')
    if (error) causes.push(invalid(scale.labelSelectorPath, value, error))
  }
  return causes
}

/**
 * customResourceStrategy.Validate (ValidateUpdate with `old`), after the object metadata: the
 * schema's errors, the scale paths', the embedded objects', the list types' (checked on an
 * update only when the old object passed them); an unchanged invalid value is ratcheted.
 */
export function validateCustomResource(schema: Json | undefined, o: Json, scale: ScaleSpec | undefined, old?: Json, rules?: RuleTree): Cause[] {
  const causes: Cause[] = schema ? validateOpenAPI(schema, o, '', old === undefined ? undefined : { value: old }) : []
  causes.push(...validateScaleSpec(o, scale), ...validateScaleStatus(o, scale))
  if (schema) {
    causes.push(...validateEmbedded('', o, schema))
    if (old === undefined || validateListSetsAndMaps('', schema, old).length === 0) causes.push(...validateListSetsAndMaps('', schema, o))
    causes.push(...celRuleErrors(rules, schema, o, old, causes))
  }
  return causes
}

/** The CEL rules' errors, or the reference's one error when the schema's errors block them. */
function celRuleErrors(rules: RuleTree | undefined, schema: Json, o: Json, old: Json | undefined, causes: readonly Cause[]): Cause[] {
  if (!rules) return []
  const blocking = blockingError(causes)
  return blocking ? [blocking] : validateCelRules(rules, schema, undefined, o, old)
}

/** ValidateStatusUpdate: the status against the status schema, the scale's status paths, then the rules over the whole object. */
export function validateCustomResourceStatus(schema: Json | undefined, o: Json, scale: ScaleSpec | undefined, old: Json, rules?: RuleTree): Cause[] {
  const statusSchema = schema && isObj(schema.properties) && isObj((schema.properties as Json).status) ? ((schema.properties as Json).status as Json) : undefined
  const causes: Cause[] = []
  if (statusSchema && Object.hasOwn(o, 'status')) causes.push(...validateOpenAPI(statusSchema, o.status, 'status', { value: old.status }))
  causes.push(...validateScaleStatus(o, scale))
  if (schema) causes.push(...celRuleErrors(rules, schema, o, old, causes))
  return causes
}

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
