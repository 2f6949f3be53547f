/**
 * CEL match conditions of a webhook authorizer (the reference's authorization/cel compiler and
 * CELMatcher): each expression sees the question as `request`, a SubjectAccessReviewSpec
 * (authorization.k8s.io/v1 field names), and must evaluate to bool. They are compiled when the
 * configuration is loaded, so a bad expression stops the server (or a reload) with the
 * reference's field error; at request time every one must be true for the webhook to be asked.
 */
import { type CelProgram, CelCompileError, celEnvironment, compileCel } from '../cel/index.js'

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
