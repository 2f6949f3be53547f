/**
 * The chain of authorizers (the reference's union authorizer): asked in order, the first that
 * allows or denies decides; one without an opinion passes the question on. When none has an
 * opinion the request is not allowed, and the reasons collected on the way explain why.
 */
import type { Attributes, Authorizer, Decision, ResourceRuleInfo, NonResourceRuleInfo, RuleResolver, Rules } from './authorizer.js'
import type { UserInfo } from '../http/types.js'
import { type MaybePromise, isPromise } from '../http/maybe-promise.js'
import { aggregate } from '../../core/util/aggregate-errors.js'

export { aggregate }

export class UnionAuthorizer implements Authorizer {
  constructor(private readonly authorizers: readonly Authorizer[]) {}

  /** Synchronous while every authorizer asked answers at once (RBAC, Node, ABAC do); a webhook makes it wait. */
  authorize(attributes: Attributes): MaybePromise<Decision> {
    return this.from(0, attributes, [], [])
  }

  private from(start: number, attributes: Attributes, reasons: string[], errors: string[]): MaybePromise<Decision> {
    for (let i = start; i < this.authorizers.length; i++) {
      const result = this.authorizers[i]!.authorize(attributes)
      if (isPromise(result)) return result.then((r) => this.settle(r, i, attributes, reasons, errors))
      if (result.error) errors.push(result.error)
      if (result.decision !== 'noOpinion') return result
      if (result.reason) reasons.push(result.reason)
    }
    return {
      decision: 'noOpinion',
      ...(reasons.length ? { reason: reasons.join('\n') } : {}),
      ...(errors.length ? { error: aggregate(errors) } : {}),
    }
  }

  private settle(result: Decision, i: number, attributes: Attributes, reasons: string[], errors: string[]): MaybePromise<Decision> {
    if (result.error) errors.push(result.error)
    if (result.decision !== 'noOpinion') return result
    if (result.reason) reasons.push(result.reason)
    return this.from(i + 1, attributes, reasons, errors)
  }
}

/** Every resolver's rules together; incomplete if any is. */
export class UnionRuleResolver implements RuleResolver {
  constructor(private readonly resolvers: readonly RuleResolver[]) {}

  async rulesFor(user: UserInfo, namespace: string): Promise<Rules> {
    const resourceRules: ResourceRuleInfo[] = []
    const nonResourceRules: NonResourceRuleInfo[] = []
    const errors: string[] = []
    let incomplete = false
    for (const resolver of this.resolvers) {
      const rules = await resolver.rulesFor(user, namespace)
      resourceRules.push(...rules.resourceRules)
      nonResourceRules.push(...rules.nonResourceRules)
      errors.push(...rules.errors)
      incomplete ||= rules.incomplete
    }
    return { resourceRules, nonResourceRules, incomplete, errors }
  }
}

