/**
 * The union authenticator (reference: request/union and request/group, assembled as in
 * pkg/kubeapiserver/authenticator/config.go): each method in order until one recognises the
 * request; every recognised user gets `system:authenticated`; then, only when no method
 * refused the credentials presented, the anonymous authenticator. A bad certificate or token
 * is a 401, never an anonymous request.
 */
import type { Request, UserInfo } from '../http/types.js'
import {
  ALL_AUTHENTICATED,
  ALL_UNAUTHENTICATED,
  ANONYMOUS_USER,
  type AuthenticationContext,
  type AuthenticationResponse,
  type Authenticator,
} from './authenticator.js'

export type AuthenticationResult = { ok: true; response: AuthenticationResponse } | { ok: false; errors: Error[] }

/** The reference's AuthenticatedGroupAdder: anonymous and already-marked users are left alone. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === ANONYMOUS_USER) return user
  if (user.groups.some((g) => g === ALL_AUTHENTICATED || g === ALL_UNAUTHENTICATED)) return user
  return { ...user, groups: [...user.groups, ALL_AUTHENTICATED] }
}

export class UnionAuthenticator {
  constructor(
    /** The methods, in the reference's order (see index.ts). */
    readonly authenticators: readonly Authenticator[],
    /** Asked last, and only when no method refused the request's credentials. */
    readonly anonymous?: Authenticator,
  ) {}

  async authenticate(req: Request, ctx: AuthenticationContext): Promise<AuthenticationResult> {
    const errors: Error[] = []
    for (const authenticator of this.authenticators) {
      try {
        const response = await authenticator.authenticate(req, ctx)
        if (response) return { ok: true, response: { ...response, user: withAuthenticatedGroup(response.user) } }
      } catch (err) {
        errors.push(err as Error)
      }
    }
    if (errors.length > 0) return { ok: false, errors }
    const anonymous = this.anonymous ? await this.anonymous.authenticate(req, ctx) : null
    return anonymous ? { ok: true, response: anonymous } : { ok: false, errors }
  }
}
