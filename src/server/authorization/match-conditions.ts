/**
 * CEL match conditions of a webhook authorizer at request time (the reference's CELMatcher):
 * every one must be true for the webhook to be asked. They are compiled with the configuration
 * (src/core/config-files/authorization-match-conditions.ts), which `flags validate` shares.
 */
import type { MatchCondition } from '../../core/config-files/authorization-match-conditions.js'
import type { Attributes } from './authorizer.js'

export { type MatchCondition, compileMatchCondition } from '../../core/config-files/authorization-match-conditions.js'

/** The `request` value: every field present, even empty ones, as the reference converts the spec. */
export function requestVariable(a: Attributes): Record<string, unknown> {
  const request: Record<string, unknown> = {
    user: a.user.name,
    groups: a.user.groups ?? [],
    uid: a.user.uid ?? '',
    extra: a.user.extra ?? {},
  }
  if (a.resourceRequest) {
    request.resourceAttributes = {
      namespace: a.namespace,
      verb: a.verb,
      group: a.apiGroup,
      version: a.apiVersion,
      resource: a.resource,
      subresource: a.subresource,
      name: a.name,
    }
  } else {
    request.nonResourceAttributes = { verb: a.verb, path: a.path }
  }
  return request
}

/**
 * The reference's semantics: the first condition that is false makes the webhook not apply
 * (false); errors of the others are collected, and when none is false any error is reported
 * (the caller applies the failure policy); all true is a match.
 */
export function evaluateMatchConditions(conditions: readonly MatchCondition[], a: Attributes): { matches: boolean; error?: string } {
  if (conditions.length === 0) return { matches: true }
  const activation = { request: requestVariable(a) }
  const errors: string[] = []
  for (const condition of conditions) {
    let result: unknown
    try {
      result = condition.program.evaluate(activation)
    } catch (err) {
      errors.push(`cel evaluation error: expression '${condition.expression}' resulted in error: ${(err as Error).message}`)
      continue
    }
    if (typeof result !== 'boolean') {
      errors.push(`cel evaluation error: expression '${condition.expression}' eval result type should be bool but got ${typeof result}`)
      continue
    }
    if (!result) return { matches: false }
  }
  if (errors.length > 0) return { matches: false, error: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` }
  return { matches: true }
}
