/**
 * A runtime cost budget shared by several evaluations (the reference's remainingBudget: the
 * rules of one custom resource, the expressions of one policy binding), each held to the
 * per-call limit as cel-go's CostLimit holds it.
 */
import { MAX_UINT64 } from './estimate.js'
import { COST_LIMIT_EXCEEDED, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from './limits.js'

/** Each program's static estimate without sizes, found once. */
const staticBounds = new WeakMap<object, bigint>()

/** The reference's message when the budget is spent (apiextensions validation.go, admission plugin/cel activation.go). */
export const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run'

/** What charging an evaluation did: charged it, found the budget spent, or found it over the per-call limit. */
export type CostCharge = 'ok' | 'budget' | 'limit'

/** What the budget needs of a program (CelProgram has it). */
export interface CostedProgram {
  actualCost(activation: Record<string, unknown>): bigint
  evaluateWithCost(activation: Record<string, unknown>, limit?: bigint): { value?: unknown; error?: Error; cost: bigint }
  /** The evaluation without cost tracking (throws its error), a few times cheaper than the tracked one. */
  evaluateUntracked?(activation: Record<string, unknown>): unknown
  /** The static estimate without sizes: a finite maximum bounds every evaluation's cost. */
  estimateCost?(): { max: bigint }
}

/** An evaluation run untracked, its cost known only to be within its bound. */
interface Unsettled {
  readonly program: CostedProgram
  readonly activation: Record<string, unknown>
}

/** An evaluation under the budget: its result or error, or why nothing further may run. */
export type BudgetedResult = { outcome: 'ok'; value?: unknown; error?: Error } | { outcome: 'budget' } | { outcome: 'limit' }

export class CelCostBudget {
  /** What is left, but for the evaluations not settled yet. */
  private settled: bigint
  /** The evaluations run untracked since the last settlement, and the sum of their bounds. */
  private unsettled: Unsettled[] = []
  private unsettledBound = 0n

  constructor(
    /** Below zero once an evaluation did not fit: nothing further runs. */
    remaining: bigint = RUNTIME_CEL_COST_BUDGET,
    readonly perCallLimit: bigint = PER_CALL_LIMIT,
  ) {
    this.settled = remaining
  }

  /** What is left of the budget, exactly (the evaluations run untracked are priced first). */
  get remaining(): bigint {
    this.settle()
    return this.settled
  }

  set remaining(value: bigint) {
    this.unsettled = []
    this.unsettledBound = 0n
    this.settled = value
  }

  /** Whether nothing further may run (an evaluation did not fit). */
  get stopped(): boolean {
    return this.settled < 0n
  }

  /** Whether nothing is left (spent or stopped), settling only when the bounds cannot tell. */
  get exhausted(): boolean {
    if (this.settled - this.unsettledBound > 0n) return false
    return this.remaining <= 0n
  }

  /**
   * Evaluates `program` with cel-go's cost tracking, stopped past the per-call limit, and
   * charges what it spent: 'budget' when that does not fit (checked first, as the reference
   * does), 'limit' when the evaluation was stopped; either way nothing further may run.
   *
   * An evaluation whose cost is bounded below the per-call limit and within what is surely
   * left (cel-go's actual cost never exceeds its estimate: the static one, else the one with
   * the activation's sizes) runs untracked, as neither check can fail; its exact cost is
   * found (by the tracked evaluation) only when a later evaluation needs the exact remainder.
   */
  evaluate(program: CostedProgram, activation: Record<string, unknown>): BudgetedResult {
    if (program.evaluateUntracked && this.settled >= 0n) {
      const bound = this.boundOf(program, activation)
      if (bound <= this.perCallLimit && this.unsettledBound + bound <= this.settled) {
        this.unsettled.push({ program, activation })
        this.unsettledBound += bound
        try {
          return { outcome: 'ok', value: program.evaluateUntracked(activation) }
        } catch (err) {
          return { outcome: 'ok', error: err as Error }
        }
      }
    }
    this.settle()
    const r = program.evaluateWithCost(activation, this.perCallLimit)
    if (r.cost > this.settled) {
      this.settled = -1n
      return { outcome: 'budget' }
    }
    if (r.error?.message === COST_LIMIT_EXCEEDED) {
      this.settled = -1n
      return { outcome: 'limit' }
    }
    this.settled -= r.cost
    return r.error ? { outcome: 'ok', error: r.error } : { outcome: 'ok', value: r.value }
  }

  /** A bound of the program's cost: its static estimate when finite and within the limit, else the one with the activation's sizes. */
  private boundOf(program: CostedProgram, activation: Record<string, unknown>): bigint {
    let estimate = staticBounds.get(program)
    if (estimate === undefined) staticBounds.set(program, (estimate = program.estimateCost?.().max ?? MAX_UINT64))
    return estimate <= this.perCallLimit ? estimate : program.actualCost(activation)
  }

  /** The exact costs of the evaluations run untracked (tracked again: evaluations are deterministic), charged. */
  private settle(): void {
    if (this.unsettled.length === 0) return
    const pending = this.unsettled
    this.unsettled = []
    this.unsettledBound = 0n
    for (const { program, activation } of pending) this.settled -= program.evaluateWithCost(activation, this.perCallLimit).cost
  }

  /**
   * Charges the upper bound of evaluating `program` against `activation` (actualCost), before
   * it runs, for callers that must decide before evaluating. cel-go
   * cancels an evaluation just past the per-call limit, which is what it then charges; the
   * budget is checked first, as the reference checks the actual cost before the error.
   */
  charge(program: CostedProgram, activation: Record<string, unknown>): CostCharge {
    this.settle()
    const cost = program.actualCost(activation)
    const charged = cost > this.perCallLimit ? this.perCallLimit + 1n : cost
    if (charged > this.settled) {
      this.settled = -1n
      return 'budget'
    }
    if (cost > this.perCallLimit) {
      this.settled = -1n
      return 'limit'
    }
    this.settled -= cost
    return 'ok'
  }
}
