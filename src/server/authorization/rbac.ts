/**
 * The RBAC mode (the reference's plugin/pkg/auth/authorizer/rbac): the authorizer is the core's
 * (src/core/rbac/authorizer.ts), shared with `auth can-i`, which answers from files the
 * questions this mode answers from the store.
 */
export { RbacAuthorizer, describeSource } from '../../core/rbac/authorizer.js'
