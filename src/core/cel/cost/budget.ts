/**
 * A runtime cost budget shared by several evaluations (the reference's remainingBudget: the
 * rules of one custom resource, the expressions of one policy binding), each held to the
 * per-call limit as cel-go's CostLimit holds it.
 */
import { COST_LIMIT_EXCEEDED, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from './limits.js'

/** The reference's message when the budget is spent (apiextensions validation.go, admission plugin/cel activation.go). */
export const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run'

/** What charging an evaluation did: charged it, found the budget spent, or found it over the per-call limit. */
export type CostCharge = 'ok' | 'budget' | 'limit'

/** What the budget needs of a program (CelProgram has it). */
export interface CostedProgram {
  actualCost(activation: Record<string, unknown>): bigint
  evaluateWithCost(activation: Record<string, unknown>, limit?: bigint): { value?: unknown; error?: Error; cost: bigint }
}

/** An evaluation under the budget: its result or error, or why nothing further may run. */
export type BudgetedResult = { outcome: 'ok'; value?: unknown; error?: Error } | { outcome: 'budget' } | { outcome: 'limit' }

export class CelCostBudget {
  constructor(
    /** Below zero once an evaluation did not fit: nothing further runs. */
    public remaining: bigint = RUNTIME_CEL_COST_BUDGET,
    readonly perCallLimit: bigint = PER_CALL_LIMIT,
  ) {}

  /**
   * Evaluates `program` with cel-go's cost tracking, stopped past the per-call limit, and
   * charges what it spent: 'budget' when that does not fit (checked first, as the reference
   * does), 'limit' when the evaluation was stopped; either way nothing further may run.
   */
  evaluate(program: CostedProgram, activation: Record<string, unknown>): BudgetedResult {
    const r = program.evaluateWithCost(activation, this.perCallLimit)
    if (r.cost > this.remaining) {
      this.remaining = -1n
      return { outcome: 'budget' }
    }
    if (r.error?.message === COST_LIMIT_EXCEEDED) {
      this.remaining = -1n
      return { outcome: 'limit' }
    }
    this.remaining -= r.cost
    return r.error ? { outcome: 'ok', error: r.error } : { outcome: 'ok', value: r.value }
  }

  /**
   * Charges the upper bound of evaluating `program` against `activation` (actualCost), before
   * it runs, for callers that must decide before evaluating. cel-go
   * cancels an evaluation just past the per-call limit, which is what it then charges; the
   * budget is checked first, as the reference checks the actual cost before the error.
   */
  charge(program: CostedProgram, activation: Record<string, unknown>): CostCharge {
    const cost = program.actualCost(activation)
    const charged = cost > this.perCallLimit ? this.perCallLimit + 1n : cost
    if (charged > this.remaining) {
      this.remaining = -1n
      return 'budget'
    }
    if (cost > this.perCallLimit) {
      this.remaining = -1n
      return 'limit'
    }
    this.remaining -= cost
    return 'ok'
  }
}
