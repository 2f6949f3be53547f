/**
 * The server's configuration, read from a validated command line: effective values (given or
 * default) in the units the server uses, and the list of given options whose behaviour is
 * not built yet, which the server names at start-up rather than ignoring.
 */
import type { ValidationContext } from '../core/flags/context.js'
import type { KeyValue, NamedCertKey, OptionValue, PortRange } from '../core/options/types.js'
import { AUDIT_LOG_FORMATS, AUDIT_MODES, STORAGE_MEDIA_TYPES } from '../core/options/enums.js'
import type { OidcOptions } from '../core/config-files/authentication-config.js'

/** A `--storage-media-type` value (the storage codec's StorageMediaType, src/server/api/registry/storage-codec.ts). */
type StorageMediaType = (typeof STORAGE_MEDIA_TYPES)[number]

export interface ServerConfig {
  bindAddress: string
  securePort: number
  advertiseAddress?: string
  certDir?: string
  tlsCertFile?: string
  tlsPrivateKeyFile?: string
  tlsSniCertKeys: NamedCertKey[]
  tlsMinVersion?: string
  tlsCipherSuites: string[]
  disableHttp2: boolean
  http2MaxStreamsPerConnection: number
  goawayChance: number
  hstsDirectives: string[]
  corsAllowedOrigins: string[]
  permitAddressSharing: boolean
  permitPortSharing: boolean
  writeKubeconfig?: string
  /** --merge-kubeconfig: a shared kubeconfig to merge this server's context into. */
  mergeKubeconfig?: string
  allowPrivileged: boolean
  /** --endpoint-reconciler-type: `none` leaves the kubernetes Endpoints alone. */
  endpointReconcilerType: string
  /** The first IPv4 range of --service-cluster-ip-range (default 10.0.0.0/24). */
  serviceClusterIPRange: string
  serviceNodePortRange: PortRange
  coreServiceNodePort: number

  dataDir?: string
  storeServers: string[]
  storePrefix: string
  storeCaFile?: string
  storeCertFile?: string
  storeKeyFile?: string
  storeServersOverrides: string[]
  storeCompactionIntervalMs: number
  storeCountMetricPollMs: number
  storeDbMetricPollMs: number
  storeHealthcheckTimeoutMs: number
  storeReadycheckTimeoutMs: number
  storageInitializationTimeoutMs: number
  encryptionProviderConfig?: string
  encryptionProviderConfigAutomaticReload: boolean
  eventTtlMs: number
  leaseReuseDurationSeconds: number
  watchCache: boolean
  watchCacheSizes: string[]
  /** --enable-garbage-collector (default true). */
  enableGarbageCollector: boolean
  /** --delete-collection-workers (default 1; fewer than 1 counts as 1). */
  deleteCollectionWorkers: number
  /** --default-not-ready-toleration-seconds (default 300): DefaultTolerationSeconds' not-ready toleration. */
  defaultNotReadyTolerationSeconds: number
  /** --default-unreachable-toleration-seconds (default 300): DefaultTolerationSeconds' unreachable toleration. */
  defaultUnreachableTolerationSeconds: number
  /** How built-in kinds are stored: protobuf (the default), JSON or YAML. */
  storageMediaType: StorageMediaType

