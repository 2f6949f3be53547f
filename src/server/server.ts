/**
 * The API server process: TLS listener, filter chain, status endpoints, store, post-start
 * hooks and the termination sequence, assembled from the parts under src/server.
 */
import fs from 'node:fs'
import { dirname, resolve as resolvePath } from 'node:path'
import { hostname } from 'node:os'
import { createSecureServer, type Http2SecureServer } from 'node:http2'
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { authenticationInfo, builtInApiServices, servedGroupVersions, systemNamespaces, systemPriorityClasses, systemServiceAccounts } from './bootstrap/cluster.js'
import { kubernetesService, endpointAddress } from './bootstrap/kubernetes-service.js'
import { type BootstrapObject, ensureObjects } from './bootstrap/objects.js'
import { StorageCodec } from './api/registry/storage-codec.js'
import { bootstrapRbac } from './bootstrap/rbac.js'
import { RESOURCES as RBAC_RESOURCES, reconcileRbac } from './bootstrap/rbac-reconcile.js'
import type { ServerConfig } from './config.js'
import { withAuditId } from './filters/audit-id.js'
import { withAudit } from './filters/audit.js'
import { withAuthentication } from './filters/authentication.js'
import { withAuthorization } from './filters/authorization.js'
import { AuthorizationConfigError, type AuthorizerChain, buildChain } from './authorization/index.js'
import { AuthorizationConfigFileError, ReloadingAuthorizer, chainFromConfig, parseAuthorizationConfig } from './authorization/config.js'
import { authorizationApi } from './authorization/reviews.js'
import { WebhookAuthorizer, WebhookConfigError } from './authorization/webhook.js'
import { NodeGraph } from './authorization/node.js'
import { PolicyCache, RBAC_GROUP } from './authorization/rbac-policy.js'
import { ClusterRoleAggregator } from './authorization/rbac-aggregation.js'
import { escalationChecks } from './authorization/rbac-escalation.js'
import { RbacAuthorizer } from './authorization/rbac.js'
import type { KubeObject } from './api/registry/object.js'
import { type Authentication, AuthenticationConfigError, buildAuthentication } from './authentication/index.js'
import { type ServiceAccountTokenEvents, serviceAccountMetrics } from './authentication/service-account-metrics.js'
import { LegacyTokenController } from './authentication/legacy-token-controller.js'
import { AuthenticationSetupError, buildJwtAndWebhook, jwtAndWebhookOptions } from './authentication/jwt-and-webhook.js'
import { authenticationOptions } from './authentication/options.js'
import { loadCaBundle } from './authentication/x509.js'
import { authenticationApi } from './authentication/api.js'
import { bootstrapTokenAuthenticator } from './authentication/bootstrap-token.js'
import { DEFAULT_ISSUER, type ObjectReader, TokenIssuer, serviceAccountAuthenticator } from './authentication/service-account.js'
import { type ServiceAccountKeys, loadServiceAccountKeys } from './authentication/service-account-keys.js'
import { tokenRequestHandler } from './authentication/token-request.js'
import { defaultCertDir } from './tls/index.js'
import { withCacheControl } from './filters/cache-control.js'
import { withCors } from './filters/cors.js'
import { withProbabilisticGoaway } from './filters/goaway.js'
import { withHsts } from './filters/hsts.js'
import { withImpersonation } from './filters/impersonation.js'
import { withMaxInFlight } from './filters/max-in-flight.js'
import { withPanicRecovery } from './filters/panic-recovery.js'
import { withPriorityAndFairness } from './filters/priority-and-fairness.js'
import { type FlowObject, flowConfigurationCache } from './filters/flow-schemas.js'
import { configurationWatch } from './flowcontrol/configuration-watch.js'
import { flowControlConfiguration } from './bootstrap/flowcontrol.js'
import { FlowController } from './flowcontrol/controller.js'
import { DEBUG_PATHS, dumpPriorityLevels, dumpQueues, dumpRequests } from './flowcontrol/debug-dump.js'
import { registerFlowControlMetrics } from './flowcontrol/metrics.js'
import { danglingUpdates } from './flowcontrol/flow-schema-status.js'
import { withRequestDeadline } from './filters/request-deadline.js'
import { withRetryAfter } from './filters/retry-after.js'
import { withTimeout } from './filters/timeout.js'
import { withWaitGroup } from './filters/wait-group.js'
import { withWatchTermination } from './filters/watch-termination.js'
import { AUTOREGISTER_COMPLETION, ClientNotEstablishedError, type Health, NOT_ESTABLISHED, createHealth } from './health/index.js'
import { chain } from './http/chain.js'
import { Connections } from './http/connections.js'
import { SERVING_TIMEOUT_OPTIONS, applyServingTimeouts } from './http/timeouts.js'
import { parseHttp1FromStream } from './http/http1-reads.js'
import { ListenError, bindSecurePort, boundAddress, serveOn } from './http/listener.js'
import { Mux } from './http/mux.js'
import { decodeRequestPath } from './http/request-info.js'
import { IncomingContext } from './http/context.js'
import { isPromise } from './http/maybe-promise.js'
import { httpError } from './http/respond.js'
import type { Handler, Request, Response } from './http/types.js'
import { LifecycleSignals, WaitGroup } from './lifecycle/signals.js'
import { gracefulShutdown } from './lifecycle/shutdown.js'
import type { Logger } from './log/logger.js'
import { ServerMetrics, metricsHandler, withMetrics } from './paths/metrics.js'
import { installPprof } from './paths/pprof.js'
import { serveDebugSocket } from './paths/debug-socket.js'
import { installLogs } from './paths/logs.js'
import { OpenIDMetadataError, serviceAccountIssuerHandlers } from './paths/service-account-issuer.js'
import { type StoreConfig, defaultDataDir, openStore } from './store/index.js'
import type { NamedHealthCheck, Store } from './store/types.js'
import { StorageMetrics } from './storage-metrics.js'
import { TestFaults } from './test-faults.js'
import { prepareServing } from './tls/index.js'
import { adminClientCertMissing, ensureAdminClientCert } from './tls/admin-client.js'
import { generateKey } from './tls/generate.js'
import { urlHost, writeKubeconfigFile } from '../core/client/kubeconfig-writer.js'
import { versionHandler, versionInfo } from './version.js'
import { type ApiObjectReader, installApi } from './api/index.js'
import { KINDS } from './api/kinds/index.js'
import { setAllowPrivileged } from './api/kinds/capabilities.js'
import { enabledKinds, servedAtVersion } from './api/runtime-config.js'
import { defaultServiceCIDR, repairServiceIPs } from './controllers/service-ip-addresses.js'
import { whenReady } from './bootstrap/after-ready.js'
import { LeaseEndpointReconciler } from './controllers/endpoint-reconciler.js'
import { buildControllers } from './controllers/index.js'
import { ControllerManager } from './controllers/manager.js'
import { EncryptionConfigError } from './encryption/config.js'
import { EncryptingStore } from './encryption/encrypting-store.js'
import { ProviderConfig } from './encryption/provider-config.js'
import { storageGroups } from './encryption/storage-groups.js'

