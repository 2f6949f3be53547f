/**
 * The two shapes of authenticator the reference composes (authenticator.Request and
 * authenticator.Token), and what they answer. Each method lives in its own file of this
 * directory; `index.ts` assembles them in the reference's order.
 *
 * An authenticator answers in one of three ways, as the reference's (response, ok, err):
 * - a response: it recognised the credentials;
 * - null: the request carries nothing it reads (the next one is asked);
 * - it throws: it read credentials and refuses them. The union keeps asking the others, but
 *   a request refused this way is never anonymous.
 */
import type { Request, UserInfo } from '../http/types.js'

export interface AuthenticationResponse {
  user: UserInfo
  /** The audiences the credential was found valid for (service-account tokens); empty: audience-agnostic. */
  audiences?: string[]
}

/** What the request-level authenticators may read besides the request itself. */
export interface AuthenticationContext {
  /** The audiences the server accepts (--api-audiences); a TokenReview may ask for others. */
  audiences: readonly string[]
  /** The request path, for the anonymous authenticator's conditions. */
  path: string
  /**
   * A `Warning` header for the response, whatever the outcome (the reference's
   * warning.AddWarning on the request's context): odd credentials the client should hear of.
   */
  warn?(text: string): void
}

export interface Authenticator {
  readonly name: string
  authenticate(req: Request, ctx: AuthenticationContext): Promise<AuthenticationResponse | null> | AuthenticationResponse | null
}

export interface TokenAuthenticator {
  readonly name: string
  authenticateToken(token: string, ctx: AuthenticationContext): Promise<AuthenticationResponse | null> | AuthenticationResponse | null
}

/** Refused credentials; the message is logged (at -v=2), never sent to the client. */
export class AuthenticationError extends Error {
  override name = 'AuthenticationError'
}

/** The well-known users and groups (k8s.io/apiserver/pkg/authentication/user). */
export const ANONYMOUS_USER = 'system:anonymous'
export const ALL_AUTHENTICATED = 'system:authenticated'
export const ALL_UNAUTHENTICATED = 'system:unauthenticated'
/** The extra key naming the credential a user presented (a certificate's hash, a token's jti). */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id'

/** A credential source that cannot be used (unreadable or malformed file): the server does not start. */
export class AuthenticationConfigError extends Error {
  override name = 'AuthenticationConfigError'
}

/** The 1-based line at which `index` falls in `text`. */
export function lineAt(text: string, index: number): number {
  let line = 1
  for (let i = 0; i < index && i < text.length; i++) if (text.charCodeAt(i) === 10) line++
  return line
}

/**
 * A copy of a cached user that later links of the chain (the group adder, impersonation) may
 * change without changing the cache: its lists are copied, its strings shared. (structuredClone
 * did the same for ~13 µs a request, more than the rest of a cached authentication.)
 */
export function copyOfUser(user: UserInfo): UserInfo {
  const copy: UserInfo = { ...user, groups: [...user.groups] }
  if (user.extra !== undefined) {
    const extra: Record<string, string[]> = {}
    for (const key of Object.keys(user.extra)) extra[key] = [...user.extra[key]!]
    copy.extra = extra
  }
  return copy
}

