/**
 * The authorizer chain of the server, built from `--authorization-mode` in its order (or from
 * the structured configuration), always behind the privileged-group authorizer that lets
 * `system:masters` do everything, as the reference builds it.
 */
import { AbacAuthorizer, AbacPolicyError } from './abac.js'
import { PRIVILEGED_GROUP, alwaysAllow, alwaysDeny, privilegedGroups } from './always.js'
import type { Authorizer, RuleResolver } from './authorizer.js'
import { type NodeGraph, NodeAuthorizer } from './node.js'
import type { PolicySource } from './rbac-policy.js'
import { RbacAuthorizer } from './rbac.js'
import { UnionAuthorizer, UnionRuleResolver } from './union.js'
import { nodeRules } from './rbac-bootstrap-policy.js'

export class AuthorizationConfigError extends Error {}

const webhookNotBuilt: Authorizer & RuleResolver = {
  authorize: () => ({ decision: 'noOpinion' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: true, errors: [] }),
}

export interface ChainOptions {
  modes: readonly string[]
  /** --authorization-policy-file (ABAC). */
  policyFile?: string
  /** The RBAC objects (the PolicyCache the server keeps current). */
  rbacPolicy?: PolicySource
  /** The pods graph the Node mode reads. */
  nodeGraph?: NodeGraph
  /** Modes built elsewhere (Webhook), by name. */
  extra?: Readonly<Record<string, Authorizer & RuleResolver>>
}

export interface AuthorizerChain {
  authorizer: Authorizer
  ruleResolver: RuleResolver
  rbac?: RbacAuthorizer
}

export function buildChain(options: ChainOptions): AuthorizerChain {
  const authorizers: Authorizer[] = [privilegedGroups(PRIVILEGED_GROUP)]
  const resolvers: RuleResolver[] = []
  let rbac: RbacAuthorizer | undefined
  for (const mode of options.modes) {
    let built: Authorizer & RuleResolver
    switch (mode) {
      case 'AlwaysAllow':
        built = alwaysAllow
        break
      case 'AlwaysDeny':
        built = alwaysDeny
        break
      case 'ABAC':
        if (!options.policyFile) throw new AuthorizationConfigError("authorization-mode ABAC's authorization policy file not passed")
        try {
          built = AbacAuthorizer.fromFile(options.policyFile)
        } catch (err) {
          if (err instanceof AbacPolicyError) throw new AuthorizationConfigError(err.message)
          throw err
        }
        break
      case 'Node':
        if (!options.nodeGraph) throw new AuthorizationConfigError('authorizer type Node is not allowed if it was not enabled at initial server startup')
        built = new NodeAuthorizer(options.nodeGraph, nodeRules())
        break
      case 'RBAC':
        if (!options.rbacPolicy) throw new AuthorizationConfigError('authorizer type RBAC is not allowed if it was not enabled at initial server startup')
        built = rbac = new RbacAuthorizer(options.rbacPolicy)
        break
      case 'Webhook':
        // Not built yet: named in the start-up warning; without an opinion it only ever narrows.
        built = options.extra?.Webhook ?? webhookNotBuilt
        break
      default: {
        const other = options.extra?.[mode]
        if (!other) throw new AuthorizationConfigError(`unknown authorization mode ${mode} specified`)
        built = other
      }
    }
    authorizers.push(built)
    resolvers.push(built)
  }
  return { authorizer: new UnionAuthorizer(authorizers), ruleResolver: new UnionRuleResolver(resolvers), ...(rbac ? { rbac } : {}) }
}
