/**
 * authentication.k8s.io/v1: TokenReview and SelfSubjectReview, create-only and never stored
 * (their handlers are in src/server/authentication/reviews.ts).
 */
import type { Strategy } from '../registry/strategy.js'
import { dataStrategy } from './data-strategy.js'

function review(kind: string, resource: string): Strategy {
  return {
    ...dataStrategy({ group: 'authentication.k8s.io', version: 'v1', kind, resource, singular: resource.replace(/s$/, ''), namespaced: false, shortNames: [], verbs: ['create'], subresources: [] }),
    virtual: true,
  }
}

export const selfsubjectreviews = review('SelfSubjectReview', 'selfsubjectreviews')
export const tokenreviews = review('TokenReview', 'tokenreviews')
