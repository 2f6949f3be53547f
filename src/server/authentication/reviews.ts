/**
 * The authentication.k8s.io/v1 API (reference: pkg/registry/authentication): create-only,
 * nothing stored.
 * - SelfSubjectReview: who the request is (`kubectl auth whoami`), after impersonation.
 * - TokenReview: whether a token is valid, run through the server's own authenticator as a
 *   request carrying nothing but that bearer token, for the audiences the review asks about
 *   (default: the server's).
 */
import type { Request, UserInfo } from '../http/types.js'
import type { VirtualHandler } from '../api/index.js'
import { decodeRequestBody, negotiateOutput, readBody, writeObject } from '../api/negotiation.js'
import { isPlainObject, nowTimestamp } from '../api/registry/object.js'
import { ApiError, errors } from '../api/status-errors.js'
import { failureStatus } from '../http/status.js'
import { addWarnings } from '../http/warnings.js'
import type { UnionAuthenticator } from './union.js'

const GROUP_VERSION = 'authentication.k8s.io/v1'

/** authentication.k8s.io UserInfo: username, uid, groups, extra (empty ones left out). */
export function userInfoOf(user: UserInfo): Record<string, unknown> {
  return {
    username: user.name,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length > 0 ? { groups: user.groups } : {}),
    ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  }
}

async function readReview(req: Request, kind: string): Promise<Record<string, unknown>> {
  const body = await decodeRequestBody(req, await readBody(req), { kind })
  if (!isPlainObject(body)) throw errors.badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`)
  if ((body.kind !== undefined && body.kind !== kind) || (body.apiVersion !== undefined && body.apiVersion !== GROUP_VERSION)) {
    throw errors.badRequest(`${String(body.kind ?? '')} in version ${JSON.stringify(String(body.apiVersion ?? '').split('/').pop())} cannot be handled as a ${kind}: no kind "${String(body.kind ?? '')}" is registered for version "${String(body.apiVersion ?? '')}"`)
  }
  return body
}

export const selfSubjectReviewHandler: VirtualHandler = async ({ req, res, ctx }) => {
  await readReview(req, 'SelfSubjectReview')
  if (!ctx.user) throw new ApiError(failureStatus(500, 'InternalError', 'Internal error occurred: no user info present in request'))
  const review = { kind: 'SelfSubjectReview', apiVersion: GROUP_VERSION, metadata: { creationTimestamp: nowTimestamp() }, status: { userInfo: userInfoOf(ctx.user) } }
  await writeObject(res, 201, review, negotiateOutput(req.headers.accept, { table: false }))
}

export function tokenReviewHandler(union: UnionAuthenticator, apiAudiences: readonly string[]): VirtualHandler {
  return async ({ req, res }) => {
    const review = await readReview(req, 'TokenReview')
    const spec = isPlainObject(review.spec) ? review.spec : {}
    const token = typeof spec.token === 'string' ? spec.token : ''
    if (token === '') throw errors.badRequest('token is required for TokenReview in authentication')
    const asked = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : []
    const audiences = asked.length > 0 ? asked : [...apiAudiences]
    // A request that carries nothing but the token.
    const fake = { headers: { authorization: `Bearer ${token}` }, rawHeaders: ['Authorization', `Bearer ${token}`] } as unknown as Request
    // The reference authenticates it with the review request's context: its warnings are the review's.
    const result = await union.authenticate(fake, { audiences, path: '', warn: (text) => addWarnings(res, [text]) })
    const status: Record<string, unknown> = { authenticated: result.ok }
    if (!result.ok && result.errors.length > 0) status.error = result.errors.length === 1 ? result.errors[0]!.message : `[${result.errors.map((e) => e.message).join(', ')}]`
    if (result.ok) {
      const found = result.response.audiences ?? []
      if (audiences.length > 0 && !audiences.some((a) => found.includes(a))) {
        throw new ApiError(failureStatus(500, 'InternalError', 'Internal error occurred: error validating audiences'))
      }
      status.user = userInfoOf(result.response.user)
      if (found.length > 0) status.audiences = found
    }
    const answer = { kind: 'TokenReview', apiVersion: GROUP_VERSION, metadata: isPlainObject(review.metadata) ? review.metadata : {}, spec, status }
    await writeObject(res, 201, answer, negotiateOutput(req.headers.accept, { table: false }))
  }
}
