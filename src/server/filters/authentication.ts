/**
 * Who is asking. Authenticators run in order; the first that recognises the request wins.
 * A request that presents credentials no authenticator accepts is refused with 401; one that
 * presents none is anonymous when anonymous access is on (--anonymous-auth).
 */
import { jsonResponse } from '../http/respond.js'
import { failureStatus } from '../http/status.js'
import type { Filter, Request, UserInfo } from '../http/types.js'

export interface Authenticator {
  /** A user, null when the request carries nothing this authenticator reads; throws when it reads bad credentials. */
  authenticate(req: Request): Promise<UserInfo | null> | UserInfo | null
}

export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] }

export function withAuthentication(authenticators: readonly Authenticator[], anonymous: boolean): Filter {
  return (next) => async (req, res, ctx) => {
    for (const authenticator of authenticators) {
      let user: UserInfo | null
      try {
        user = await authenticator.authenticate(req)
      } catch {
        user = null
        jsonResponse(res, 401, failureStatus(401, 'Unauthorized', 'Unauthorized'))
        return
      }
      if (user) {
        ctx.user = user
        return next(req, res, ctx)
      }
    }
    if (!anonymous) {
      jsonResponse(res, 401, failureStatus(401, 'Unauthorized', 'Unauthorized'))
      return
    }
    ctx.user = ANONYMOUS
    return next(req, res, ctx)
  }
}
