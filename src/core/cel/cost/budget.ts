/**
 * A runtime cost budget shared by several evaluations (the reference's remainingBudget: the
 * rules of one custom resource, the expressions of one policy binding), each held to the
 * per-call limit as cel-go's CostLimit holds it.
 */
import { PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from './limits.js'

/** The reference's message when the budget is spent (apiextensions validation.go, admission plugin/cel activation.go). */
export const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run'

/** What charging an evaluation did: charged it, found the budget spent, or found it over the per-call limit. */
export type CostCharge = 'ok' | 'budget' | 'limit'

/** What the budget needs of a program (CelProgram has it). */
export interface CostedProgram {
  actualCost(activation: Record<string, unknown>): bigint
}

export class CelCostBudget {
  constructor(
    /** Below zero once an evaluation did not fit: nothing further runs. */
    public remaining: bigint = RUNTIME_CEL_COST_BUDGET,
    readonly perCallLimit: bigint = PER_CALL_LIMIT,
  ) {}

  /**
   * Charges the cost of evaluating `program` against `activation`, before it runs. cel-go
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
