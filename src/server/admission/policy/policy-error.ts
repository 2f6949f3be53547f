/**
 * A policy or binding that cannot be applied as configured (no match constraints, a paramKind
 * nothing serves, a missing param under `parameterNotFoundAction: Deny`): the dispatchers report
 * it as `failed to configure policy: ...` or `failed to configure binding: ...`, refused or
 * ignored by the policy's failurePolicy.
 */
export class PolicyConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PolicyConfigError'
  }
}
