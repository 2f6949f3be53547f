/**
 * The token methods of branch authn-jwt from the server's configuration: the JWT issuers of
 * `--oidc-*` or `--authentication-config` and the `--authentication-token-webhook-*` webhook,
 * plus the anonymous section of the configuration file. Bad files throw
 * AuthenticationSetupError with the reference's message; the server does not start.
 */
import type { ServerConfig } from '../config.js'
import type { Logger } from '../log/logger.js'
import { type AnonymousSpec, AuthenticationConfigError } from '../../core/config-files/authentication-config.js'
import { audienceAgnostic } from './bearer-token.js'
import type { AuthenticationOptions } from './index.js'
import { JwtIssuers } from './jwt-issuers.js'
import { WebhookConfigError, WebhookTokenAuthenticator } from './webhook.js'

export class AuthenticationSetupError extends Error {
  override name = 'AuthenticationSetupError'
}

export interface JwtAndWebhook {
  /** The JWT issuers; undefined when none is configured. */
  jwt?: JwtIssuers
  webhook?: WebhookTokenAuthenticator
  /** The file's anonymous section; when present it replaces --anonymous-auth. */
  anonymous?: AnonymousSpec
  /** Discovery of every issuer and the watch of the configuration file. */
  start(): Promise<void>
  stop(): void
}

export interface JwtAndWebhookContext {
  /** The server's API audiences: a webhook review answered without audiences is for these. */
  implicitAudiences: readonly string[]
  /** The service-account issuers, which a JWT issuer may not reuse. */
  serviceAccountIssuers: readonly string[]
}

export function buildJwtAndWebhook(config: ServerConfig, context: JwtAndWebhookContext, log: Logger): JwtAndWebhook {
  const { implicitAudiences } = context
  let jwt: JwtIssuers | undefined
  try {
    if (config.authenticationConfig || config.oidc) {
      jwt = new JwtIssuers({
        ...(config.authenticationConfig ? { authenticationConfigFile: config.authenticationConfig } : { oidc: config.oidc }),
        serviceAccountIssuers: context.serviceAccountIssuers,
        log: { error: (m) => log.error(m), v: (level, m) => log.v(level, m), info: (m) => log.info(m) },
      })
    }
  } catch (err) {
    if (err instanceof AuthenticationConfigError) throw new AuthenticationSetupError(err.message)
    throw err
  }
  const anonymous = jwt?.anonymous
  if (anonymous && config.anonymousAuthGiven) {
    throw new AuthenticationSetupError('anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file')
  }
  let webhook: WebhookTokenAuthenticator | undefined
  if (config.authenticationTokenWebhookConfigFile) {
    try {
      webhook = new WebhookTokenAuthenticator({
        configFile: config.authenticationTokenWebhookConfigFile,
        version: config.authenticationTokenWebhookVersion,
        cacheTtlMs: config.authenticationTokenWebhookCacheTtlMs,
        implicitAudiences,
        log: { error: (m) => log.error(m) },
      })
    } catch (err) {
      if (err instanceof WebhookConfigError) throw new AuthenticationSetupError(err.message)
      throw err
    }
  }
  return {
    ...(jwt ? { jwt } : {}),
    ...(webhook ? { webhook } : {}),
    ...(anonymous ? { anonymous } : {}),
    start: async () => {
      await jwt?.start()
    },
    stop: () => jwt?.stop(),
  }
}

/**
 * The plug-in points of the union (index.ts): the issuers as one token method after bootstrap
 * tokens, audience-agnostic as the reference wraps them; the webhook last, asked about the
 * request's audiences; and the file's anonymous section in place of --anonymous-auth.
 */
export function jwtAndWebhookOptions(methods: JwtAndWebhook, anonymousFlag: boolean): Pick<AuthenticationOptions, 'jwt' | 'webhook' | 'anonymous' | 'anonymousConditions'> {
  const jwt = methods.jwt
  const webhook = methods.webhook
  return {
    ...(jwt ? { jwt: [audienceAgnostic({ name: 'jwt', authenticateToken: (token) => jwt.authenticateToken(token) })] } : {}),
    ...(webhook ? { webhook: { name: 'webhook', authenticateToken: (token, ctx) => webhook.authenticateToken(token, ctx.audiences) } } : {}),
    anonymous: methods.anonymous ? methods.anonymous.enabled : anonymousFlag,
    ...(methods.anonymous && methods.anonymous.conditions.length > 0 ? { anonymousConditions: methods.anonymous.conditions } : {}),
  }
}
