/**
 * The trivial modes: AlwaysAllow, AlwaysDeny, and the privileged-group authorizer the
 * reference puts first in every chain so that `system:masters` can never be locked out.
 */
import type { Authorizer, RuleResolver, Rules } from './authorizer.js'

export const alwaysAllow: Authorizer & RuleResolver = {
  authorize: () => ({ decision: 'allow' }),
  rulesFor: (): Rules => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
    errors: [],
  }),
}

/** Like the reference, AlwaysDeny has no opinion (a later mode may still allow) and says why. */
export const alwaysDeny: Authorizer & RuleResolver = {
  authorize: () => ({ decision: 'noOpinion', reason: 'Everything is forbidden.' }),
  rulesFor: (): Rules => ({ resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] }),
}

/** The user group that is always allowed everything (user.SystemPrivilegedGroup). */
export const PRIVILEGED_GROUP = 'system:masters'

export function privilegedGroups(...groups: string[]): Authorizer {
  return {
    authorize: ({ user }) => (user.groups.some((g) => groups.includes(g)) ? { decision: 'allow' } : { decision: 'noOpinion' }),
  }
}
