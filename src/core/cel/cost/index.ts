/** CEL cost: cel-go's static estimate and a runtime cost, with the reference's limits. */
export { type Range as CostRange, MAX_UINT64, addU64, mulU64 } from './estimate.js'
export { type CelDeclType, type CelDeclKind, declAt } from './decl.js'
export { type CostSizes, declaredSizes, declaredSizesByVariable, activationSizes, actualSize } from './sizes.js'
export { CostWalk, type AstNode } from './walk.js'
export { runtimeCoster } from './runtime.js'
export { costTracker, CostLimitExceeded, type TrackedResult } from './tracker.js'
export * from './limits.js'
export { CelCostBudget, type BudgetedResult, type CostCharge, OUT_OF_BUDGET } from './budget.js'
