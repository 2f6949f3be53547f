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

/** A mode's authorizer from the chain's options; throws AuthorizationConfigError when it cannot be built. */
type ModeFactory = (options: ChainOptions) => Authorizer & RuleResolver

function abac(options: ChainOptions): Authorizer & RuleResolver {
  if (!options.policyFile) throw new AuthorizationConfigError("authorization-mode ABAC's authorization policy file not passed")
  try {
    return AbacAuthorizer.fromFile(options.policyFile)
  } catch (err) {
    if (err instanceof AbacPolicyError) throw new AuthorizationConfigError(err.message)
    throw err
  }
}

/**
 * The authorizer of each `--authorization-mode`, one line per mode (the reference's
 * pkg/kubeapiserver/authorizer/config.go): an authorizer is one file in this room and its
 * line here. Modes built outside this room (Webhook, with its kubeconfig) come in `extra`.
 */
export const AUTHORIZATION_MODES: Readonly<Record<string, ModeFactory>> = {
  AlwaysAllow: () => alwaysAllow,
  AlwaysDeny: () => alwaysDeny,
  ABAC: abac,
  Node: (options) => {
    if (!options.nodeGraph) throw new AuthorizationConfigError('authorizer type Node is not allowed if it was not enabled at initial server startup')
    return new NodeAuthorizer(options.nodeGraph, nodeRules())
  },
  RBAC: (options) => {
    if (!options.rbacPolicy) throw new AuthorizationConfigError('authorizer type RBAC is not allowed if it was not enabled at initial server startup')
    return new RbacAuthorizer(options.rbacPolicy)
  },
  // Not built here: without an opinion it only ever narrows.
  Webhook: (options) => options.extra?.Webhook ?? webhookNotBuilt,
}

export function buildChain(options: ChainOptions): AuthorizerChain {
  const authorizers: Authorizer[] = [privilegedGroups(PRIVILEGED_GROUP)]
  const resolvers: RuleResolver[] = []
  let rbac: RbacAuthorizer | undefined
  for (const mode of options.modes) {
    const factory = Object.hasOwn(AUTHORIZATION_MODES, mode) ? AUTHORIZATION_MODES[mode] : undefined
    const built = factory ? factory(options) : options.extra?.[mode]
    if (!built) throw new AuthorizationConfigError(`unknown authorization mode ${mode} specified`)
    if (built instanceof RbacAuthorizer) rbac = built
    authorizers.push(built)
    resolvers.push(built)
  }
  return { authorizer: new UnionAuthorizer(authorizers), ruleResolver: new UnionRuleResolver(resolvers), ...(rbac ? { rbac } : {}) }
}
