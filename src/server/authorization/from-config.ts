/**
 * The authorizer chain as the configuration asks for it: `--authorization-config` (a file
 * re-read while the server runs) or `--authorization-mode` with the webhook's flags. Bad
 * configuration is a StartupError with the message the server has always printed.
 */
import fs from 'node:fs'
import type { ServerConfig } from '../config.js'
import { StartupError } from '../lifecycle/startup-error.js'
import type { Logger } from '../log/logger.js'
import { AuthorizationConfigFileError, ReloadingAuthorizer, chainFromConfig, parseAuthorizationConfig } from './config.js'
import { AuthorizationConfigError, type AuthorizerChain, buildChain } from './index.js'
import type { NodeGraph } from './node.js'
import type { PolicyCache } from './rbac-policy.js'
import { RbacAuthorizer } from './rbac.js'
import { WebhookAuthorizer, WebhookConfigError } from './webhook.js'

export interface AuthorizationParts {
  /** RBAC answers from the bootstrap policy until its informers have read the store. */
  readonly rbacPolicy: PolicyCache
  readonly nodeGraph: NodeGraph
}

export interface Authorization {
  readonly chain: AuthorizerChain
  /** The `--authorization-config` file's watcher, started; undefined with `--authorization-mode`. */
  readonly reloading?: ReloadingAuthorizer
  /** The rbac kinds refuse escalation whatever the mode, judged on the RBAC objects, as the reference's. */
  readonly ruleResolver: RbacAuthorizer
}

/** Builds (and starts the reloading of) the authorizer chain the configuration names. */
export function authorizationFromConfig(config: ServerConfig, parts: AuthorizationParts, log: Logger): Authorization {
  const { rbacPolicy, nodeGraph } = parts
  let chain: AuthorizerChain
  let reloading: ReloadingAuthorizer | undefined
  try {
    if (config.authorizationConfig) {
      const file = config.authorizationConfig
      const build = (text: string) => chainFromConfig(parseAuthorizationConfig(text), { policyFile: config.authorizationPolicyFile, rbacPolicy, nodeGraph })
      let text: string
      try {
        text = fs.readFileSync(file, 'utf8')
      } catch (err) {
        throw new AuthorizationConfigError(`--authorization-config: cannot read ${file}: ${(err as Error).message}`)
      }
      const initial = build(text)
      reloading = new ReloadingAuthorizer(file, initial, build, { info: (m) => log.info(m), error: (m) => log.error(m) })
      chain = { authorizer: reloading, ruleResolver: reloading, ...(initial.rbac ? { rbac: initial.rbac } : {}) }
    } else {
      const webhook = config.authorizationWebhookConfigFile
        ? new WebhookAuthorizer({
            kubeconfigFile: config.authorizationWebhookConfigFile,
            version: config.authorizationWebhookVersion,
            authorizedTtlMs: config.authorizationWebhookAuthorizedTtlMs,
            unauthorizedTtlMs: config.authorizationWebhookUnauthorizedTtlMs,
          })
        : undefined
      chain = buildChain({ modes: config.authorizationModes, policyFile: config.authorizationPolicyFile, rbacPolicy, nodeGraph, ...(webhook ? { extra: { Webhook: webhook } } : {}) })
    }
  } catch (err) {
    if (err instanceof AuthorizationConfigError || err instanceof WebhookConfigError) throw new StartupError(err.message)
    if (err instanceof AuthorizationConfigFileError) throw new StartupError(`invalid authorization config: ${err.message}`)
    throw err
  }
  reloading?.start()
  return { chain, ...(reloading ? { reloading } : {}), ruleResolver: chain.rbac ?? new RbacAuthorizer(rbacPolicy) }
}