  anonymousAuth: boolean
  /** Whether --anonymous-auth was given (the file's anonymous section excludes it). */
  anonymousAuthGiven: boolean
  /** --oidc-*: the JWT authenticator of the options, when --oidc-issuer-url and --oidc-client-id are set. */
  oidc?: OidcOptions
  /** --authentication-config. */
  authenticationConfig?: string
  /** --authentication-token-webhook-config-file, -cache-ttl, -version. */
  authenticationTokenWebhookConfigFile?: string
  authenticationTokenWebhookCacheTtlMs: number
  authenticationTokenWebhookVersion: string
  authorizationModes: string[]
  authorizationPolicyFile?: string
  /** --authorization-config: the structured chain (then authorizationModes is unused). */
  authorizationConfig?: string
  authorizationWebhookConfigFile?: string
  authorizationWebhookVersion: 'v1' | 'v1beta1'
  authorizationWebhookAuthorizedTtlMs: number
  authorizationWebhookUnauthorizedTtlMs: number
  clientCaFile?: string
  tokenAuthFile?: string
  enableBootstrapTokenAuth: boolean
  /** --api-audiences as given (the server defaults them to the first issuer). */
  apiAudiences: string[]
  serviceAccountSigningKeyFile?: string
  /** --service-account-signing-endpoint: the external signer's Unix socket (`@name`: abstract). */
  serviceAccountSigningEndpoint?: string
  /** --service-account-max-token-expiration; 0: no maximum. */
  serviceAccountMaxTokenExpirationMs: number
  serviceAccountExtendTokenExpiration: boolean
  /** --nodeagent-*: how the server reaches node agents (logs, exec, attach, port-forward, proxies). */
  nodeAgent: {
    caFile?: string
    certFile?: string
    keyFile?: string
    preferredAddressTypes: string[]
    timeoutMs: number
  }
  serviceAccountLookup: boolean
  requestheaderClientCaFile?: string
  requestheaderAllowedNames: string[]
  requestheaderUsernameHeaders: string[]
  requestheaderUidHeaders: string[]
  requestheaderGroupHeaders: string[]
  requestheaderExtraHeadersPrefix: string[]
  /** --proxy-client-cert-file and --proxy-client-key-file: what the aggregator presents to extension servers and this server to its peers. */
  proxyClientCertFile?: string
  proxyClientKeyFile?: string
  /** --enable-aggregator-routing: proxy to an endpoint address rather than the cluster IP. */
  enableAggregatorRouting: boolean
  /** --aggregator-reject-forwarding-redirect (default true): an extension server's redirect becomes a 502. */
  aggregatorRejectForwardingRedirect: boolean

  maxRequestsInflight: number
  maxMutatingRequestsInflight: number
  enablePriorityAndFairness: boolean
  requestTimeoutMs: number
  minRequestTimeoutSeconds: number
  maxConnectionBytesPerSec: number

  livezGracePeriodMs: number
  shutdownDelayMs: number
  shutdownSendRetryAfter: boolean
  shutdownWatchTerminationGracePeriodMs: number

  profiling: boolean
  contentionProfiling: boolean
  debugSocketPath?: string
  enableLogsHandler: boolean
  serviceAccountIssuers: string[]
  serviceAccountKeyFiles: string[]
  serviceAccountJwksUri?: string
  externalHostname?: string
  /** --peer-advertise-ip, --peer-advertise-port, --peer-ca-file (the mixed-version proxy). */
  peerAdvertiseIp?: string
  peerAdvertisePort?: string
  peerCaFile?: string
  /** --coordinated-leadership-*: the timers of the coordinated leader election controller's own lease. */
  coordinatedLeadership: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number }

  /** --disabled-metrics. */
  disabledMetrics: string[]
  /** --show-hidden-metrics-for-version was given. */
  showHiddenMetrics: boolean
  /** --allow-metric-labels when given (it then overrides the manifest). */
  allowMetricLabels?: Record<string, string>
  /** --allow-metric-labels-manifest: a YAML map of the same form. */
  allowMetricLabelsManifest?: string

  verbosity: number
  vmodule: Record<string, string>
  logFlushFrequencyMs: number
  /** --log-text-split-stream: info lines to stdout, the others to stderr. */
  logTextSplitStream: boolean
  /** --log-text-info-buffer-size as given (a quantity; main.ts reads its value). */
  logTextInfoBufferSize?: string
  runtimeConfig: KeyValue[]
  /** --emulation-forward-compatible. */
  emulationForwardCompatible: boolean
  /** --runtime-config-emulation-forward-compatible. */
  runtimeConfigEmulationForwardCompatible: boolean
  /** The effective feature gates (defaults, AllAlpha/AllBeta, then each --feature-gates entry). */
  featureGates: ReadonlyMap<string, boolean>
  /**
   * --enable-admission-plugins, --disable-admission-plugins and the deprecated
   * --admission-control (undefined unless given); `given` when any of them is. The enabled set
   * is computed in src/server/admission/enabled-plugins.ts.
   */
  admissionPlugins: { enable: string[]; disable: string[]; admissionControl?: string[]; given: boolean }
  /** --admission-control-config-file: the plugins' configuration (src/core/config-files/admission-config.ts). */
  admissionControlConfigFile?: string
  /** --egress-selector-config-file (src/core/config-files/egress-selector-config.ts). */
  egressSelectorConfigFile?: string
  /** --tracing-config-file (src/core/config-files/tracing-config.ts): without it nothing is traced. */
  tracingConfigFile?: string
  /** --audit-policy-file: without it nothing is audited. */
  auditPolicyFile?: string
  /** --audit-log-*: on when `path` is given. */
  auditLog: AuditLogConfig
  /** --audit-webhook-*: on when `configFile` is given. */
  auditWebhook: AuditWebhookConfig
  /** `client cluster start`'s own options; absent for `server start`. */
  cluster?: ClusterConfig
}

