/**
 * Who is asking: the link of the chain that runs the union authenticator
 * (src/server/authentication) and puts the user in the request context. A request the union
 * does not accept gets the reference's 401 Status ("Unauthorized"); the reason goes to the log.
 * On success the Authorization header is removed, as the reference does, so nothing later
 * in the server is tempted to use the credential.
 */
import type { AuthenticationResult, UnionAuthenticator } from '../authentication/union.js'
import { isPromise } from '../http/maybe-promise.js'
import { jsonResponse } from '../http/respond.js'
import { failureStatus } from '../http/status.js'
import type { Filter, Handler, Request, RequestContext, Response } from '../http/types.js'
import type { AuthenticationContext } from '../authentication/authenticator.js'

/** The path only when an authenticator reads it (the anonymous conditions): most requests never parse their URL. */
class RequestAuthenticationContext implements AuthenticationContext {
  constructor(
    readonly audiences: readonly string[],
    private readonly request: RequestContext,
  ) {}

  get path(): string {
    return this.request.url.pathname
  }
}

export interface AuthenticationFilterOptions {
  union: UnionAuthenticator
  /** --api-audiences (or the service-account issuer): the audiences a credential must be valid for. */
  audiences: readonly string[]
  /** Logs why a request was refused (an error, as the reference logs it; the client only sees "Unauthorized"). */
  log?: (message: string) => void
}

export function withAuthentication(options: AuthenticationFilterOptions): Filter {
  const { union, audiences, log } = options
  const decide = (next: Handler, req: Request, res: Response, ctx: RequestContext, result: AuthenticationResult): void | Promise<void> => {
    if (!result.ok) {
      if (result.errors.length > 0) log?.(`Unable to authenticate the request: ${result.errors.map((e) => e.message).join(', ')}`)
      jsonResponse(res, 401, failureStatus(401, 'Unauthorized', 'Unauthorized'))
      return
    }
    delete req.headers.authorization
    ctx.user = result.response.user
    return next(req, res, ctx)
  }
  return (next) => (req, res, ctx) => {
    // Methods that answer at once (a client certificate, no credentials) do not make the request wait (nor make a closure).
    const result = union.authenticate(req, new RequestAuthenticationContext(audiences, ctx))
    return isPromise(result) ? result.then((r) => decide(next, req, res, ctx, r)) : decide(next, req, res, ctx, result)
  }
}
