/** The handlers of what authentication serves through the resource API, by `group/version/resource[/subresource]`. */
import type { VirtualHandler } from '../api/index.js'
import type { Authentication } from './index.js'
import { selfSubjectReviewHandler, tokenReviewHandler } from './reviews.js'

export function authenticationApi(authentication: Authentication, extra: ReadonlyArray<[string, VirtualHandler]> = []): Map<string, VirtualHandler> {
  return new Map<string, VirtualHandler>([
    ['authentication.k8s.io/v1/selfsubjectreviews', selfSubjectReviewHandler],
    ['authentication.k8s.io/v1/tokenreviews', tokenReviewHandler(authentication.union, authentication.audiences)],
    ...extra,
  ])
}
