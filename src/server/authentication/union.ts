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
import { type MaybePromise, isPromise, then } from '../http/maybe-promise.js'

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

  /**
   * Synchronous while every method asked answers at once (no credentials, a client
   * certificate): the request path then waits for nothing; a token method makes it wait.
   */
  authenticate(req: Request, ctx: AuthenticationContext): MaybePromise<AuthenticationResult> {
    return this.from(0, req, ctx, [])
  }

  private from(start: number, req: Request, ctx: AuthenticationContext, errors: Error[]): MaybePromise<AuthenticationResult> {
    for (let i = start; i < this.authenticators.length; i++) {
      let response: MaybePromise<AuthenticationResponse | null>
      try {
        response = this.authenticators[i]!.authenticate(req, ctx)
      } catch (err) {
        errors.push(err as Error)
        continue
      }
      if (isPromise(response)) {
        return response.then(
          (r) => (r ? recognised(r) : this.from(i + 1, req, ctx, errors)),
          (err: unknown) => {
            errors.push(err as Error)
            return this.from(i + 1, req, ctx, errors)
          },
        )
      }
      if (response) return recognised(response)
    }
    if (errors.length > 0) return { ok: false, errors }
    if (!this.anonymous) return { ok: false, errors }
    return then(this.anonymous.authenticate(req, ctx), (anonymous): AuthenticationResult => (anonymous ? { ok: true, response: anonymous } : { ok: false, errors }))
  }
}

function recognised(response: AuthenticationResponse): AuthenticationResult {
  return { ok: true, response: { ...response, user: withAuthenticatedGroup(response.user) } }
}
