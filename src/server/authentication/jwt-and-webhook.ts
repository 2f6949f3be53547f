/**
 * The token methods of branch authn-jwt from the server's configuration: the JWT issuers of
 * `--oidc-*` or `--authentication-config` and the `--authentication-token-webhook-*` webhook,
 * plus the anonymous section of the configuration file. Bad files throw
 * AuthenticationSetupError with the reference's message; the server does not start.
 */
import type { ServerConfig } from '../config.js'
import type { Authenticator } from '../filters/authentication.js'
import type { Logger } from '../log/logger.js'
import { type AnonymousSpec, AuthenticationConfigError } from './authentication-config.js'
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

export function buildJwtAndWebhook(config: ServerConfig, implicitAudiences: readonly string[], log: Logger): JwtAndWebhook {
  let jwt: JwtIssuers | undefined
  try {
    if (config.authenticationConfig || config.oidc) {
      jwt = new JwtIssuers({
        ...(config.authenticationConfig ? { authenticationConfigFile: config.authenticationConfig } : { oidc: config.oidc }),
        serviceAccountIssuers: config.serviceAccountIssuers,
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
 * Until the union authenticator of branch authn-core lands: the bearer token offered to the
 * JWT issuers, then the webhook; a token one of them refuses, or none recognises, is a 401.
 */
export function bearerTokenMethods(methods: JwtAndWebhook, log: Logger): Authenticator[] {
  if (!methods.jwt && !methods.webhook) return []
  return [
    {
      async authenticate(req) {
        const header = req.headers.authorization
        const parts = (typeof header === 'string' ? header.trim() : '').split(' ')
        if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer' || parts[1] === '') return null
        const token = parts[1]!
        let answer
        try {
          answer = (await methods.jwt?.authenticateToken(token)) ?? (await methods.webhook?.authenticateToken(token))
        } catch (err) {
          log.v(2, `Unable to authenticate the request: ${(err as Error).message}`)
          throw err
        }
        if (!answer) {
          log.v(2, 'Unable to authenticate the request: invalid bearer token')
          throw new Error('invalid bearer token')
        }
        const groups = answer.user.groups.includes('system:authenticated') ? answer.user.groups : [...answer.user.groups, 'system:authenticated']
        return { ...answer.user, groups }
      },
    },
  ]
}
