/** ClusterRole aggregation's rule: the core's (src/core/rbac/aggregation.ts), shared with `auth can-i`. */
export { aggregatedRules } from '../../core/rbac/aggregation.js'
