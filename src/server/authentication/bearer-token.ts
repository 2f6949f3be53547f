/**
 * Bearer tokens (reference: request/bearertoken and token/union): the token of an
 * `Authorization: Bearer <token>` header is offered to each token method in order. A token
 * that none of them recognises is refused ("invalid bearer token"), so it is a 401 and never
 * an anonymous request. Without any token method the header is not read at all.
 */
import type { Request } from '../http/types.js'
import { type MaybePromise, isPromise, then } from '../http/maybe-promise.js'
import { AuthenticationError, type AuthenticationContext, type AuthenticationResponse, type Authenticator, type TokenAuthenticator } from './authenticator.js'

export const INVALID_BEARER_TOKEN = 'invalid bearer token'

/** The reference's warning for `Bearer  <token>`: the header is read as carrying no token. */
export const INVALID_TOKEN_WITH_SPACE_WARNING = 'the provided Authorization header contains extra space before the bearer token, and is ignored'

/** The token of the request's Authorization header, as the reference reads it; undefined when there is none. */
export function bearerToken(req: Request): string | undefined {
  return readBearer(req).token
}

/**
 * The header as request/bearertoken reads it: SplitN(auth, " ", 3), the token the second
 * field; an empty one (two spaces) is no token, and with something after it (`Bearer  x`)
 * the client hears why.
 */
function readBearer(req: Request): { token?: string; extraSpace?: boolean } {
  const header = req.headers.authorization
  const auth = (Array.isArray(header) ? header[0] : header)?.trim() ?? ''
  if (auth === '') return {}
  const parts = auth.split(' ')
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return {}
  const token = parts[1]!
  if (token === '') return { extraSpace: parts.length >= 3 }
  return { token }
}

/**
 * token/union: the first method that recognises the token wins; refusals are collected.
 * Synchronous while every method asked answers at once (the token file): a request with such
 * a token then waits for nothing; a method that answers with a promise makes the rest wait.
 * Throws (or rejects) with the refusal when no method recognises the token.
 */
export function authenticateToken(methods: readonly TokenAuthenticator[], token: string, ctx: AuthenticationContext): MaybePromise<AuthenticationResponse> {
  return tokenFrom(0, methods, token, ctx, [])
}

function tokenFrom(start: number, methods: readonly TokenAuthenticator[], token: string, ctx: AuthenticationContext, errors: Error[]): MaybePromise<AuthenticationResponse> {
  for (let i = start; i < methods.length; i++) {
    let response: MaybePromise<AuthenticationResponse | null>
    try {
      response = methods[i]!.authenticateToken(token, ctx)
    } catch (err) {
      errors.push(err as Error)
      continue
    }
    if (isPromise(response)) {
      return response.then(
        (r) => r ?? tokenFrom(i + 1, methods, token, ctx, errors),
        (err: unknown) => {
          errors.push(err as Error)
          return tokenFrom(i + 1, methods, token, ctx, errors)
        },
      )
    }
    if (response) return response
  }
  if (errors.length === 0) throw new AuthenticationError(INVALID_BEARER_TOKEN)
  throw new AuthenticationError(errors.length === 1 ? errors[0]!.message : `[${errors.map((e) => e.message).join(', ')}]`)
}

export function bearerTokenAuthenticator(methods: readonly TokenAuthenticator[]): Authenticator {
  return {
    name: 'bearer token',
    // Not async: a request without a token goes on without waiting.
    authenticate(req, ctx) {
      const { token, extraSpace } = readBearer(req)
      if (extraSpace) ctx.warn?.(INVALID_TOKEN_WITH_SPACE_WARNING)
      if (token === undefined) return null
      return authenticateToken(methods, token, ctx)
    },
  }
}

/**
 * Audience-agnostic methods (token file, bootstrap tokens) answer for whatever audiences the
 * request asks about, as the reference's WrapAudienceAgnosticToken does.
 */
export function audienceAgnostic(method: TokenAuthenticator): TokenAuthenticator {
  return {
    name: method.name,
    // Not async: a method that answers at once (the token file) keeps the request synchronous.
    authenticateToken(token, ctx) {
      // Object.assign, not `{ ...response, audiences }`: on this Node (V8 11.3) a spread followed by a
      // property the source lacks takes a slow path, ~1.5 µs per request against ~0.1 µs.
      return then(method.authenticateToken(token, ctx), (response) => (response ? Object.assign({}, response, { audiences: [...ctx.audiences] }) : null))
    },
  }
}
