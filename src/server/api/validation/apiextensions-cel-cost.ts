/**
 * The estimated cost limits of a CRD's `x-kubernetes-validations`, after the reference's
 * apiextensions validation (validation.go: getExpressionCost, getCostErrorMessage, and
 * cel_validation.go's CELSchemaContext and TotalCost): a rule's estimated cost is multiplied by
 * how many times its node can repeat (the product of the maxItems and maxProperties above it,
 * or, where one is missing, how many of its smallest values fit in a request); a rule over
 * StaticEstimatedCostLimit is refused, and so is a schema whose rules together exceed
 * StaticEstimatedCRDCostLimit, naming the rules that contributed most.
 */
import { MAX_UINT64, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from '../../../core/cel/index.js'
import type { CompiledRule } from '../schema/cel-rules.js'
import { type ErrorList, type Path, forbidden } from './field/index.js'
import { isPlainObject } from '../registry/object.js'

/** TotalCost: the sum of a schema's rule costs and its four most expensive rules (those above 1% of the limit). */
export class TotalCost {
  total = 0n
  mostExpensive: { path: Path; cost: bigint }[] = []

  observe(path: Path, cost: bigint): void {
    this.total = MAX_UINT64 - this.total < cost ? MAX_UINT64 : this.total + cost
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100n) return
    this.mostExpensive.push({ path, cost })
    this.mostExpensive.sort((a, b) => (a.cost > b.cost ? -1 : a.cost < b.cost ? 1 : 0))
    if (this.mostExpensive.length > 4) this.mostExpensive.length = 4
  }
}

/** The cost context of a schema node (CELSchemaContext's MaxCardinality and TotalCost). */
export interface CelCostContext {
  /** The product of the maxItems/maxProperties above, undefined where one is unbounded. */
  cardinality: bigint | undefined
  total: TotalCost
  /** On update, an unchanged version's rules are not held to the per-expression limit. */
  suppressPerExpressionCost: boolean
}

export function rootCostContext(suppressPerExpressionCost: boolean): CelCostContext {
  return { cardinality: 1n, total: new TotalCost(), suppressPerExpressionCost }
}

function multiplyWithOverflowGuard(base: bigint, cardinality: bigint): bigint {
  if (base === 0n) return 0n
  return MAX_UINT64 / base < cardinality ? MAX_UINT64 : base * cardinality
}

/** extractMaxElements: how many times a schema repeats its children; undefined for an unbounded list or map. */
function maxElements(schema: Record<string, unknown>): bigint | undefined {
  const count = (v: unknown) => (typeof v === 'number' ? BigInt(Math.max(0, Math.floor(v))) : undefined)
  if (schema.type === 'object') return schema.additionalProperties !== undefined && schema.additionalProperties !== null && schema.additionalProperties !== false ? count(schema.maxProperties) : 1n
  if (schema.type === 'array') return count(schema.maxItems)
  return 1n
}

/** childContext: the context of a property, items or additionalProperties schema of `parent`. */
export function childCostContext(ctx: CelCostContext | undefined, parent: Record<string, unknown>): CelCostContext | undefined {
  if (!ctx) return undefined
  if (ctx.cardinality === undefined) return ctx
  const factor = isPlainObject(parent) ? maxElements(parent) : 1n
  return { ...ctx, cardinality: factor === undefined ? undefined : multiplyWithOverflowGuard(ctx.cardinality, factor) }
}

/** getCostErrorMessage, with Go's %f and %.1f. */
export function costErrorMessage(costName: string, cost: bigint, limit: bigint): string {
  const factor = Number(cost) / Number(limit)
  const text = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`
  return `${costName} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`
}

/** The cost errors of one compiled rule at `rulePath` (`...x-kubernetes-validations[i]`), and its share of the total. */
export function ruleCostErrors(c: CompiledRule, rulePath: Path, ctx: CelCostContext): ErrorList {
  const errs: ErrorList = []
  const cost = multiplyWithOverflowGuard(c.maxCost, ctx.cardinality ?? c.maxCardinality)
  if (!ctx.suppressPerExpressionCost && cost > STATIC_ESTIMATED_COST_LIMIT) errs.push(forbidden(rulePath.child('rule'), costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)))
  ctx.total.observe(rulePath.child('rule'), cost)
  // The reference compiles a message expression only once its rule compiled.
  if (c.error === undefined && c.messageExpression && c.messageExpressionError === undefined) {
    if (!ctx.suppressPerExpressionCost && c.messageExpressionMaxCost > STATIC_ESTIMATED_COST_LIMIT) {
      errs.push(forbidden(rulePath.child('messageExpression'), costErrorMessage('estimated messageExpression cost', c.messageExpressionMaxCost, STATIC_ESTIMATED_COST_LIMIT)))
    }
    ctx.total.observe(rulePath.child('messageExpression'), c.messageExpressionMaxCost)
  }
  return errs
}

/** The schema-wide limit: the rules that contributed most, then the total at `openAPIV3Schema`. */
export function totalCostErrors(ctx: CelCostContext, schemaPath: Path): ErrorList {
  if (ctx.total.total <= STATIC_ESTIMATED_CRD_COST_LIMIT) return []
  const errs: ErrorList = ctx.total.mostExpensive.map((e) => forbidden(e.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'))
  errs.push(forbidden(schemaPath, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', ctx.total.total, STATIC_ESTIMATED_CRD_COST_LIMIT)))
  return errs
}