/** A whole cluster in the process (`client cluster start`): its nodes, controllers and clock. */
export interface ClusterConfig {
  /** The simulated nodes' names, in order. */
  nodeNames: string[]
  /** status.capacity (and allocatable) of each node. */
  nodeCapacity: Record<string, string>
  nodeLabels: Record<string, string>
  /** `<key>=<value>:<effect>` texts (checked by the cluster rules). */
  registerWithTaints: string[]
  clusterCidr: string
  /** Files of kwok Stage objects replacing the default stages. */
  nodeStages: string[]
  /** Files of kwok PortForward and ClusterPortForward objects (port-forward to simulated pods). */
  nodePortForwards: string[]
  nodeStatusUpdateFrequencyMs: number
  /** kube-controller-manager's --controllers. */
  controllers: string[]
  leaderElect: boolean
  nodeMonitorGracePeriodMs: number
  /** kube-controller-manager's --horizontal-pod-autoscaler-sync-period, -downscale-stabilization and -tolerance. */
  hpaSyncPeriodMs: number
  hpaDownscaleStabilizationMs: number
  hpaTolerance: number
  /** --clock: the cluster's time at start (ms since the epoch), when given. */
  clockStartMs?: number
}

/** The `--audit-<backend>-{mode,version,batch-*,truncate-*}` options every audit backend has. */
export interface AuditBackendConfig {
  mode: (typeof AUDIT_MODES)[number]
  /** The group/version events are written as (only audit.k8s.io/v1 is served). */
  version: string
  batchBufferSize: number
  batchMaxSize: number
  batchMaxWaitMs: number
  batchThrottleEnable: boolean
  batchThrottleQps: number
  batchThrottleBurst: number
  truncateEnabled: boolean
  truncateMaxBatchSize: number
  truncateMaxEventSize: number
}

export interface AuditLogConfig extends AuditBackendConfig {
  /** `-` is standard output. */
  path?: string
  format: (typeof AUDIT_LOG_FORMATS)[number]
  maxAgeDays: number
  maxBackups: number
  maxSizeMb: number
  compress: boolean
}

export interface AuditWebhookConfig extends AuditBackendConfig {
  configFile?: string
  initialBackoffMs: number
}

/** The validated `--storage-media-type` (validation rejects other values before this runs). */
function storageMediaType(value: string | undefined): StorageMediaType {
  return (STORAGE_MEDIA_TYPES as readonly string[]).includes(value ?? '') ? (value as StorageMediaType) : 'application/vnd.kubernetes.protobuf'
}

/**
 * --authorization-mode, or this server's secure default: Node,RBAC with the default roles, as
 * single-binary distributions run (the reference's own default is AlwaysAllow).
 */
export const DEFAULT_AUTHORIZATION_MODES = ['Node', 'RBAC']

function authorizationModes(ctx: ValidationContext): string[] {
  const given = ctx.list('authorization-mode').filter((m) => m !== '')
  return given.length > 0 ? given : [...DEFAULT_AUTHORIZATION_MODES]
}

