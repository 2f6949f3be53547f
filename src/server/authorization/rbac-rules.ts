/** RBAC's rule matching: the core's (src/core/rbac/rules.ts), shared with `auth can-i`. */
export * from '../../core/rbac/rules.js'
