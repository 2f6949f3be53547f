/**
 * Evaluating a custom resource against its schema's compiled `x-kubernetes-validations` rules
 * (cel-rules.ts), after the reference's `apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`:
 * each node's rules with `self` bound to the value there and `oldSelf` to the correlated old
 * value (properties and map entries by key, map-list items by their keys); a transition rule is
 * skipped where no old value exists unless `optionalOldSelf`; the failures are the reference's
 * field errors (`reason`, `fieldPath`, `message`, `messageExpression`). A rule that is not a
 * transition rule and fails on a value the update left unchanged is ratcheted (the reference
 * turns it into a warning, which is not sent here). Each evaluation is charged its cost against
 * the object's budget (RuntimeCELCostBudget) and held to the per-call limit, with the
 * reference's messages; the cost is cel-go's runtime cost, tracked as the rule runs
 * (src/core/cel/cost/tracker.ts).
 */
import { Optional } from '@marcbachmann/cel-js'
import { CelCostBudget, CelEvaluationError, COST_LIMIT_EXCEEDED, OUT_OF_BUDGET, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from '../../../core/cel/index.js'
import { deepEqual } from '../../../core/patch/index.js'
import { type ErrorList, OMIT_VALUE, Path, duplicate, forbidden, invalid, required } from '../validation/field/index.js'
import { type CompiledRule, type RuleTree, celProperties, escapeProperty } from './cel-rules.js'

type Json = Record<string, unknown>

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The node's path; the root's is Go's nil path (`<nil>`), whose child is a root path. */
type NodePath = Path | undefined

function child(path: NodePath, name: string): Path {
  return path ? path.child(name) : Path.of(name)
}

/** UnstructuredToVal: integers are CEL ints, null fields are absent, properties carry their escaped names. */
export function toCelValue(schema: Json, value: unknown, isResourceRoot = false): unknown {
  if (value === null || value === undefined) return value
  if (typeof value === 'number') return schema.type === 'number' || !Number.isInteger(value) ? value : BigInt(value)
  if (Array.isArray(value)) return value.map((v) => toCelValue(isObj(schema.items) ? schema.items : {}, v))
  if (!isObj(value)) return value
  const out: Json = {}
  if (isObj(schema.additionalProperties)) {
    for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = toCelValue(schema.additionalProperties, v)
    return out
  }
  if (schema.type !== 'object') {
    for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = toCelValue({}, v)
    return out
  }
  const properties = celProperties(schema, isResourceRoot)
  for (const [k, v] of Object.entries(value)) {
    const escaped = escapeProperty(k)
    if (v === null || escaped === undefined || !isObj(properties[k])) continue
    out[escaped] = toCelValue(properties[k], v)
  }
  return out
}

function ruleErrorString(c: CompiledRule): string {
  return c.rule.message.length > 0 ? c.rule.message.trim() : c.rule.rule.trim()
}

function ruleMessageOrDefault(c: CompiledRule): string {
  return c.rule.message.length === 0 ? `failed rule: ${ruleErrorString(c)}` : c.rule.message.trim()
}

/** fieldErrorForReason. */
function fieldErrorForReason(path: NodePath, value: unknown, detail: string, reason: string | undefined) {
  switch (reason) {
    case 'FieldValueForbidden':
      return forbidden(path, detail)
    case 'FieldValueRequired':
      return required(path, detail)
    case 'FieldValueDuplicate':
      return duplicate(path, value)
    default:
      return invalid(path, value, detail)
  }
}

/** The rule's fieldPath (`.a.b`, `.a['b.c']`) under the node's path. */
function ruleFieldPath(path: NodePath, fieldPath: string): NodePath {
  let p = path
  const re = /\.([^.[\]]+)|\['((?:\\.|[^'\\])*)'\]/g
  for (const m of fieldPath.trim().matchAll(re)) p = child(p, m[1] ?? m[2]!.replace(/\\(.)/g, '$1'))
  return p
}

/** The cost budget of one object's rules (RuntimeCELCostBudget, each evaluation within PerCallLimit). */
export type CostBudget = CelCostBudget

export function newCostBudget(remaining = RUNTIME_CEL_COST_BUDGET, perCallLimit = PER_CALL_LIMIT): CostBudget {
  return new CelCostBudget(remaining, perCallLimit)
}

