/**
 * The authorizer chain of the structured authorization configuration (`--authorization-config`),
 * reloaded when the file changes: an invalid new file is logged and the running chain stays.
 * The file's parser is the core's (src/core/config-files/authorization-config.ts), shared with
 * `flags validate`.
 */
import fs from 'node:fs'
import type { ConfiguredAuthorizer } from '../../core/config-files/authorization-config.js'
import type { Attributes, Authorizer, Decision, RuleResolver, Rules } from './authorizer.js'
import type { UserInfo } from '../http/types.js'
import { type AuthorizerChain, type ChainOptions, buildChain } from './index.js'
import { WebhookAuthorizer } from './webhook.js'

export {
  AuthorizationConfigFileError,
  CONFIG_API_VERSIONS,
  type ConfiguredAuthorizer,
  type WebhookSettings,
  parseAuthorizationConfig,
} from '../../core/config-files/authorization-config.js'

/** The chain a configuration describes. */
export function chainFromConfig(authorizers: readonly ConfiguredAuthorizer[], base: Omit<ChainOptions, 'modes' | 'extra'>): AuthorizerChain {
  // Each webhook is its own mode in the chain, under a unique key.
  const extra: Record<string, Authorizer & RuleResolver> = {}
  const modes = authorizers.map((a) => {
    if (a.type !== 'Webhook' || !a.webhook) return a.type
    const key = `Webhook:${a.name}`
    extra[key] = new WebhookAuthorizer({
      kubeconfigFile: a.webhook.kubeConfigFile,
      version: a.webhook.subjectAccessReviewVersion,
      authorizedTtlMs: a.webhook.authorizedTtlMs,
      unauthorizedTtlMs: a.webhook.unauthorizedTtlMs,
      timeoutMs: a.webhook.timeoutMs,
      decisionOnError: a.webhook.failurePolicy === 'Deny' ? 'deny' : 'noOpinion',
      matchConditions: a.webhook.matchConditions,
    })
    return key
  })
  return buildChain({ ...base, modes, extra })
}

/** The running chain, replaced as a whole when the file changes. */
export class ReloadingAuthorizer implements Authorizer, RuleResolver {
  private last: string
  private watching = false

  constructor(
    private readonly file: string,
    private current: AuthorizerChain,
    private readonly build: (text: string) => AuthorizerChain,
    private readonly log: { info(m: string): void; error(m: string): void },
  ) {
    this.last = fs.readFileSync(file, 'utf8')
  }

  authorize(a: Attributes): Decision | Promise<Decision> {
    return this.current.authorizer.authorize(a)
  }

  rulesFor(user: UserInfo, namespace: string): Rules | Promise<Rules> {
    return this.current.ruleResolver.rulesFor(user, namespace)
  }

  /** Reads the file again; a valid changed configuration replaces the chain. */
  check(): void {
    let text: string
    try {
      text = fs.readFileSync(this.file, 'utf8')
    } catch (err) {
      this.log.error(`reloading authorization config: ${(err as Error).message}`)
      return
    }
    if (text === this.last) return
    this.last = text
    try {
      this.current = this.build(text)
      this.log.info(`reloaded authorization config ${this.file}`)
    } catch (err) {
      this.log.error(`reloading authorization config: ${(err as Error).message}`)
    }
  }

  start(intervalMs = 1000): void {
    if (this.watching) return
    this.watching = true
    fs.watchFile(this.file, { interval: intervalMs, persistent: false }, () => this.check())
  }

  stop(): void {
    if (this.watching) fs.unwatchFile(this.file)
    this.watching = false
  }
}
