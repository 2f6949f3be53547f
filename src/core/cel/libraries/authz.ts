/**
 * The declarations of the reference's authorizer library (k8s.io/apiserver/pkg/cel/library/
 * authz.go) for admission expressions: `authorizer.group(g).resource(r).check(verb).allowed()`,
 * `authorizer.path(p)`, `authorizer.serviceAccount(ns, name)`, `authorizer.requestResource`.
 * They let policies and match conditions type-check as the reference does when they are
 * stored; this server evaluates no admission expression against an authorizer yet, so calling
 * them at evaluation time is an error that says so.
 */
import type { Environment } from '@marcbachmann/cel-js'
import { EvaluationError } from '@marcbachmann/cel-js'

export class CelAuthorizer {}
export class CelPathCheck {}
export class CelGroupCheck {}
export class CelResourceCheck {}
export class CelDecision {}

const unavailable = () => {
  throw new EvaluationError('the authorizer library is not available in this context')
}

export const AUTHORIZER_TYPE = 'kubernetes.authorization.Authorizer'
export const RESOURCE_CHECK_TYPE = 'kubernetes.authorization.ResourceCheck'

export function registerAuthzLibrary(env: Environment): void {
  const A = AUTHORIZER_TYPE
  const P = 'kubernetes.authorization.PathCheck'
  const G = 'kubernetes.authorization.GroupCheck'
  const R = RESOURCE_CHECK_TYPE
  const D = 'kubernetes.authorization.Decision'
  env.registerType(A, CelAuthorizer as never)
  env.registerType(P, CelPathCheck as never)
  env.registerType(G, CelGroupCheck as never)
  env.registerType(R, CelResourceCheck as never)
  env.registerType(D, CelDecision as never)
  env.registerFunction(`${A}.path(string): ${P}`, unavailable)
  env.registerFunction(`${A}.group(string): ${G}`, unavailable)
  env.registerFunction(`${A}.serviceAccount(string, string): ${A}`, unavailable)
  env.registerFunction(`${G}.resource(string): ${R}`, unavailable)
  env.registerFunction(`${R}.subresource(string): ${R}`, unavailable)
  env.registerFunction(`${R}.namespace(string): ${R}`, unavailable)
  env.registerFunction(`${R}.name(string): ${R}`, unavailable)
  env.registerFunction(`${R}.check(string): ${D}`, unavailable)
  env.registerFunction(`${P}.check(string): ${D}`, unavailable)
  env.registerFunction(`${D}.allowed(): bool`, unavailable)
  env.registerFunction(`${D}.reason(): string`, unavailable)
  env.registerFunction(`${D}.errored(): bool`, unavailable)
  env.registerFunction(`${D}.error(): string`, unavailable)
}