/** The --oidc-* options, when they configure an issuer (the reference needs both the URL and the client id). */
function oidcOptions(ctx: ValidationContext): OidcOptions | undefined {
  const issuerUrl = ctx.value<string>('oidc-issuer-url') ?? ''
  const clientId = ctx.value<string>('oidc-client-id') ?? ''
  if (issuerUrl === '' || clientId === '') return undefined
  const text = (name: string) => {
    const value = ctx.value<string>(name)
    return value === undefined || value === '' ? undefined : value
  }
  return {
    issuerUrl,
    clientId,
    caFile: text('oidc-ca-file'),
    usernameClaim: text('oidc-username-claim') ?? 'sub',
    usernamePrefix: text('oidc-username-prefix'),
    groupsClaim: text('oidc-groups-claim'),
    groupsPrefix: text('oidc-groups-prefix'),
    requiredClaims: ctx.value<Record<string, string>>('oidc-required-claim') ?? {},
    signingAlgs: ctx.list('oidc-signing-algs').length > 0 ? ctx.list('oidc-signing-algs') : ['RS256'],
  }
}

/** The admission options as the plugin registry reads them (src/server/admission/enabled-plugins.ts). */
function admissionPluginOptions(ctx: ValidationContext): ServerConfig['admissionPlugins'] {
  return {
    enable: ctx.list('enable-admission-plugins'),
    disable: ctx.list('disable-admission-plugins'),
    ...(ctx.has('admission-control') ? { admissionControl: ctx.list('admission-control') } : {}),
    given: ctx.has('enable-admission-plugins') || ctx.has('disable-admission-plugins') || ctx.has('admission-control'),
  }
}

/**
 * The reference's batch defaults per backend (options/audit.go): the log writes one event at
 * a time unthrottled, blocking; the webhook sends up to 400 every 30 s at 10 batches a second.
 */
const LOG_BATCH_DEFAULTS = { mode: 'blocking', bufferSize: 10_000, maxSize: 1, maxWaitMs: 0, throttle: false, qps: 0, burst: 0 } as const
const WEBHOOK_BATCH_DEFAULTS = { mode: 'batch', bufferSize: 10_000, maxSize: 400, maxWaitMs: 30_000, throttle: true, qps: 10, burst: 15 } as const

function auditBackendConfig(
  ctx: ValidationContext,
  backend: 'log' | 'webhook',
  defaults: typeof LOG_BATCH_DEFAULTS | typeof WEBHOOK_BATCH_DEFAULTS,
): AuditBackendConfig {
  const option = <T extends OptionValue>(name: string) => ctx.value<T>(`audit-${backend}-${name}`)
  const mode = option<string>('mode')
  return {
    mode: (AUDIT_MODES as readonly string[]).includes(mode ?? '') ? (mode as AuditBackendConfig['mode']) : defaults.mode,
    version: option<string>('version') || 'audit.k8s.io/v1',
    batchBufferSize: option<number>('batch-buffer-size') ?? defaults.bufferSize,
    batchMaxSize: option<number>('batch-max-size') ?? defaults.maxSize,
    batchMaxWaitMs: option<number>('batch-max-wait') ?? defaults.maxWaitMs,
    batchThrottleEnable: option<boolean>('batch-throttle-enable') ?? defaults.throttle,
    batchThrottleQps: option<number>('batch-throttle-qps') ?? defaults.qps,
    batchThrottleBurst: option<number>('batch-throttle-burst') ?? defaults.burst,
    truncateEnabled: option<boolean>('truncate-enabled') ?? false,
    truncateMaxBatchSize: option<number>('truncate-max-batch-size') ?? 10 * 1024 * 1024,
    truncateMaxEventSize: option<number>('truncate-max-event-size') ?? 100 * 1024,
  }
}