export interface ServerOptions {
  config: ServerConfig
  log: Logger
  /** Reported by /version. */
  productVersion: string
  emulatedMinor: number
  minCompatibilityMinor: number
}

export interface RunningServer {
  /** Where it listens. */
  address: AddressInfo
  /** The CA that signed the serving certificate, when the server generated it. */
  caCertPem?: string
  signals: LifecycleSignals
  /** Starts the termination sequence (as a first SIGTERM does); resolves when it is complete. */
  shutdown(): Promise<void>
}

class StartupError extends Error {}

/** The resources the server writes so far (the API issue replaces this with its registry). */
const BOOTSTRAP_RESOURCES: ReadonlyArray<[string, string]> = [
  ['namespaces', '/namespaces/'],
  ['clusterroles.rbac.authorization.k8s.io', '/clusterroles/'],
  ['clusterrolebindings.rbac.authorization.k8s.io', '/clusterrolebindings/'],
  ['priorityclasses.scheduling.k8s.io', '/priorityclasses/'],
  ['configmaps', '/configmaps/'],
  ['apiservices.apiregistration.k8s.io', '/apiregistration.k8s.io/apiservices/'],
]
export { StartupError }

/** A store that is opened after the server listens, so that probes can report it missing. */
class PendingStore {
  store: Store | undefined
  lastError = NOT_ESTABLISHED
  readonly ready: Promise<Store>
  private resolveReady!: (s: Store) => void

  constructor() {
    this.ready = new Promise((resolve) => (this.resolveReady = resolve))
  }

  set(store: Store): void {
    this.store = store
    this.resolveReady(store)
  }

  /** Probes forwarding to the store's own, failing with the last error until it is open. */
  probes(names: { health: string[]; ready: string[] }): { healthChecks(): NamedHealthCheck[]; readyChecks(): NamedHealthCheck[] } {
    const forward = (kind: 'healthChecks' | 'readyChecks', name: string, i: number): NamedHealthCheck => ({
      name,
      check: async (timeoutMs?: number) => {
        if (!this.store) throw new ClientNotEstablishedError(this.lastError)
        const check = this.store[kind]()[i]
        if (!check) throw new Error(`no probe ${name}`)
        await check.check(timeoutMs)
      },
    })
    return {
      healthChecks: () => names.health.map((n, i) => forward('healthChecks', n, i)),
      readyChecks: () => names.ready.map((n, i) => forward('readyChecks', n, i)),
    }
  }
}

function storeConfig(config: ServerConfig, log: Logger): StoreConfig {
  return {
    ...(config.dataDir ? { dataDir: config.dataDir } : {}),
    servers: config.storeServers,
    prefix: config.storePrefix,
    ...(config.storeCaFile ? { caFile: config.storeCaFile } : {}),
    ...(config.storeCertFile ? { certFile: config.storeCertFile } : {}),
    ...(config.storeKeyFile ? { keyFile: config.storeKeyFile } : {}),
    compactionIntervalMs: config.storeCompactionIntervalMs,
    healthcheckTimeoutMs: config.storeHealthcheckTimeoutMs,
    readycheckTimeoutMs: config.storeReadycheckTimeoutMs,
    initializationTimeoutMs: config.storageInitializationTimeoutMs,
    overrides: config.storeServersOverrides,
    leaseReuseDurationSeconds: config.leaseReuseDurationSeconds,
    onBackgroundError: (err) => log.warning(`store background work failed: ${(err as Error).message}`),
  }
}

