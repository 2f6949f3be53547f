/**
 * Authentication as the configuration asks for it: the service-account issuers and keys
 * (generated in --cert-dir without flags, on disk before the server listens), the JWT issuers
 * and the token webhook, the token file, client certificates, the front proxy and bootstrap
 * tokens, built into one union. Bad configuration is a StartupError with the message the
 * server has always printed.
 */
import type { ServerConfig } from '../config.js'
import { StartupError } from '../lifecycle/startup-error.js'
import type { Logger } from '../log/logger.js'
import { bootstrapTokenAuthenticator } from './bootstrap-token.js'
import { type Authentication, AuthenticationConfigError, buildAuthentication } from './index.js'
import { AuthenticationSetupError, type JwtAndWebhook, buildJwtAndWebhook, jwtAndWebhookOptions } from './jwt-and-webhook.js'
import { authenticationOptions } from './options.js'
import { DEFAULT_ISSUER, type ObjectReader, serviceAccountAuthenticator } from './service-account.js'
import { type ServiceAccountKeys, loadServiceAccountKeys } from './service-account-keys.js'
import type { ServiceAccountTokenEvents } from './service-account-metrics.js'
import { loadCaBundle } from './x509.js'

export interface AuthenticationParts {
  /** Where the service-account keys are generated without flags. */
  readonly certDir: string
  /** The serving CA's certificate when the server generated it: client certificates it signed are accepted. */
  readonly servingCaFile?: string
  /** Reads service accounts, secrets, pods and nodes once the API is installed. */
  readonly objects: ObjectReader
  /** The metrics of service-account tokens, made after authentication; tokens are only checked once requests are served. */
  readonly tokenEvents: () => ServiceAccountTokenEvents | undefined
}

export interface AuthenticationFromConfig {
  readonly authentication: Authentication
  /** The JWT issuers' discovery and the configuration file's watch (stopped at shutdown). */
  readonly tokenMethods: JwtAndWebhook
  readonly serviceAccountKeys: ServiceAccountKeys
  /** `--service-account-issuer`, or the default one. */
  readonly serviceAccountIssuers: string[]
  /** `--api-audiences`, or the first service-account issuer. */
  readonly apiAudiences: string[]
}

/** Builds authentication and starts what it follows (issuer discovery, the CA files); its warnings are logged. */
export async function authenticationFromConfig(config: ServerConfig, parts: AuthenticationParts, log: Logger): Promise<AuthenticationFromConfig> {
  const serviceAccountIssuers = config.serviceAccountIssuers.length > 0 ? config.serviceAccountIssuers : [DEFAULT_ISSUER]
  const apiAudiences = config.apiAudiences.length > 0 ? config.apiAudiences : serviceAccountIssuers.slice(0, 1)

  // The JWT issuers (--oidc-*, --authentication-config) and the token webhook; bad files stop
  // the server. The first discovery of each issuer is tried before serving, as the reference's
  // synchronous initialisation does when it can; an unreachable issuer is retried later.
  let tokenMethods: JwtAndWebhook
  try {
    tokenMethods = buildJwtAndWebhook(config, { implicitAudiences: apiAudiences, serviceAccountIssuers }, log)
  } catch (err) {
    if (err instanceof AuthenticationSetupError) throw new StartupError(err.message)
    throw err
  }
  await tokenMethods.start()

  let authentication: Authentication
  let serviceAccountKeys: ServiceAccountKeys
  try {
    serviceAccountKeys = await loadServiceAccountKeys({
      ...(config.serviceAccountSigningKeyFile ? { signingKeyFile: config.serviceAccountSigningKeyFile } : {}),
      keyFiles: config.serviceAccountKeyFiles,
      certDir: parts.certDir,
    })
    const options = authenticationOptions(config, parts.servingCaFile ? [loadCaBundle(parts.servingCaFile, '--cert-dir')] : [], log)
    const { objects, tokenEvents } = parts
    authentication = await buildAuthentication({
      ...options,
      ...jwtAndWebhookOptions(tokenMethods, options.anonymous),
      apiAudiences,
      serviceAccountTokens: [
        serviceAccountAuthenticator({
          issuers: serviceAccountIssuers,
          keys: serviceAccountKeys.verification,
          lookup: config.serviceAccountLookup,
          objects,
          events: { legacyToken: () => tokenEvents()?.legacyToken(), staleToken: () => tokenEvents()?.staleToken(), validToken: () => tokenEvents()?.validToken() },
        }),
      ],
      ...(config.enableBootstrapTokenAuth ? { bootstrapTokens: bootstrapTokenAuthenticator({ objects, log: (message) => log.v(3, message) }) } : {}),
    })
  } catch (err) {
    if (err instanceof AuthenticationConfigError) throw new StartupError(err.message)
    throw err
  }
  for (const warning of authentication.warnings) log.warning(warning)
  for (const file of authentication.caFiles) file.start()
  return { authentication, tokenMethods, serviceAccountKeys, serviceAccountIssuers, apiAudiences }
}
