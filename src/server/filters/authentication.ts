/**
 * Who is asking: the link of the chain that runs the union authenticator
 * (src/server/authentication) and puts the user in the request context. A request the union
 * does not accept gets the reference's 401 Status ("Unauthorized"); the reason goes to the log.
 * On success the Authorization header is removed, as the reference does, so nothing later
 * in the server is tempted to use the credential.
 */
import type { AuthenticationResult, UnionAuthenticator } from '../authentication/union.js'
import { isPromise } from '../http/maybe-promise.js'
import { Http2ServerResponse } from 'node:http2'
import { closeAfterResponse } from '../http/respond.js'
import { writeErrorNegotiated } from '../api/negotiation.js'
import { ApiError } from '../api/status-errors.js'
import { failureStatus } from '../http/status.js'
import { addWarnings } from '../http/warnings.js'
import type { Filter, Handler, Request, RequestContext, Response, UserInfo } from '../http/types.js'
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER, type AuthenticationContext } from '../authentication/authenticator.js'

/** The path only when an authenticator reads it (the anonymous conditions): most requests never parse their URL. */
class RequestAuthenticationContext implements AuthenticationContext {
  constructor(
    readonly audiences: readonly string[],
    private readonly request: RequestContext,
    private readonly response: Response,
  ) {}

  get path(): string {
    return this.request.url.pathname
  }

  warn(text: string): void {
    addWarnings(this.response, [text])
  }
}

export interface AuthenticationFilterOptions {
  union: UnionAuthenticator
  /** --api-audiences (or the service-account issuer): the audiences a credential must be valid for. */
  audiences: readonly string[]
  /** Logs why a request was refused (an error, as the reference logs it; the client only sees "Unauthorized"). */
  log?: (message: string) => void
  /** Answers a refused request (the reference's failedHandler): the 401, audited when audit is on. */
  failed?: Handler
}

/**
 * The reference's Unauthorized handler: the 401 Status in the negotiated type. An HTTP/2
 * connection of a client nobody knows serves this one request (UnauthenticatedHTTP2DOSMitigation,
 * on by default: Go's server ends it with a GOAWAY), as does one of an anonymous request.
 */
export function unauthorized(req: Request, res: Response): Promise<void> {
  if (res instanceof Http2ServerResponse) closeAfterResponse(res)
  return writeErrorNegotiated(req, res, new ApiError(failureStatus(401, 'Unauthorized', 'Unauthorized')))
}

/** The reference's isAnonymousUser: the anonymous user, or anyone in system:unauthenticated. */
function isAnonymous(user: UserInfo): boolean {
  return user.name === ANONYMOUS_USER || user.groups.includes(ALL_UNAUTHENTICATED)
}

export function withAuthentication(options: AuthenticationFilterOptions): Filter {
  const { union, audiences, log, failed = unauthorized } = options
  const decide = (next: Handler, req: Request, res: Response, ctx: RequestContext, result: AuthenticationResult): void | Promise<void> => {
    if (!result.ok) {
      if (result.errors.length > 0) log?.(`Unable to authenticate the request: ${result.errors.map((e) => e.message).join(', ')}`)
      return failed(req, res, ctx)
    }
    delete req.headers.authorization
    const { user } = result.response
    if (res instanceof Http2ServerResponse && isAnonymous(user)) closeAfterResponse(res)
    ctx.user = user
    return next(req, res, ctx)
  }
  return (next) => (req, res, ctx) => {
    // Methods that answer at once (a client certificate, no credentials) do not make the request wait (nor make a closure).
    const result = union.authenticate(req, new RequestAuthenticationContext(audiences, ctx, res))
    return isPromise(result) ? result.then((r) => decide(next, req, res, ctx, r)) : decide(next, req, res, ctx, result)
  }
}
