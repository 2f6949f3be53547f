/**
 * The resource API (/api, /apis, /openapi) installed on the mux with the virtual kinds the
 * other rooms serve (reviews, token requests), and the API as the parts built before it reach
 * it (authentication's object reads, the bootstrap writes, the post-start hooks).
 */
import { type ApiObjectReader, type InstalledApi, installApi } from '../api/index.js'
import { setAllowPrivileged } from '../api/kinds/capabilities.js'
import type { Registry } from '../api/registry/registry.js'
import { authenticationApi } from '../authentication/api.js'
import type { AuthenticationFromConfig } from '../authentication/from-config.js'
import { TokenIssuer, type ObjectReader } from '../authentication/service-account.js'
import { tokenRequestHandler } from '../authentication/token-request.js'
import type { AdmissionChain } from '../admission/chain.js'
import type { AggregatedApis } from '../api/aggregated-apis.js'
import type { Authorization } from '../authorization/from-config.js'
import { createAuthorizer } from '../authorization/authorizer.js'
import { escalationChecks } from '../authorization/rbac-escalation.js'
import { authorizationApi } from '../authorization/reviews.js'
import type { ServerConfig } from '../config.js'
import type { Mux } from '../http/mux.js'
import type { Logger } from '../log/logger.js'
import type { Store } from '../store/types.js'
import { nodeAgentApi } from '../nodeagent/index.js'

/** The installed API, for the parts built before it; reads before it is installed fail or find nothing. */
export class ApiAccess {
  private installed: InstalledApi | undefined

  set(api: InstalledApi): void {
    this.installed = api
  }

  /** The service-account authenticator's reads: they fail until the API is installed. */
  readonly objects: ObjectReader = (resource, namespace, name) => {
    if (!this.installed) return Promise.reject(new Error('the API is not installed yet'))
    return this.installed.readObject('', 'v1', resource, namespace, name)
  }

  /** One object, or undefined (also before the API is installed). */
  readonly read: ApiObjectReader = async (group, version, resource, namespace, name) => this.installed?.readObject(group, version, resource, namespace, name)

  /** The registry over the open store (the post-start hooks run once the API is installed). */
  registryFor(store: Store): Registry {
    if (!this.installed) throw new Error('the API is not installed yet')
    return this.installed.registryFor(store)
  }
}

export interface ServedApiParts {
  readonly config: ServerConfig
  readonly log: Logger
  readonly emulatedMinor: number
  readonly store: () => Store | undefined
  readonly authentication: AuthenticationFromConfig
  readonly authorization: Authorization
  /** The admission plugins every create goes through. */
  readonly admission: AdmissionChain
  /** The aggregation layer (src/server/aggregator/). */
  readonly aggregated?: AggregatedApis
}

/** Installs the resource API on the mux, with the reviews and the token requests as virtual kinds. */
export function installServedApi(mux: Mux, parts: ServedApiParts): InstalledApi {
  const { config, log, authorization } = parts
  const { authentication, serviceAccountIssuers, serviceAccountKeys, apiAudiences } = parts.authentication
  setAllowPrivileged(config.allowPrivileged)
  return installApi(mux, {
    store: parts.store,
    log: (level, message) => log.v(level, message),
    runtimeConfig: config.runtimeConfig,
    featureGates: config.featureGates,
    emulatedMinor: parts.emulatedMinor,
    emulation: { forwardCompatible: config.emulationForwardCompatible, runtimeConfigForwardCompatible: config.runtimeConfigEmulationForwardCompatible },
    storageMediaType: config.storageMediaType,
    ...(parts.aggregated ? { aggregated: parts.aggregated } : {}),
    virtualHandlers: new Map([
      ...authorizationApi(authorization.chain),
      ...authenticationApi(authentication, [
        [
          '/v1/serviceaccounts/token',
          tokenRequestHandler({
            issuer: new TokenIssuer(serviceAccountIssuers[0]!, serviceAccountKeys.external?.signer ?? serviceAccountKeys.signing!),
            apiAudiences,
            maxExpirationSeconds: parts.authentication.maxTokenExpirationSeconds,
            extendExpiration: config.serviceAccountExtendTokenExpiration,
            extendedExpirationSeconds: parts.authentication.maxExtendedExpirationSeconds,
          }),
        ],
      ]),
    ]),
    connectHandlers: new Map(
      nodeAgentApi({
        ...config.nodeAgent,
        ...(config.featureGates.get('AuthorizePodWebsocketUpgradeCreatePermission') !== false ? { upgradeCreateAuthorizer: authorization.chain.authorizer } : {}),
      }),
    ),
    options: {
      writeChecks: escalationChecks(authorization.chain.authorizer, () => authorization.ruleResolver),
      authorizeCreate: createAuthorizer(authorization.chain.authorizer),
      serviceClusterIPRange: config.serviceClusterIPRange,
      serviceNodePortRange: config.serviceNodePortRange,
      eventTtlSeconds: Math.ceil(config.eventTtlMs / 1000),
      minRequestTimeoutSeconds: config.minRequestTimeoutSeconds,
      watchCache: config.watchCache,
      watchCacheSizes: config.watchCacheSizes,
      garbageCollector: config.enableGarbageCollector,
      deleteCollectionWorkers: config.deleteCollectionWorkers,
      admission: parts.admission,
    },
  })
}