/** evalMessageExpression: the message, or undefined to fall back to the rule's message; `stop` when the cost ends the validation. */
function evalMessageExpression(c: CompiledRule, activation: Record<string, unknown>, budget: CostBudget): { message?: string; stop?: string } {
  const evaluated = budget.evaluate(c.messageExpression!, activation)
  if (evaluated.outcome === 'budget') return { stop: 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run' }
  if (evaluated.outcome === 'limit') return { stop: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(c.rule.messageExpression)}` }
  const result = evaluated.value
  if (evaluated.error || typeof result !== 'string') return {}
  const trimmed = result.trim()
  if (trimmed.length === 0 || trimmed.length > 5000 || /\n/.test(trimmed)) return {}
  return { message: trimmed }
}

/** A runtime error in cel-go's words (`no such key: x`; a missing overload is only `no such overload`). */
function runtimeMessage(err: CelEvaluationError): string {
  if (err.message.startsWith('no such overload')) return 'no such overload'
  return err.message.replace(/^No such key: /, 'no such key: ')
}

/** validateExpressions: this node's rules. */
function validateExpressions(tree: RuleTree, schema: Json, path: NodePath, value: unknown, old: unknown, isResourceRoot: boolean, budget: CostBudget): ErrorList {
  if (value === null || value === undefined || tree.rules.length === 0) return []
  const errs: ErrorList = []
  const type = typeof schema.type === 'string' ? schema.type : ''
  if (budget.exhausted) {
    budget.remaining = -1n
    return [invalid(path, type, OUT_OF_BUDGET)]
  }
  const self = toCelValue(schema, value, isResourceRoot)
  const hasOld = old !== null && old !== undefined
  const oldSelf = hasOld ? toCelValue(schema, old, isResourceRoot) : undefined
  for (const c of tree.rules) {
    if (c.error !== undefined) {
      errs.push(invalid(path, type, `rule compile error: ${c.error}`))
      continue
    }
    if (!c.program) continue
    if (c.usesOldSelf && !hasOld && !c.rule.optionalOldSelf) continue
    const activation: Record<string, unknown> = { self }
    if (c.rule.optionalOldSelf) activation.oldSelf = hasOld ? Optional.of(oldSelf) : Optional.none()
    else if (hasOld) activation.oldSelf = oldSelf
    const evaluated = budget.evaluate(c.program, activation)
    if (evaluated.outcome === 'budget') {
      errs.push(invalid(path, type, OUT_OF_BUDGET))
      return errs
    }
    if (evaluated.outcome === 'limit') {
      errs.push(invalid(path, type, `'${COST_LIMIT_EXCEEDED}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(c)}`))
      return errs
    }
    const result = evaluated.value
    if (evaluated.error) {
      const err = evaluated.error
      if (!(err instanceof CelEvaluationError)) throw err
      const message = runtimeMessage(err)
      if (message.startsWith('no such overload')) {
        errs.push(invalid(path, type, `'${message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(c)}`))
      } else errs.push(invalid(path, type, `${message} evaluating rule: ${ruleErrorString(c)}`))
      continue
    }
    if (result === true) continue
    // CRDValidationRatcheting (on by default): an unchanged value keeps passing.
    if (!c.usesOldSelf && hasOld && deepEqual(value, old)) continue
    const at = c.rule.fieldPath.length > 0 ? ruleFieldPath(path, c.rule.fieldPath) : path
    let detail = ruleMessageOrDefault(c)
    if (c.messageExpression) {
      const evaluated = evalMessageExpression(c, activation, budget)
      if (evaluated.stop !== undefined) {
        errs.push(invalid(at, type, evaluated.stop))
        return errs
      }
      if (evaluated.message) detail = evaluated.message
    }
    const badValue = type === 'object' || type === 'array' ? OMIT_VALUE : value
    errs.push(fieldErrorForReason(at, badValue, detail, c.rule.reason))
  }
  return errs
}

/** makeMapList: the old items of a map list by their key values. */
function oldItemFinder(schema: Json, old: unknown): (item: unknown) => unknown {
  const keys = Array.isArray(schema['x-kubernetes-list-map-keys']) ? (schema['x-kubernetes-list-map-keys'] as string[]) : []
  if (schema['x-kubernetes-list-type'] !== 'map' || keys.length === 0 || !Array.isArray(old)) return () => undefined
  const keyOf = (item: unknown): string | undefined => (isObj(item) ? JSON.stringify(keys.map((k) => item[k] ?? null)) : undefined)
  const byKey = new Map<string, unknown>()
  for (const item of old) {
    const k = keyOf(item)
    if (k !== undefined) byKey.set(k, item)
  }
  return (item) => {
    const k = keyOf(item)
    return k === undefined ? undefined : byKey.get(k)
  }
}

/** Validate: this node's rules, then its properties', map values' and items' (with their correlated old values). */
export function validateCelRules(tree: RuleTree | undefined, schema: Json, path: NodePath, value: unknown, old: unknown, isResourceRoot = true, budget: CostBudget = newCostBudget()): ErrorList {
  if (!tree) return []
  const errs = validateExpressions(tree, schema, path, value, old, isResourceRoot, budget)
  if (budget.stopped) return errs
  if (isObj(value)) {
    const oldObj = isObj(old) ? old : undefined
    if (tree.properties.size > 0 && isObj(schema.properties)) {
      for (const [k, v] of Object.entries(value)) {
        const sub = tree.properties.get(k)
        if (sub && !budget.stopped) errs.push(...validateCelRules(sub, schema.properties[k] as Json, child(path, k), v, oldObj?.[k], false, budget))
      }
    }
    if (tree.additionalProperties && isObj(schema.additionalProperties)) {
      for (const [k, v] of Object.entries(value)) {
        if (budget.stopped) break
        errs.push(...validateCelRules(tree.additionalProperties, schema.additionalProperties, path ? path.key(k) : Path.of(k), v, oldObj?.[k], false, budget))
      }
    }
  } else if (Array.isArray(value) && tree.items && isObj(schema.items)) {
    const oldItem = oldItemFinder(schema, old)
    for (const [i, v] of value.entries()) {
      if (budget.stopped) break
      errs.push(...validateCelRules(tree.items, schema.items as Json, path ? path.index(i) : Path.of(String(i)), v, oldItem(v), false, budget))
    }
  }
  return errs
}

/** hasBlockingErr: the schema errors after which the rules are not evaluated. */
const BLOCKING = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid'])

export function blockingError(causes: readonly { reason: string }[]) {
  if (!causes.some((c) => BLOCKING.has(c.reason))) return undefined
  return invalid(undefined, 'null', 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation')
}
