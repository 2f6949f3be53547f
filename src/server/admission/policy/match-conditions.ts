/**
 * A policy's `matchConditions` (the reference's webhook/matchconditions Matcher as the policies
 * use it): evaluated in order over the policy's activation; the first false one means the
 * policy does not apply. Errors (a condition that does not compile or fails) with any others
 * true are the failurePolicy's: under Fail they are the result's `error` (one message, or
 * `[a, b]` for several, as the reference's aggregate), under Ignore the policy does not apply.
 */
import type { CompiledExpression, ExpressionOptions, PolicyActivation } from './composition.js'
import { compileExpression } from './composition.js'

export interface MatchConditionsResult {
  readonly matches: boolean
  /** The first false condition's name. */
  readonly failedConditionName?: string
  readonly error?: string
}

export interface CompiledMatchCondition {
  readonly name: string
  readonly compiled: CompiledExpression
}

export function compileMatchConditions(conditions: unknown, options: ExpressionOptions): CompiledMatchCondition[] {
  const list = Array.isArray(conditions) ? conditions : []
  return list.map((c: { name?: unknown; expression?: unknown }) => ({
    name: typeof c?.name === 'string' ? c.name : '',
    compiled: compileExpression(typeof c?.expression === 'string' ? c.expression : '', options, ['bool']),
  }))
}

/** Aggregated errors as the reference's utilerrors.NewAggregate prints them. */
export function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`
}

export function evaluateMatchConditions(conditions: readonly CompiledMatchCondition[], activation: PolicyActivation, failurePolicy: unknown): MatchConditionsResult {
  const errors: string[] = []
  for (const condition of conditions) {
    const result = activation.evaluate(condition.compiled)
    if (result.error !== undefined) {
      errors.push(result.error)
      continue
    }
    if (result.value === false) return { matches: false, failedConditionName: condition.name }
  }
  if (errors.length === 0) return { matches: true }
  if (failurePolicy === 'Ignore') return { matches: false }
  return { matches: false, error: aggregate(errors) }
}
