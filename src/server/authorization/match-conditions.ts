/**
 * CEL match conditions of a webhook authorizer (the reference's authorization/cel compiler and
 * CELMatcher): each expression sees the question as `request`, a SubjectAccessReviewSpec
 * (authorization.k8s.io/v1 field names), and must evaluate to bool. They are compiled when the
 * configuration is loaded, so a bad expression stops the server (or a reload) with the
 * reference's field error; at request time every one must be true for the webhook to be asked.
 */
import { type CelProgram, CelCompileError, celEnvironment, compileCel } from '../../core/cel/index.js'
import type { Attributes } from './authorizer.js'

/** The `request` variable's type, as the reference's kubernetes.SubjectAccessReviewSpec. */
const REQUEST_SCHEMA = {
  user: 'string',
  groups: 'list<string>',
  uid: 'string',
  extra: 'map<string, list<string>>',
  resourceAttributes: { namespace: 'string', verb: 'string', group: 'string', version: 'string', resource: 'string', subresource: 'string', name: 'string' },
  nonResourceAttributes: { path: 'string', verb: 'string' },
}

let environment: ReturnType<typeof celEnvironment> | undefined

export interface MatchCondition {
  expression: string
  program: CelProgram
}

/**
 * Compiles one expression; returns the reference's field-error detail when it does not compile
 * (`compilation failed: ...`) or is not a bool (`must evaluate to bool but got string`).
 */
export function compileMatchCondition(expression: string): MatchCondition | { error: string } {
  environment ??= celEnvironment({ request: { schema: REQUEST_SCHEMA } })
  try {
    return { expression, program: compileCel(environment, expression, ['bool']) }
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err
    if (err.kind === 'type') return { error: `must evaluate to bool but got ${err.actualType ?? 'dyn'}` }
    return { error: err.message }
  }
}

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
