/**
 * The anonymous authenticator (reference: request/anonymous): `system:anonymous` in
 * `system:unauthenticated`, for requests no other method recognised. With conditions (the
 * `anonymous.conditions` of --authentication-config), only requests to those paths are
 * anonymous; others are refused with 401.
 */
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER, type AuthenticationResponse, type Authenticator } from './authenticator.js'

export interface AnonymousCondition {
  /** An exact request path, e.g. `/livez`. */
  path: string
}

export function anonymousAuthenticator(conditions: readonly AnonymousCondition[] = []): Authenticator {
  const paths = new Set(conditions.map((c) => c.path))
  const response: AuthenticationResponse = { user: { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] } }
  return {
    name: 'anonymous',
    authenticate: (_req, ctx) => (paths.size === 0 || paths.has(ctx.path) ? { user: { ...response.user, groups: [...response.user.groups] } } : null),
  }
}