export function serverConfig(ctx: ValidationContext): ServerConfig {
  const str = (name: string) => {
    const v = ctx.value<string>(name)
    return v === undefined || v === '' ? undefined : v
  }
  const num = (name: string, fallback = 0) => ctx.value<number>(name) ?? fallback
  const bool = (name: string) => ctx.value<boolean>(name) ?? false
  return {
    bindAddress: str('bind-address') ?? '0.0.0.0',
    securePort: num('secure-port', 6443),
    advertiseAddress: str('advertise-address'),
    certDir: str('cert-dir'),
    tlsCertFile: str('tls-cert-file'),
    tlsPrivateKeyFile: str('tls-private-key-file'),
    tlsSniCertKeys: ctx.value<NamedCertKey[]>('tls-sni-cert-key') ?? [],
    tlsMinVersion: str('tls-min-version'),
    tlsCipherSuites: ctx.list('tls-cipher-suites'),
    disableHttp2: bool('disable-http2-serving'),
    http2MaxStreamsPerConnection: num('http2-max-streams-per-connection'),
    goawayChance: num('goaway-chance'),
    hstsDirectives: ctx.list('strict-transport-security-directives').map((d) => d.trim()),
    corsAllowedOrigins: ctx.list('cors-allowed-origins'),
    permitAddressSharing: bool('permit-address-sharing'),
    permitPortSharing: bool('permit-port-sharing'),
    writeKubeconfig: str('write-kubeconfig'),
    mergeKubeconfig: str('merge-kubeconfig'),
    allowPrivileged: bool('allow-privileged'),
    endpointReconcilerType: str('endpoint-reconciler-type') ?? 'lease',
    serviceClusterIPRange:
      (str('service-cluster-ip-range') ?? '')
        .split(',')
        .map((r) => r.trim())
        .find((r) => /^\d+\.\d+\.\d+\.\d+\/\d+$/.test(r)) ?? '10.0.0.0/24',
    serviceNodePortRange: ctx.value<PortRange>('service-node-port-range') ?? { base: 30000, size: 2768 },
    coreServiceNodePort: num('core-service-node-port'),

    dataDir: str('data-dir'),
    storeServers: ctx.list('store-servers'),
    storePrefix: str('store-prefix') ?? '/registry',
    storeCaFile: str('store-cafile'),
    storeCertFile: str('store-certfile'),
    storeKeyFile: str('store-keyfile'),
    storeServersOverrides: ctx.list('store-servers-overrides'),
    storeCompactionIntervalMs: num('store-compaction-interval', 300_000),
    storeCountMetricPollMs: num('store-count-metric-poll-period', 60_000),
    storeDbMetricPollMs: num('store-db-metric-poll-interval', 30_000),
    storeHealthcheckTimeoutMs: num('store-healthcheck-timeout', 2000),
    storeReadycheckTimeoutMs: num('store-readycheck-timeout', 2000),
    storageInitializationTimeoutMs: num('storage-initialization-timeout', 60_000),
    encryptionProviderConfig: str('encryption-provider-config'),
    encryptionProviderConfigAutomaticReload: bool('encryption-provider-config-automatic-reload'),
    eventTtlMs: num('event-ttl', 3_600_000),
    leaseReuseDurationSeconds: num('lease-reuse-duration-seconds', 60),
    watchCache: ctx.value<boolean>('watch-cache') ?? true,
    watchCacheSizes: ctx.list('watch-cache-sizes'),
    enableGarbageCollector: ctx.value<boolean>('enable-garbage-collector') ?? true,
    deleteCollectionWorkers: Math.max(1, ctx.value<number>('delete-collection-workers') ?? 1),
    defaultNotReadyTolerationSeconds: ctx.value<number>('default-not-ready-toleration-seconds') ?? 300,
    defaultUnreachableTolerationSeconds: ctx.value<number>('default-unreachable-toleration-seconds') ?? 300,
    storageMediaType: storageMediaType(str('storage-media-type')),

    // AlwaysAllow turns anonymous access off, as the reference does (and says: rule AUTHZ-DEFAULT).
    anonymousAuth: (ctx.value<boolean>('anonymous-auth') ?? true) && !authorizationModes(ctx).includes('AlwaysAllow'),
    authorizationModes: authorizationModes(ctx),
    authorizationPolicyFile: str('authorization-policy-file'),
    authorizationConfig: str('authorization-config'),
    authorizationWebhookConfigFile: str('authorization-webhook-config-file'),
    authorizationWebhookVersion: str('authorization-webhook-version') === 'v1' ? 'v1' : 'v1beta1',
    authorizationWebhookAuthorizedTtlMs: num('authorization-webhook-cache-authorized-ttl', 300_000),
    authorizationWebhookUnauthorizedTtlMs: num('authorization-webhook-cache-unauthorized-ttl', 30_000),
    anonymousAuthGiven: ctx.has('anonymous-auth'),
    oidc: oidcOptions(ctx),
    authenticationConfig: str('authentication-config'),
    authenticationTokenWebhookConfigFile: str('authentication-token-webhook-config-file'),
    authenticationTokenWebhookCacheTtlMs: ctx.value<number>('authentication-token-webhook-cache-ttl') ?? 120_000,
    authenticationTokenWebhookVersion: str('authentication-token-webhook-version') ?? 'v1beta1',
    clientCaFile: str('client-ca-file'),
    tokenAuthFile: str('token-auth-file'),
    enableBootstrapTokenAuth: bool('enable-bootstrap-token-auth'),
    apiAudiences: ctx.list('api-audiences').filter((a) => a !== ''),
    serviceAccountSigningKeyFile: str('service-account-signing-key-file'),
    serviceAccountSigningEndpoint: str('service-account-signing-endpoint'),
    serviceAccountMaxTokenExpirationMs: num('service-account-max-token-expiration'),
    serviceAccountExtendTokenExpiration: ctx.value<boolean>('service-account-extend-token-expiration') ?? true,
    nodeAgent: {
      caFile: str('nodeagent-certificate-authority'),
      certFile: str('nodeagent-client-certificate'),
      keyFile: str('nodeagent-client-key'),
      preferredAddressTypes: ctx.list('nodeagent-preferred-address-types'),
      timeoutMs: num('nodeagent-timeout', 5000),
    },
    serviceAccountLookup: ctx.value<boolean>('service-account-lookup') ?? true,
    requestheaderClientCaFile: str('requestheader-client-ca-file'),
    requestheaderAllowedNames: ctx.list('requestheader-allowed-names'),
    requestheaderUsernameHeaders: ctx.list('requestheader-username-headers'),
    requestheaderUidHeaders: ctx.list('requestheader-uid-headers'),
    requestheaderGroupHeaders: ctx.list('requestheader-group-headers'),
    requestheaderExtraHeadersPrefix: ctx.list('requestheader-extra-headers-prefix'),
    proxyClientCertFile: str('proxy-client-cert-file'),
    proxyClientKeyFile: str('proxy-client-key-file'),
    enableAggregatorRouting: bool('enable-aggregator-routing'),
    aggregatorRejectForwardingRedirect: ctx.value<boolean>('aggregator-reject-forwarding-redirect') ?? true,

    maxRequestsInflight: num('max-requests-inflight', 400),
    maxMutatingRequestsInflight: num('max-mutating-requests-inflight', 200),
    enablePriorityAndFairness: ctx.value<boolean>('enable-priority-and-fairness') ?? true,
    requestTimeoutMs: num('request-timeout', 60_000),
    minRequestTimeoutSeconds: num('min-request-timeout', 1800),
    maxConnectionBytesPerSec: num('max-connection-bytes-per-sec'),

    livezGracePeriodMs: num('livez-grace-period'),
    shutdownDelayMs: num('shutdown-delay-duration'),
    shutdownSendRetryAfter: bool('shutdown-send-retry-after'),
    shutdownWatchTerminationGracePeriodMs: num('shutdown-watch-termination-grace-period'),

    profiling: ctx.value<boolean>('profiling') ?? true,
    contentionProfiling: bool('contention-profiling'),
    debugSocketPath: str('debug-socket-path'),
    enableLogsHandler: bool('enable-logs-handler'),
    serviceAccountIssuers: ctx.list('service-account-issuer'),
    serviceAccountKeyFiles: ctx.list('service-account-key-file'),
    serviceAccountJwksUri: str('service-account-jwks-uri'),
    externalHostname: str('external-hostname'),
    peerAdvertiseIp: str('peer-advertise-ip'),
    peerAdvertisePort: str('peer-advertise-port'),
    peerCaFile: str('peer-ca-file'),
    coordinatedLeadership: {
      leaseDurationMs: num('coordinated-leadership-lease-duration', 15_000),
      renewDeadlineMs: num('coordinated-leadership-renew-deadline', 10_000),
      retryPeriodMs: num('coordinated-leadership-retry-period', 2_000),
    },

    disabledMetrics: ctx.list('disabled-metrics').map((name) => name.trim()),
    showHiddenMetrics: str('show-hidden-metrics-for-version') !== undefined,
    allowMetricLabels: ctx.has('allow-metric-labels') ? ctx.value<Record<string, string>>('allow-metric-labels') ?? {} : undefined,
    allowMetricLabelsManifest: str('allow-metric-labels-manifest'),

    verbosity: num('v'),
    vmodule: ctx.value<Record<string, string>>('vmodule') ?? {},
    logFlushFrequencyMs: num('log-flush-frequency', 5000),
    logTextSplitStream: bool('log-text-split-stream'),
    logTextInfoBufferSize: str('log-text-info-buffer-size'),
    runtimeConfig: ctx.value<KeyValue[]>('runtime-config') ?? [],
    emulationForwardCompatible: bool('emulation-forward-compatible'),
    runtimeConfigEmulationForwardCompatible: bool('runtime-config-emulation-forward-compatible'),
    featureGates: new Map(ctx.gates),
    admissionPlugins: admissionPluginOptions(ctx),
    admissionControlConfigFile: str('admission-control-config-file'),
    egressSelectorConfigFile: str('egress-selector-config-file'),
    tracingConfigFile: str('tracing-config-file'),
    auditPolicyFile: str('audit-policy-file'),
    auditLog: {
      ...auditBackendConfig(ctx, 'log', LOG_BATCH_DEFAULTS),
      path: str('audit-log-path'),
      format: str('audit-log-format') === 'legacy' ? 'legacy' : 'json',
      maxAgeDays: num('audit-log-maxage'),
      maxBackups: num('audit-log-maxbackup'),
      maxSizeMb: num('audit-log-maxsize'),
      compress: bool('audit-log-compress'),
    },
    auditWebhook: {
      ...auditBackendConfig(ctx, 'webhook', WEBHOOK_BATCH_DEFAULTS),
      configFile: str('audit-webhook-config-file'),
      initialBackoffMs: num('audit-webhook-initial-backoff', 10_000),
    },
    ...(ctx.index.get('nodes') ? { cluster: clusterConfig(ctx) } : {}),
  }
}

