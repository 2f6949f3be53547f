/**
 * The reference's authorizer library (k8s.io/apiserver/pkg/cel/library/authz.go) for admission
 * expressions: `authorizer.group(g).resource(r).namespace(n).name(x).check(verb).allowed()`,
 * `authorizer.path(p).check(verb)`, `authorizer.serviceAccount(ns, name)` (the same questions
 * asked for that service account) and `authorizer.requestResource` (a resource check of the
 * request being admitted). A resource check asks about any version (`*`), as the reference does.
 *
 * The values are made per evaluation over the server's authorizer (`authorizerValue`); an
 * authorizer that answers asynchronously makes the expression's evaluation a Promise. Where no
 * authorizer is given (type-checking only) the functions say the library is not available.
 */
import type { Environment } from '@marcbachmann/cel-js'
import { EvaluationError } from '@marcbachmann/cel-js'

/** Who asks, as the authorizer reads it. */
export interface CelUser {
  name: string
  uid?: string
  groups: string[]
  extra?: Record<string, string[]>
}

/** One question to the authorizer (the reference's AttributesRecord, flattened). */
export interface CelAuthorizationQuestion {
  user: CelUser
  verb: string
  resourceRequest: boolean
  path: string
  namespace: string
  apiGroup: string
  apiVersion: string
  resource: string
  subresource: string
  name: string
}

export interface CelAuthorizationAnswer {
  decision: 'allow' | 'deny' | 'noOpinion'
  reason?: string
  error?: string
}

/** The server's authorizer, as the library asks it. */
export interface CelAuthorizerBackend {
  authorize(question: CelAuthorizationQuestion): CelAuthorizationAnswer | Promise<CelAuthorizationAnswer>
}

export class CelAuthorizer {
  /**
   * `authorizer.requestResource`: declared as its own variable, but the engine selects it as a
   * field of `authorizer`, so the one evaluation's authorizer carries it.
   */
  requestResource?: CelResourceCheck

  constructor(
    readonly backend: CelAuthorizerBackend | undefined,
    readonly user: CelUser,
  ) {}
}

export class CelPathCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly path: string,
  ) {}
}

export class CelGroupCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
  ) {}
}

export class CelResourceCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
  ) {}

  with(change: Partial<Pick<CelResourceCheck, 'subresource' | 'namespace' | 'name'>>): CelResourceCheck {
    const { subresource, namespace, name } = { subresource: this.subresource, namespace: this.namespace, name: this.name, ...change }
    return new CelResourceCheck(this.authorizer, this.group, this.resource, subresource, namespace, name)
  }
}

export class CelDecision {
  constructor(readonly answer: CelAuthorizationAnswer) {}
}

export const AUTHORIZER_TYPE = 'kubernetes.authorization.Authorizer'
export const RESOURCE_CHECK_TYPE = 'kubernetes.authorization.ResourceCheck'

/** The `authorizer` variable of one evaluation: questions asked as `user`. */
export function authorizerValue(backend: CelAuthorizerBackend, user: CelUser): CelAuthorizer {
  return new CelAuthorizer(backend, user)
}

/** The `authorizer.requestResource` variable: a check of the request's own resource (the reference's NewResourceAuthorizerVal). */
export function requestResourceValue(
  authorizer: CelAuthorizer,
  request: { group: string; resource: string; subresource: string; namespace: string; name: string },
): CelResourceCheck {
  const check = new CelResourceCheck(authorizer, request.group, request.resource, request.subresource, request.namespace, request.name)
  authorizer.requestResource = check
  return check
}

/** The reference's serviceaccount.UserInfo(namespace, name, ""). */
function serviceAccountUser(namespace: string, name: string): CelUser {
  return { name: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] }
}

function ask(authorizer: CelAuthorizer, question: Omit<CelAuthorizationQuestion, 'user'>): CelDecision | Promise<CelDecision> {
  if (!authorizer.backend) throw new EvaluationError('the authorizer library is not available in this context')
  const answer = authorizer.backend.authorize({ ...question, user: authorizer.user })
  return answer instanceof Promise ? answer.then((a) => new CelDecision(a)) : new CelDecision(answer)
}

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
  env.registerFunction(`${A}.path(string): ${P}`, (a: CelAuthorizer, path: string) => new CelPathCheck(a, path))
  env.registerFunction(`${A}.group(string): ${G}`, (a: CelAuthorizer, group: string) => new CelGroupCheck(a, group))
  env.registerFunction(`${A}.serviceAccount(string, string): ${A}`, (a: CelAuthorizer, namespace: string, name: string) => new CelAuthorizer(a.backend, serviceAccountUser(namespace, name)))
  env.registerFunction(`${G}.resource(string): ${R}`, (g: CelGroupCheck, resource: string) => new CelResourceCheck(g.authorizer, g.group, resource))
  env.registerFunction(`${R}.subresource(string): ${R}`, (r: CelResourceCheck, subresource: string) => r.with({ subresource }))
  env.registerFunction(`${R}.namespace(string): ${R}`, (r: CelResourceCheck, namespace: string) => r.with({ namespace }))
  env.registerFunction(`${R}.name(string): ${R}`, (r: CelResourceCheck, name: string) => r.with({ name }))
  env.registerFunction(`${R}.check(string): ${D}`, (r: CelResourceCheck, verb: string) =>
    ask(r.authorizer, { verb, resourceRequest: true, path: '', apiGroup: r.group, apiVersion: '*', resource: r.resource, subresource: r.subresource, namespace: r.namespace, name: r.name }),
  )
  env.registerFunction(`${P}.check(string): ${D}`, (p: CelPathCheck, verb: string) =>
    ask(p.authorizer, { verb, resourceRequest: false, path: p.path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' }),
  )
  env.registerFunction(`${D}.allowed(): bool`, (d: CelDecision) => d.answer.decision === 'allow')
  env.registerFunction(`${D}.reason(): string`, (d: CelDecision) => d.answer.reason ?? '')
  env.registerFunction(`${D}.errored(): bool`, (d: CelDecision) => d.answer.error !== undefined && d.answer.error !== '')
  env.registerFunction(`${D}.error(): string`, (d: CelDecision) => d.answer.error ?? '')
}
