/**
 * The reference's CEL cost limits (apiserver/pkg/apis/cel/config.go, and the CRD limits of
 * apiextensions-apiserver's validation.go) and cel-go's cancellation message.
 */

/** Cost units one evaluation may spend (roughly 0.1 s). */
export const PER_CALL_LIMIT = 1_000_000n
/** Cost units the rules of one custom resource, or one policy binding, may spend together. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000n
/** The same for the match conditions of one webhook or binding. */
export const RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 2_500_000n
/** The largest estimated cost of one expression. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000n
/** The largest estimated cost of all the rules of one CRD schema. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000n
/** The request size the estimates assume for unbounded lists, maps and strings. */
export const MAX_REQUEST_SIZE_BYTES = 3n * 1024n * 1024n

/** cel-go's EvalCancelledError for CostLimitExceeded. */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded'
