/**
 * Compiling a CRD schema's `x-kubernetes-validations` CEL rules, after the reference's
 * `apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go` and the declared types of
 * `apiserver/pkg/cel/common/schemas.go`: `self` (and `oldSelf`) typed from the schema node the
 * rule sits on, property names escaped as the reference's `escaping.go`, on the project's one
 * CEL engine (src/core/cel). Rules are compiled once per schema (the CRD's strategy keeps the
 * tree); the evaluation is in cel-validation.ts.
 */
import { type CelProgram, type CelVariableType, type CostSizes, CelCompileError, celEnvironment, compileCel, declaredSizes } from '../../../core/cel/index.js'
import { maxCardinality, schemaDeclType } from './cel-cost.js'
import { escapeProperty } from './cel-escape.js'

export { escapeProperty }

type Json = Record<string, unknown>

export interface ValidationRule {
  rule: string
  message: string
  messageExpression: string
  reason?: string
  fieldPath: string
  optionalOldSelf: boolean
}

/** One rule's compilation: a program, or the reference's error (`compilation failed: ...`). */
export interface CompiledRule {
  rule: ValidationRule
  program?: CelProgram
  error?: string
  messageExpression?: CelProgram
  messageExpressionError?: string
  usesOldSelf: boolean
  /** The rule's estimated worst-case cost (cel-go's EstimateCost max), 0 when it does not compile. */
  maxCost: bigint
  /** The same for the message expression. */
  messageExpressionMaxCost: bigint
  /** How many times the node's data could repeat in one request (used where no maxItems/maxProperties above bounds it). */
  maxCardinality: bigint
}

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The properties CEL sees on an object node: a resource root or embedded resource shows only name and generateName of its metadata. */
export function celProperties(schema: Json, isResourceRoot: boolean): Json {
  const properties = isObj(schema.properties) ? { ...schema.properties } : {}
  if (isResourceRoot || schema['x-kubernetes-embedded-resource'] === true) {
    properties.apiVersion = { type: 'string' }
    properties.kind = { type: 'string' }
    properties.metadata = { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } }
  }
  return properties
}

/** SchemaDeclType as a type of the engine: objects with properties are typed field by field. */
export function celDeclType(schema: Json, isResourceRoot = false): CelVariableType {
  const fields = objectFields(schema, isResourceRoot)
  return fields ? { schema: fields } : (scalarOrCollection(schema) ?? 'dyn')
}

/** An object's fields (escaped names), or undefined when the node is not such an object. */
function objectFields(schema: Json, isResourceRoot: boolean): Json | undefined {
  if (schema['x-kubernetes-int-or-string'] === true || schema.type !== 'object' || isObj(schema.additionalProperties)) return undefined
  const fields: Json = {}
  for (const [name, property] of Object.entries(celProperties(schema, isResourceRoot))) {
    const escaped = escapeProperty(name)
    if (escaped === undefined || !isObj(property)) continue
    fields[escaped] = objectFields(property, false) ?? scalarOrCollection(property) ?? 'dyn'
  }
  return fields
}

/** A type the engine spells as a string; objects inside lists and maps are `map<string, dyn>`. */
function scalarOrCollection(schema: Json): string | undefined {
  if (schema['x-kubernetes-int-or-string'] === true) return 'dyn'
  switch (schema.type) {
    case 'integer':
      return 'int'
    case 'number':
      return 'double'
    case 'boolean':
      return 'bool'
    case 'string':
      return 'string'
    case 'array':
      return `list<${isObj(schema.items) ? elementType(schema.items) : 'dyn'}>`
    case 'object':
      return isObj(schema.additionalProperties) ? `map<string, ${elementType(schema.additionalProperties)}>` : 'map<string, dyn>'
    default:
      return undefined
  }
}

function elementType(schema: Json): string {
  if (schema.type === 'object' && !isObj(schema.additionalProperties)) return 'map<string, dyn>'
  return scalarOrCollection(schema) ?? 'dyn'
}

/** The rules of a schema node as written. */
export function validationRules(schema: Json): ValidationRule[] {
  const rules = Array.isArray(schema['x-kubernetes-validations']) ? schema['x-kubernetes-validations'] : []
  return rules.filter(isObj).map((r) => ({
    rule: typeof r.rule === 'string' ? r.rule : '',
    message: typeof r.message === 'string' ? r.message : '',
    messageExpression: typeof r.messageExpression === 'string' ? r.messageExpression : '',
    ...(typeof r.reason === 'string' ? { reason: r.reason } : {}),
    fieldPath: typeof r.fieldPath === 'string' ? r.fieldPath : '',
    optionalOldSelf: r.optionalOldSelf === true,
  }))
}

