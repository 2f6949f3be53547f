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
import { formatGoDuration } from '../../core/options/go-syntax.js'
import { EXTENDED_EXPIRATION_SECONDS } from './service-account.js'
import { type ServiceAccountKeys, externalServiceAccountKeys, loadServiceAccountKeys } from './service-account-keys.js'
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
  /** --service-account-max-token-expiration, or the external signer's maximum when not given (0: none). */
  readonly maxTokenExpirationSeconds: number
  /** The extended lifetime of --service-account-extend-token-expiration: a year, or less if the external signer's maximum is. */
  readonly maxExtendedExpirationSeconds: number
}

/**
 * The token lifetimes with an external signer, as the reference's options completion: its
 * maximum is the default, and a longer --service-account-max-token-expiration is an error.
 */
function tokenLifetimes(config: ServerConfig, keys: ServiceAccountKeys): { max: number; extended: number } {
  const given = Math.floor(config.serviceAccountMaxTokenExpirationMs / 1000)
  const external = keys.external?.maxTokenExpirationSeconds
  if (external === undefined) return { max: given, extended: EXTENDED_EXPIRATION_SECONDS }
  if (given > external) {
    throw new StartupError(
      `service-account-max-token-expiration cannot be set longer than the token expiration supported by service-account-signing-endpoint: ${formatGoDuration(given * 1000)} > ${formatGoDuration(external * 1000)}`,
    )
  }
  return { max: given === 0 ? external : given, extended: Math.min(external, EXTENDED_EXPIRATION_SECONDS) }
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
    serviceAccountKeys = config.serviceAccountSigningEndpoint
      ? await externalServiceAccountKeys(config.serviceAccountSigningEndpoint, (message) => log.error(message))
      : await loadServiceAccountKeys({
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
  let lifetimes
  try {
    lifetimes = tokenLifetimes(config, serviceAccountKeys)
  } catch (err) {
    serviceAccountKeys.external?.close()
    throw err
  }
  for (const warning of authentication.warnings) log.warning(warning)
  for (const file of authentication.caFiles) file.start()
  return {
    authentication,
    tokenMethods,
    serviceAccountKeys,
    serviceAccountIssuers,
    apiAudiences,
    maxTokenExpirationSeconds: lifetimes.max,
    maxExtendedExpirationSeconds: lifetimes.extended,
  }
}