/** Distinct override server sets, in order: each gets a `store-override-<i>` check. */
function overrideSetCount(overrides: readonly string[]): number {
  return new Set(overrides.map((o) => o.split('#')[1] ?? '')).size
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { config, log } = options
  const signals = new LifecycleSignals()
  const inFlight = new WaitGroup()
  const watches = new WaitGroup()
  const faults = TestFaults.fromEnvironment()

  if (config.permitPortSharing) {
    throw new StartupError('--permit-port-sharing is not supported here: Node.js 20 cannot set SO_REUSEPORT on a listening socket')
  }

  let encryption: ProviderConfig | undefined
  if (config.encryptionProviderConfig) {
    try {
      encryption = new ProviderConfig(config.encryptionProviderConfig, config.encryptionProviderConfigAutomaticReload, log)
    } catch (err) {
      if (err instanceof EncryptionConfigError) throw new StartupError(err.message)
      throw err
    }
  }
  const encrypting = (store: Store): Store => {
    if (!encryption) return store
    const provider = encryption
    return new EncryptingStore(store, { prefix: config.storePrefix, config: () => provider.current(), storageGroupOf: storageGroups(KINDS) })
  }

  // RBAC answers from the bootstrap policy until its informers have read the store.
  const rbacPolicy = PolicyCache.withFallback(bootstrapRbac().map((b) => b.object as KubeObject))
  const nodeGraph = new NodeGraph()
  let legacyTokens: LegacyTokenController | undefined
  let authorization: AuthorizerChain
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
      authorization = { authorizer: reloading, ruleResolver: reloading, ...(initial.rbac ? { rbac: initial.rbac } : {}) }
    } else {
      const webhook = config.authorizationWebhookConfigFile
        ? new WebhookAuthorizer({
            kubeconfigFile: config.authorizationWebhookConfigFile,
            version: config.authorizationWebhookVersion,
            authorizedTtlMs: config.authorizationWebhookAuthorizedTtlMs,
            unauthorizedTtlMs: config.authorizationWebhookUnauthorizedTtlMs,
          })
        : undefined
      authorization = buildChain({ modes: config.authorizationModes, policyFile: config.authorizationPolicyFile, rbacPolicy, nodeGraph, ...(webhook ? { extra: { Webhook: webhook } } : {}) })
    }
  } catch (err) {
    if (err instanceof AuthorizationConfigError || err instanceof WebhookConfigError) throw new StartupError(err.message)
    if (err instanceof AuthorizationConfigFileError) throw new StartupError(`invalid authorization config: ${err.message}`)
    throw err
  }
  reloading?.start()

  // The rbac kinds refuse escalation whatever the mode, judged on the RBAC objects, as the reference's.
  const ruleResolver = authorization.rbac ?? new RbacAuthorizer(rbacPolicy)

  // Bind first: a port in use is reported before certificates are generated or files written
  // (or the embedded store's data directory created).
  const host = config.bindAddress === '' ? '::' : config.bindAddress
  let bound: Awaited<ReturnType<typeof bindSecurePort>>
  try {
    bound = await bindSecurePort(host, config.securePort)
  } catch (err) {
    if (err instanceof ListenError) throw new StartupError(err.message)
    throw err
  }
  const address = boundAddress(bound)

  // The RSA keys a first start generates are generated at once, on libuv's thread pool: the
  // serving certificate's and the CA's (in prepareServing) and the administrator's client
  // certificate key, instead of one after the other. Only generated here: nothing is written
  // before the start-up checks below have passed. (The service-account key is ECDSA: a
  // millisecond.)
  const certDir = config.certDir ?? defaultCertDir()
  const adminKey = config.writeKubeconfig && !config.tlsCertFile && adminClientCertMissing(certDir) ? generateKey('rsa') : undefined
  adminKey?.catch(() => undefined)

  // The serving certificates are prepared (their RSA keys generated on libuv's thread pool) while
  // the embedded store opens below, as the reference completes its certificates before it
  // touches storage; a store error is still the one reported when both fail.
  const tlsReady = prepareServing({
    certDir: config.certDir,
    certFile: config.tlsCertFile,
    keyFile: config.tlsPrivateKeyFile,
    sniCertKeys: config.tlsSniCertKeys,
    minVersion: config.tlsMinVersion,
    cipherSuites: config.tlsCipherSuites,
    advertiseAddress: config.advertiseAddress,
    bindAddress: config.bindAddress,
    alpn: config.disableHttp2 ? ['http/1.1'] : ['h2', 'http/1.1'],
  })
  tlsReady.catch(() => undefined)

  // The embedded store opens before connections are accepted: a locked, unwritable or corrupt data
  // directory is a start-up error. etcd may come up later, so it is opened in the background.
  const pending = new PendingStore()
  const embedded = config.storeServers.length === 0
  if (embedded) pending.set(encrypting(await openStore(storeConfig(config, log))))
  const tls = await tlsReady

  // Service-account tokens: the issuer's keys (generated in --cert-dir without flags) are on
  // disk before the server listens.
  const serviceAccountIssuers = config.serviceAccountIssuers.length > 0 ? config.serviceAccountIssuers : [DEFAULT_ISSUER]
  const apiAudiences = config.apiAudiences.length > 0 ? config.apiAudiences : serviceAccountIssuers.slice(0, 1)
  let readObject: ApiObjectReader | undefined
  const objects: ObjectReader = (resource, namespace, name) => {
    if (!readObject) return Promise.reject(new Error('the API is not installed yet'))
    return readObject('', 'v1', resource, namespace, name)
  }

  // The JWT issuers (--oidc-*, --authentication-config) and the token webhook; bad files stop
  // the server. The first discovery of each issuer is tried before serving, as the reference's
  // synchronous initialisation does when it can; an unreachable issuer is retried later.
  let tokenMethods: ReturnType<typeof buildJwtAndWebhook>
  try {
    tokenMethods = buildJwtAndWebhook(config, { implicitAudiences: apiAudiences, serviceAccountIssuers }, log)
  } catch (err) {
    if (err instanceof AuthenticationSetupError) throw new StartupError(err.message)
    throw err
  }
  await tokenMethods.start()

  let authentication: Authentication
  let tokenEvents: ServiceAccountTokenEvents | undefined
  let serviceAccountKeys: ServiceAccountKeys
  try {
    serviceAccountKeys = await loadServiceAccountKeys({
      ...(config.serviceAccountSigningKeyFile ? { signingKeyFile: config.serviceAccountSigningKeyFile } : {}),
      keyFiles: config.serviceAccountKeyFiles,
      certDir,
    })
    const options = authenticationOptions(config, tls.caFiles ? [loadCaBundle(tls.caFiles.cert, '--cert-dir')] : [], log)
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
          // The metrics registry is made below; tokens are only checked once requests are served.
          events: { legacyToken: () => tokenEvents?.legacyToken(), staleToken: () => tokenEvents?.staleToken(), validToken: () => tokenEvents?.validToken() },
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
  legacyTokens = new LegacyTokenController({
    key: serviceAccountKeys.signing,
    ...(tls.caCertPem ? { caPem: tls.caCertPem } : {}),
    onError: (err) => log.warning(`legacy service-account token controller: ${err.message}`),
  })

  const metrics = new ServerMetrics()
  tokenEvents = serviceAccountMetrics(metrics.registry)
  const storageMetrics = new StorageMetrics({
    registry: metrics.registry,
    store: () => pending.store,
    resources: () => BOOTSTRAP_RESOURCES,
    countPollMs: config.storeCountMetricPollMs,
    dbPollMs: config.storeDbMetricPollMs,
    onError: (err) => log.v(2, `storage metrics: ${(err as Error).message}`),
  })
  const health: Health = createHealth({
    livezGracePeriodMs: config.livezGracePeriodMs,
    signals,
    log: (level, message) => log.v(level, message),
    onFatal: (name, err) => {
      log.error(`PostStartHook "${name}" failed: ${err.message}`)
      process.exit(1)
    },
  })

  const overrides = overrideSetCount(config.storeServersOverrides)
  const names = (suffix: string) => ['store', ...Array.from({ length: overrides }, (_, i) => `store-override-${i}`)].map((n) => n + suffix)
  const storeNow = async () => pending.ready
  setAllowPrivileged(config.allowPrivileged)
  let endpointReconciler: LeaseEndpointReconciler | undefined
  // The controllers of the table (controllers/index.ts), started once the registry exists;
  // some wait until /readyz has first passed (readiness, resolved below).
  const controllers = new ControllerManager(buildControllers({ config }))
  let resolveReadiness: (ready: boolean) => void = () => {}
  const readiness = new Promise<boolean>((resolve) => (resolveReadiness = resolve))
  const apiGroupVersions = servedGroupVersions(servedAtVersion(enabledKinds(KINDS, config.runtimeConfig, config.featureGates), options.emulatedMinor))
  // Objects the server writes itself are stored in the storage media type too.
  const bootstrapCodec = new StorageCodec(config.storageMediaType)
  const ensure = async (objects: readonly BootstrapObject[]) => {
    const store = await storeNow()
    await bootstrapCodec.ready()
    return ensureObjects(store, objects, (object) => bootstrapCodec.encode(object))
  }
  /** kube-system/extension-apiserver-authentication as the CA files say now (written by an earlier start: updated). */
  const publishAuthenticationInfo = async () => {
    const [info] = authenticationInfo(
      authentication.clientCa?.pem,
      authentication.requestHeaderCa && {
        caPem: authentication.requestHeaderCa.pem,
        allowedNames: config.requestheaderAllowedNames,
        usernameHeaders: config.requestheaderUsernameHeaders,
        uidHeaders: config.requestheaderUidHeaders,
        groupHeaders: config.requestheaderGroupHeaders,
        extraHeaderPrefixes: config.requestheaderExtraHeadersPrefix,
      },
    )
    if ((await ensure([info!])) > 0) return
    const store = await storeNow()
    const current = await readObject?.('', 'v1', 'configmaps', 'kube-system', 'extension-apiserver-authentication')
    const kv = await store.get(info!.key)
    if (!current || !kv || JSON.stringify(current.data ?? {}) === JSON.stringify(info!.object.data)) return
    const metadata = { ...(current.metadata as Record<string, unknown>) }
    delete metadata.resourceVersion
    await store.update(info!.key, bootstrapCodec.encode({ ...current, metadata, data: info!.object.data as Record<string, unknown> }), kv.modRevision)
  }

  /** The start-service-ip-repair-controllers' pass: IPAddresses for Services that have none. */
  const repairIPs = async (registry: ReturnType<typeof api.registryFor>) => {
    const ipaddresses = registry.lookup('networking.k8s.io', 'v1', 'ipaddresses')
    if (!ipaddresses) return
    const repaired = await repairServiceIPs(registry.lookup('', 'v1', 'services')!, ipaddresses)
    if (repaired > 0) log.v(2, `bootstrap-controller: wrote ${repaired} IPAddresses of existing Services`)
  }
  /**
   * What the reference's kubernetes-service and cluster-authentication-trust controllers write
   * once /readyz passes (bootstrap/after-ready.ts): the `kubernetes` Service, Endpoints and
   * EndpointSlice (unchanged ones are not written again), the master lease, and
   * kube-system/extension-apiserver-authentication.
   */
  const afterReadyWork = async () => {
    const created = await ensure(
      kubernetesService({
        address: endpointAddress(config.advertiseAddress, config.bindAddress),
        securePort: config.securePort,
        clusterIPRange: config.serviceClusterIPRange,
        nodePort: config.coreServiceNodePort,
        withEndpoints: config.endpointReconcilerType !== 'none',
      }),
    )
    const store = await storeNow()
    const registry = api.registryFor(store)
    // A Service written here has its IPAddress written as the repair pass would.
    if (created > 0) await repairIPs(registry)
    // --endpoint-reconciler-type=lease: every server on the store appears in the Endpoints.
    if (config.endpointReconcilerType === 'lease' && !endpointReconciler && !signals.shutdownInitiated.signalled) {
      endpointReconciler = new LeaseEndpointReconciler({
        store: () => store,
        endpoints: () => registry.lookup('', 'v1', 'endpoints'),
        endpointSlices: () => registry.lookup('discovery.k8s.io', 'v1', 'endpointslices'),
        ip: endpointAddress(config.advertiseAddress, config.bindAddress),
        port: config.securePort,
        log: (level, message) => log.v(level, message),
      })
      endpointReconciler.start()
    }
    await publishAuthenticationInfo()
  }

  let autoregistered = false
  health.install({
    log: { name: 'log', check: () => faults.wrap('log', () => log.check()), immediate: () => (faults.enabled ? undefined : log.checkNow()) },
    store: {
      probes: faults.wrapProbes(pending.probes({ health: names(''), ready: names('-readiness') })),
      healthTimeoutMs: config.storeHealthcheckTimeoutMs,
      readyTimeoutMs: config.storeReadycheckTimeoutMs,
    },
    hooks: {
      'start-apiserver-admission-initializer': async () => {},
      'generic-apiserver-start-informers': async () => {
        const store = await storeNow()
        const registry = api.registryFor(store)
        await controllers.start({ registry, ready: readiness, log: (level, message) => log.v(level, message) })
        const modes = config.authorizationModes
        await Promise.all([
          rbacPolicy.start(registry, (err) => log.v(2, `rbac informer: ${err.message}`)),
          modes.includes('Node') || config.authorizationConfig ? nodeGraph.start(registry, (err) => log.v(2, `node authorizer informer: ${err.message}`)) : undefined,
        ])
        // As the reference's controller manager does whatever the authorization mode.
        const aggregator = new ClusterRoleAggregator(rbacPolicy, () => registry.lookup(RBAC_GROUP, 'v1', 'clusterroles'), (err) =>
          log.warning(`clusterrole aggregation: ${err.message}`),
        )
        rbacPolicy.onClusterRoleChange(() => aggregator.schedule())
        aggregator.schedule()
        // The controller manager's token controller: legacy service-account token secrets are filled.
        legacyTokens?.start(registry)
      },
      'start-apiextensions-informers': async () => {
        await storeNow()
      },
      'start-apiextensions-controllers': async () => {
        await storeNow()
      },
      'crd-informer-synced': async () => {
        const store = await storeNow()
        await store.list('/apiextensions.k8s.io/customresourcedefinitions/')
      },
      'bootstrap-controller': async () => {
        const registry = api.registryFor(await storeNow())
        // All at once, so that a first start can commit them in one group (one after the
        // other, each waited for the previous one's WAL sync): the system namespaces, their default
        // service accounts, the priority and fairness configuration (the reference's own
        // post-start hook is not in the spec's list) and, where the emulated version serves
        // them (1.33 and later), the default ServiceCIDR. None of these needs another first.
        await Promise.all([
          ensure(systemNamespaces()),
          ensure(systemServiceAccounts()),
          ensure(flowControlConfiguration()),
          registry.lookup('networking.k8s.io', 'v1', 'servicecidrs') ? ensure([defaultServiceCIDR(config.serviceClusterIPRange.split(',').filter((c) => c !== ''))]) : undefined,
        ])
        await repairIPs(registry)
        // The `kubernetes` Service, its Endpoints and the master lease: once ready (below).
      },
      'rbac/bootstrap-roles': async () => {
        const store = await storeNow()
        const defaults = bootstrapRbac()
        // The namespaced defaults live in kube-system and kube-public, which the bootstrap controller creates.
        await ensure(systemNamespaces())
        // On a restart (cluster-admin is there) the defaults are reconciled from the RBAC
        // informers' list (started by generic-apiserver-start-informers) instead of a read and
        // a decode of each. On a first start there is nothing to reconcile, and the creates do
        // not wait for the list (which would then take each of them as a watch event).
        const restart = Boolean(await store.get('/clusterroles/cluster-admin'))
        if (restart) await rbacPolicy.synced
        const cached = (o: KubeObject) => (restart ? rbacPolicy.stored(RBAC_RESOURCES[o.kind ?? ''] ?? '', o.metadata.namespace ?? '', o.metadata.name ?? '') : undefined)
        const updated = await reconcileRbac(api.registryFor(store), defaults, cached)
        // A default the informers have seen exists: only the others are asked for.
        const created = await ensure(defaults.filter((d) => !cached(d.object as KubeObject)))
        if (created + updated > 0) log.v(2, `rbac/bootstrap-roles: created ${created} and reconciled ${updated} default roles and bindings`)
      },
      'scheduling/bootstrap-system-priority-classes': async () => {
        await ensure(systemPriorityClasses())
      },
      'start-cluster-authentication-info-controller': async () => {
        // The reference's controller runs in the background (its first publication below, once
        // ready) and follows the CA files: a reloaded bundle is published again.
        for (const file of authentication.caFiles) file.onChange(() => void publishAuthenticationInfo().catch((err: Error) => log.error(`cluster authentication info: ${err.message}`)))
      },
      'start-aggregator-informers': async () => {
        await storeNow()
      },
      'apiservice-registration-controller': async () => {
        await storeNow()
      },
      'apiservice-status-available-controller': async () => {
        await storeNow()
      },
      'apiserver-autoregistration': async () => {
        await ensure(builtInApiServices(apiGroupVersions))
      },
      'apiservice-openapi-controller': async () => {
        await storeNow()
      },
    },
    healthAndReady: encryption?.healthChecks() ?? [],
    autoregisterCompletion: {
      name: AUTOREGISTER_COMPLETION,
      // Like the reference's check on its informer cache: once every built-in APIService has
      // been seen, the boot sequence is complete and later store trouble is the store check's.
      check: async () => {
        if (autoregistered) return
        if (!pending.store) throw new Error('the store is not open yet')
        const registered = await pending.store.count('/apiregistration.k8s.io/apiservices/')
        const wanted = apiGroupVersions.length
        if (registered < wanted) throw new Error(`${wanted - registered} of ${wanted} built-in APIServices are not registered yet`)
        autoregistered = true
      },
      immediate: () => (autoregistered ? null : undefined),
    },
  })

  metrics.reportHealthChecks(() => health.lastResults())
  const mux = new Mux()
  // Only the health paths are routed here, so the handler always recognises them. Not async:
  // a report whose checks all answer at once is written before this returns.
  const serveHealth: Handler = (req, res, ctx) => {
    const handled = health.handleNow(req, res, ctx)
    if (typeof handled !== 'boolean') return handled.then(() => undefined)
  }
  for (const path of health.paths()) mux.handle(path, serveHealth)
  const version = versionHandler(versionInfo(options.emulatedMinor, options.minCompatibilityMinor, options.productVersion))
  // The reference's /version is a go-restful service, which answers with or without the trailing slash.
  mux.handle('/version', version)
  mux.handle('/version/', version)
  const api = installApi(mux, {
    store: () => pending.store,
    log: (level, message) => log.v(level, message),
    runtimeConfig: config.runtimeConfig,
    featureGates: config.featureGates,
    emulatedMinor: options.emulatedMinor,
    storageMediaType: config.storageMediaType,
    virtualHandlers: new Map([
      ...authorizationApi(authorization),
      ...authenticationApi(authentication, [
      [
        '/v1/serviceaccounts/token',
        tokenRequestHandler({
          issuer: new TokenIssuer(serviceAccountIssuers[0]!, serviceAccountKeys.signing),
          apiAudiences,
          maxExpirationSeconds: Math.floor(config.serviceAccountMaxTokenExpirationMs / 1000),
          extendExpiration: config.serviceAccountExtendTokenExpiration,
        }),
      ],
    ]),
    ]),
    options: {
      writeChecks: escalationChecks(authorization.authorizer, () => ruleResolver),
      serviceClusterIPRange: config.serviceClusterIPRange,
      serviceNodePortRange: config.serviceNodePortRange,
      eventTtlSeconds: Math.ceil(config.eventTtlMs / 1000),
      minRequestTimeoutSeconds: config.minRequestTimeoutSeconds,
      watchCache: config.watchCache,
      watchCacheSizes: config.watchCacheSizes,
      garbageCollector: config.enableGarbageCollector,
      deleteCollectionWorkers: config.deleteCollectionWorkers,
    },
  })
  readObject = api.readObject
  mux.handle('/metrics', metricsHandler(metrics))
  // Priority and fairness: one controller for the filter, its debug tables and its metrics.
  const flowController = config.enablePriorityAndFairness ? new FlowController({ serverConcurrencyLimit: config.maxRequestsInflight + config.maxMutatingRequestsInflight }) : undefined
  if (flowController) {
    registerFlowControlMetrics(metrics.registry, flowController)
    mux.handleUnlisted(DEBUG_PATHS.priorityLevels, dumpPriorityLevels(flowController))
    mux.handleUnlisted(DEBUG_PATHS.queues, dumpQueues(flowController))
    mux.handleUnlisted(DEBUG_PATHS.requests, dumpRequests(flowController))
  }
  if (config.profiling) installPprof(mux, { contentionProfiling: config.contentionProfiling })
  if (config.enableLogsHandler) installLogs(mux)
  try {
    for (const [path, handler] of serviceAccountIssuerHandlers({
      issuers: serviceAccountIssuers,
      jwksUri: config.serviceAccountJwksUri,
      keyFiles: serviceAccountKeys.publishedFiles,
      externalHost: config.externalHostname,
    })) {
      mux.handle(path, handler)
    }
  } catch (err) {
    // Like the reference: a problem with the issuer itself only disables the documents;
    // an unreadable key file is a start-up error.
    if (!(err instanceof OpenIDMetadataError)) throw new StartupError((err as Error).message)
    log.warning(`not serving the service-account issuer discovery documents: ${err.message}`)
  }
  mux.handle('/', (_req, res) => {
    res.setHeader('Content-Type', 'application/json')
    res.statusCode = 200
    res.end(`${JSON.stringify({ paths: mux.paths() }, null, 2)}\n`)
  })

  const flowConfiguration = flowConfigurationCache(async () => {
    const store = pending.store
    if (!store) throw new Error('the store is not open yet')
    const read = async (prefix: string) => (await store.list(prefix)).items.map((kv) => bootstrapCodec.decode(kv.value) as unknown as FlowObject)
    const configuration = { schemas: await read('/flowschemas/'), levels: await read('/prioritylevelconfigurations/') }
    if (flowController) void keepFlowSchemaStatus(store, configuration)
    return configuration
  }, undefined, undefined, {
    changes: configurationWatch(() => pending.store),
    // A deleted level drains before it goes: the digest of a fresh read removes it once idle.
    poll: () => flowController?.quiescing === true,
  })
  /** The configuration controller's Dangling condition on each FlowSchema, written through status. */
  const keepFlowSchemaStatus = async (store: Store, configuration: { schemas: FlowObject[]; levels: FlowObject[] }) => {
    const updates = danglingUpdates(configuration.schemas, configuration.levels)
    if (updates.length === 0) return
    const schemas = api.registryFor(store).lookup('flowcontrol.apiserver.k8s.io', 'v1', 'flowschemas')
    for (const { name, condition } of updates) {
      await schemas
        ?.update(
          undefined,
          name,
          (current) => {
            const status = (current.status ?? {}) as { conditions?: Array<Record<string, unknown>> }
            const others = (status.conditions ?? []).filter((c) => c.type !== 'Dangling')
            current.status = { ...status, conditions: [...others, { ...condition, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] }
            delete current.metadata.resourceVersion
            return current
          },
          { subresource: 'status' },
        )
        .catch((err: unknown) => {
          log.v(2, `flowschema ${name} status: ${(err as Error).message}`)
          // Tried again with the next read, as when the configuration was read every second.
          flowConfiguration.invalidate()
        })
    }
  }
  const flowControl = flowController
    ? withPriorityAndFairness({ seats: flowController.serverConcurrencyLimit, configuration: flowConfiguration, controller: flowController })
    : withMaxInFlight(config.maxRequestsInflight, config.maxMutatingRequestsInflight)
  // The reference's order, outermost first (research health.md section 9).
  const handler = chain(
    [
      withAuditId(),
      withPanicRecovery(log),
      withMetrics(metrics),
      withRetryAfter(signals, config.shutdownSendRetryAfter),
      withHsts(config.hstsDirectives),
      withCacheControl(),
      withProbabilisticGoaway(config.goawayChance),
      withWatchTermination(signals, watches, config.shutdownWatchTerminationGracePeriodMs),
      withWaitGroup(signals, inFlight),
      withRequestDeadline(config.requestTimeoutMs),
      withTimeout(),
      withCors(config.corsAllowedOrigins),
      withAuthentication({ union: authentication.union, audiences: authentication.audiences, log: (message) => log.error(message) }),
      withAudit([]),
      withImpersonation(authorization.authorizer),
      flowControl,
      withAuthorization(authorization.authorizer),
    ],
    mux.serve,
  )

  const connections = new Connections()
  const onRequest = (req: Request, res: Response) => {
    connections.track(req, res)
    const target = req.url ?? '/'
    let path: string
    try {
      path = decodeRequestPath(target)
    } catch {
      // Go's server refuses a request target it cannot parse before any handler runs.
      httpError(res, 400, '400 Bad Request')
      return
    }
    const ctx = new IncomingContext(req, target, path)
    try {
      const done = handler(req, res, ctx)
      // The closure only for a request that is still in progress (most probes and GETs are not).
      if (isPromise(done)) done.catch((err: unknown) => failed(req, res, ctx, err))
    } catch (err) {
      failed(req, res, ctx, err)
    }
  }
  /** A request whose handling threw: logged, and answered 500 if nothing was sent yet. */
  const failed = (req: Request, res: Response, ctx: IncomingContext, err: unknown) => {
    log.error(`request ${req.method} ${ctx.url.pathname} failed: ${(err as Error).stack ?? err}`)
    if (!res.headersSent) {
      res.statusCode = 500
      res.end()
    }
  }

  const server: Http2SecureServer | HttpsServer = config.disableHttp2
    ? createHttpsServer({ ...tls.secureOptions, ...SERVING_TIMEOUT_OPTIONS }, onRequest)
    : createSecureServer(
        {
          ...tls.secureOptions,
          ...SERVING_TIMEOUT_OPTIONS,
          allowHTTP1: true,
          ...(config.http2MaxStreamsPerConnection > 0 ? { settings: { maxConcurrentStreams: config.http2MaxStreamsPerConnection } } : {}),
        },
        onRequest,
      )
  applyServingTimeouts(server)
  parseHttp1FromStream(server)
  connections.watch(server)
  // Clients that connect by IP send no server name; this picks their certificate by local address.
  tls.attach(server)
  for (const warning of tls.warnings) log.warning(warning)
  for (const reason of tls.generationReasons) log.info(reason)

  if (tls.created.ca || tls.created.serving) log.info(`generated a self-signed serving certificate in ${tls.certFiles.cert.replace(/\/[^/]+$/, '')} for ${hostname()}`)
  // Everything written for users is complete before the first connection is accepted, so
  // before /readyz can answer 200.
  if (config.writeKubeconfig) {
    const server = `https://${urlHost(config.bindAddress)}:${address.port}`
    try {
      // With a user-supplied serving certificate there is no CA of ours to sign a client certificate.
      const adminDir = tls.caFiles ? dirname(tls.caFiles.cert) : undefined
      const admin = adminDir ? await ensureAdminClientCert(adminDir, new Date(), resolvePath(adminDir) === resolvePath(certDir) ? adminKey : undefined) : undefined
      writeKubeconfigFile(config.writeKubeconfig, {
        server,
        name: 'client',
        ...(tls.caCertPem ? { caPem: tls.caCertPem } : {}),
        ...(admin ? { clientCertPem: admin.certPem, clientKeyPem: admin.keyPem } : {}),
      })
    } catch (err) {
      throw new StartupError(`--write-kubeconfig: cannot write ${config.writeKubeconfig}: ${(err as Error).message}`)
    }
    log.info(`wrote a kubeconfig for ${server} to ${config.writeKubeconfig} (kubectl --kubeconfig ${config.writeKubeconfig} get ns)`)
  }
  await serveOn(server, bound)
  server.on('error', (err) => log.error(`server error: ${err.message}`))
  log.info(`Serving securely on ${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`)
  // A newcomer's first question is where the state went: name the full path (or the etcd servers).
  log.info(config.storeServers.length > 0 ? `Storing data in etcd at ${config.storeServers.join(',')} under ${config.storePrefix}` : `Storing data in ${resolvePath(config.dataDir || defaultDataDir())}`)

  const debugSocket = config.debugSocketPath
    ? await serveDebugSocket(config.debugSocketPath, (() => {
        const debugMux = new Mux()
        installPprof(debugMux, { contentionProfiling: config.contentionProfiling })
        return debugMux.serve
      })())
    : undefined

  if (!embedded) {
    openStore(storeConfig(config, log)).then(
      (store) => {
        pending.set(encrypting(store))
        log.info(`connected to the store at ${config.storeServers.join(',')}`)
      },
      (err: Error) => {
        pending.lastError = err.message
        log.error(`the store did not become available: ${err.message}`)
        process.exit(1)
      },
    )
  }
  const hooksDone = health.startPostStartHooks()
  void whenReady({
    hooksDone,
    readyChecks: () => health.registry.checksFor('readyz'),
    hasBeenReady: signals.hasBeenReady,
    shutdownInitiated: signals.shutdownInitiated,
  })
    .then((ready) => {
      resolveReadiness(ready)
      return ready ? afterReadyWork() : undefined
    })
    .catch((err: Error) => {
      resolveReadiness(false)
      log.error(`bootstrap-controller: ${err.message}`)
    })
  encryption?.start()
  storageMetrics.start()
  void pending.ready.then(() => Promise.all([storageMetrics.pollCounts(), storageMetrics.pollSize()]))

  let shutdownPromise: Promise<void> | undefined
  const shutdown = () => {
    shutdownPromise ??= gracefulShutdown({
      signals,
      inFlight,
      watches,
      delayMs: config.shutdownDelayMs,
      sendRetryAfter: config.shutdownSendRetryAfter,
      drainTimeoutMs: config.requestTimeoutMs,
      watchGracePeriodMs: config.shutdownWatchTerminationGracePeriodMs,
      stopListening: () => {
        if (server.listening) server.close()
        return Promise.resolve()
      },
      closeIdleConnections: () => connections.closeIdle(),
      destroyConnections: () => connections.destroyAll(),
      releaseResources: async () => {
        await controllers.stop()
        await endpointReconciler?.stop().catch((err: unknown) => log.v(2, `endpoint reconciler: ${(err as Error).message}`))
        storageMetrics.stop()
        flowController?.stop()
        encryption?.stop()
        rbacPolicy.stop()
        reloading?.stop()
        nodeGraph.stop()
        legacyTokens?.stop()
        tokenMethods.stop()
        for (const file of authentication.caFiles) file.stop()
        await debugSocket?.close()
        await pending.store?.close()
        log.flush()
      },
      log: (message) => log.info(message),
    })
    return shutdownPromise
  }

  return { address, caCertPem: tls.caCertPem, signals, shutdown }
}