function clusterConfig(ctx: ValidationContext): ClusterConfig {
  const given = ctx.list('node-names')
  const count = ctx.value<number>('nodes') ?? 1
  const prefix = ctx.value<string>('node-name-prefix') ?? 'node-'
  const clock = ctx.value<string>('clock')
  return {
    nodeNames: given.length > 0 ? given : Array.from({ length: count }, (_, i) => `${prefix}${i}`),
    nodeCapacity: ctx.value<Record<string, string>>('node-capacity') ?? {},
    nodeLabels: ctx.value<Record<string, string>>('node-labels') ?? {},
    registerWithTaints: ctx.list('register-with-taints'),
    clusterCidr: ctx.value<string>('cluster-cidr') ?? '10.244.0.0/16',
    nodeStages: ctx.list('node-stages'),
    nodePortForwards: ctx.list('node-port-forwards'),
    nodeStatusUpdateFrequencyMs: ctx.value<number>('node-status-update-frequency') ?? 10_000,
    controllers: ctx.list('controllers'),
    leaderElect: ctx.value<boolean>('leader-elect') ?? true,
    nodeMonitorGracePeriodMs: ctx.value<number>('node-monitor-grace-period') ?? 50_000,
    hpaSyncPeriodMs: ctx.value<number>('horizontal-pod-autoscaler-sync-period') ?? 15_000,
    hpaDownscaleStabilizationMs: ctx.value<number>('horizontal-pod-autoscaler-downscale-stabilization') ?? 300_000,
    hpaTolerance: ctx.value<number>('horizontal-pod-autoscaler-tolerance') ?? 0.1,
    ...(clock ? { clockStartMs: Date.parse(clock) } : {}),
  }
}