/** Whether an expression names `oldSelf` outside string literals (the checker's reference map in the reference). */
function referencesOldSelf(expression: string): boolean {
  const withoutStrings = expression.replace(/'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g, '""')
  return /(^|[^\w.])oldSelf\b/.test(withoutStrings)
}

/** The variables of a rule; a schema type the engine cannot declare makes `self` dynamic rather than refuse the CRD. */
function environmentFor(selfType: CelVariableType, optionalOldSelf: boolean) {
  const oldSelf = (t: CelVariableType): CelVariableType => (optionalOldSelf ? 'optional<dyn>' : t)
  try {
    return celEnvironment({ self: selfType, oldSelf: oldSelf(selfType) })
  } catch {
    return celEnvironment({ self: 'dyn', oldSelf: oldSelf('dyn') })
  }
}

/** compileRule and the message expression's compilation, with the reference's details. */
function compileRule(rule: ValidationRule, selfType: CelVariableType, sizes: CostSizes, cardinality: bigint): CompiledRule {
  const usesOldSelf = referencesOldSelf(rule.rule)
  const compiled: CompiledRule = { rule, usesOldSelf, maxCost: 0n, messageExpressionMaxCost: 0n, maxCardinality: cardinality }
  // An optionalOldSelf rule sees oldSelf as an optional; the engine types its content as dyn.
  const env = environmentFor(selfType, rule.optionalOldSelf)
  if (rule.rule.trim() !== '') {
    try {
      compiled.program = compileCel(env, rule.rule, ['bool'])
      compiled.maxCost = compiled.program.estimateCost(sizes).max
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err
      compiled.error = err.kind === 'type' ? 'cel expression must evaluate to a bool' : err.message
    }
  }
  if (rule.messageExpression.trim() !== '') {
    try {
      compiled.messageExpression = compileCel(env, rule.messageExpression, ['string'])
      compiled.messageExpressionMaxCost = compiled.messageExpression.estimateCost(sizes).max
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err
      compiled.messageExpressionError = err.kind === 'type' ? 'messageExpression must evaluate to a string' : `messageExpression ${err.message}`
    }
  }
  return compiled
}

/** Compile every rule of one schema node (the reference's Compile). */
export function compileNodeRules(schema: Json, isResourceRoot: boolean): CompiledRule[] {
  const rules = validationRules(schema)
  if (rules.length === 0) return []
  const selfType = celDeclType(schema, isResourceRoot)
  // The estimates' sizes: the reference's declared type of the node (maxLength, maxItems, maxProperties).
  const decl = schemaDeclType(schema, isResourceRoot || schema['x-kubernetes-embedded-resource'] === true)
  const sizes: CostSizes = decl ? declaredSizes(decl) : { actual: false, size: () => undefined, kind: () => undefined }
  const cardinality = maxCardinality(decl?.minSerializedSize ?? 0n)
  return rules.map((rule) => compileRule(rule, selfType, sizes, cardinality))
}

/** The compiled rules of a schema and of its properties, items and additional properties; undefined where none are below. */
export interface RuleTree {
  rules: CompiledRule[]
  properties: Map<string, RuleTree>
  items?: RuleTree
  additionalProperties?: RuleTree
}

export function compileRuleTree(schema: Json, isResourceRoot = true): RuleTree | undefined {
  const tree: RuleTree = { rules: compileNodeRules(schema, isResourceRoot), properties: new Map() }
  let any = tree.rules.length > 0
  if (isObj(schema.properties)) {
    for (const [name, property] of Object.entries(schema.properties)) {
      if (!isObj(property)) continue
      const sub = compileRuleTree(property, false)
      if (sub) {
        tree.properties.set(name, sub)
        any = true
      }
    }
  }
  if (isObj(schema.items)) {
    tree.items = compileRuleTree(schema.items, false)
    any ||= tree.items !== undefined
  }
  if (isObj(schema.additionalProperties)) {
    tree.additionalProperties = compileRuleTree(schema.additionalProperties, false)
    any ||= tree.additionalProperties !== undefined
  }
  return any ? tree : undefined
}

/** Compiled trees by schema text: the served stores are rebuilt from the stored CRDs (every second at most), the rules need not be. */
const TREES = new Map<string, RuleTree | undefined>()
const TREES_KEPT = 64

/** compileRuleTree for a CRD version's schema, kept while the schema stays the same. */
export function cachedRuleTree(schema: Json): RuleTree | undefined {
  const key = JSON.stringify(schema)
  if (!key.includes('"x-kubernetes-validations"')) return undefined
  if (TREES.has(key)) return TREES.get(key)
  const tree = compileRuleTree(schema)
  if (TREES.size >= TREES_KEPT) TREES.delete(TREES.keys().next().value!)
  TREES.set(key, tree)
  return tree
}
