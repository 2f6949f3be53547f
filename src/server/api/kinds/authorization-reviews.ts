/**
 * The authorization.k8s.io/v1 review kinds: create-only questions answered by the authorizer
 * (src/server/authorization/reviews.ts), never stored. Served here so that discovery lists
 * them as the reference does.
 */
import type { ResourceInfo } from '../generated/resources.js'
import type { Strategy } from '../registry/strategy.js'
import { dataStrategy } from './data-strategy.js'

export const AUTHORIZATION_GROUP = 'authorization.k8s.io'

const review = (kind: string, resource: string, namespaced: boolean): ResourceInfo => ({
  group: AUTHORIZATION_GROUP,
  version: 'v1',
  kind,
  resource,
  singular: resource.replace(/s$/, ''),
  namespaced,
  shortNames: [],
  verbs: ['create'],
  subresources: [],
})

export const AUTHORIZATION_REVIEW_KINDS: readonly Strategy[] = [
  review('LocalSubjectAccessReview', 'localsubjectaccessreviews', true),
  review('SelfSubjectAccessReview', 'selfsubjectaccessreviews', false),
  review('SelfSubjectRulesReview', 'selfsubjectrulesreviews', false),
  review('SubjectAccessReview', 'subjectaccessreviews', false),
].map((info) => ({ ...dataStrategy(info), virtual: true }))
