/**
 * One line per server option of the catalogue: a valid value other than its default, in the
 * form the reference documents, for each run of the server that gives it. Options that exclude
 * one another are in different runs:
 * - `flags`: the embedded store; authentication, authorization and admission by options
 *   (--oidc-*, --authorization-mode with ABAC and Webhook, --enable/--disable-admission-plugins),
 *   the serving certificates and service-account keys from files;
 * - `files`: the same by configuration files (--authentication-config, --authorization-config),
 *   the deprecated --admission-control, the external token signer instead of the key files,
 *   emulation of the previous minor version, and what is turned off rather than tuned;
 * - `etcd`: the store on a real etcd over TLS, with peers and coordinated leader election.
 * The options that ApiServer.start gives on every command line are marked `harness`.
 */
import type { OptionFiles } from './option-files.js'
import { SNI_NAME } from './option-files.js'

export const RUNS = ['flags', 'files', 'etcd'] as const
export type RunName = (typeof RUNS)[number]

/** The store the `etcd` run uses: its client URL and the TLS files of its clients. */
export interface EtcdEndpoint {
  url: string
  ca: string
  clientCert: string
  clientKey: string
}

/** What a value is made from: the written files, and the etcd of the `etcd` run. */
export interface RunInputs extends OptionFiles {
  etcd?: EtcdEndpoint
  /** A free port for --peer-advertise-port. */
  peerPort: number
}

/** One value, or several (the option given once for each). */
type Value = string | readonly string[]

export interface OptionValue {
  runs: Partial<Record<RunName, (inputs: RunInputs) => Value>>
  /** ApiServer.start gives the option on every command line (the value it gives). */
  harness?: string
  /** Why the value is the default: the reference accepts no other, or the server refuses it. */
  whyDefault?: string
}

const text = (value: Value) => (): Value => value

function etcdOf(inputs: RunInputs): EtcdEndpoint {
  if (!inputs.etcd) throw new Error('the etcd run needs its etcd started first')
  return inputs.etcd
}

export const OPTION_VALUES: Readonly<Record<string, OptionValue>> = {
  // Serving.
  'advertise-address': { runs: { flags: text('127.0.0.1') } },
  'aggregator-reject-forwarding-redirect': { runs: { flags: text('false') } },
  'allow-privileged': { runs: { flags: text('true') } },
  'bind-address': { runs: {}, harness: '127.0.0.1' },
  'secure-port': { runs: {}, harness: 'a free port' },
  'cert-dir': { runs: {}, harness: 'a temporary directory' },
  'write-kubeconfig': { runs: {}, harness: 'a file in a temporary directory' },
  'merge-kubeconfig': { runs: { files: (f) => `${f.dir}/merged.kubeconfig` } },
  'tls-cert-file': { runs: { flags: (f) => f.servingCert } },
  'tls-private-key-file': { runs: { flags: (f) => f.servingKey } },
  'tls-sni-cert-key': { runs: { flags: (f) => `${f.sniCert},${f.sniKey}:${SNI_NAME}` } },
  // TLS 1.3 where no cipher suites are set: they configure TLS 1.2 and below only.
  'tls-min-version': { runs: { files: text('VersionTLS13') } },
  'tls-cipher-suites': { runs: { flags: text('TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384') } },
  'strict-transport-security-directives': { runs: { flags: text('max-age=31536000,includeSubDomains,preload') } },
  'cors-allowed-origins': { runs: { flags: text('//every-option\\.test(:|$),^https://localhost(:|$)') } },
  'disable-http2-serving': { runs: { files: text('true') } },
  'http2-max-streams-per-connection': { runs: { flags: text('500') } },
  'goaway-chance': { runs: { flags: text('0.001') } },
  'permit-address-sharing': { runs: { flags: text('true') } },
  'permit-port-sharing': { runs: { flags: text('true') } },
  'external-hostname': { runs: { flags: text('every-option.test') } },
  'enable-aggregator-routing': { runs: { flags: text('true') } },
  'enable-logs-handler': { runs: { flags: text('true') } },
  // Off in a run of its own: --contention-profiling has no effect without profiling.
  profiling: { runs: { files: text('false') } },
  'contention-profiling': { runs: { flags: text('true') } },
  'debug-socket-path': { runs: { flags: (f) => f.debugSocket } },
  'egress-selector-config-file': { runs: { flags: (f) => f.egressSelectorConfig } },
  'tracing-config-file': { runs: { flags: (f) => f.tracingConfig } },
  'endpoint-reconciler-type': { runs: { flags: text('none') } },
  'core-service-node-port': { runs: { flags: text('30443') } },
  'service-cluster-ip-range': { runs: { flags: text('10.96.0.0/12') } },
  'service-node-port-range': { runs: { flags: text('30000-31999') } },
  'enable-garbage-collector': { runs: { files: text('false') } },
  'delete-collection-workers': { runs: { flags: text('2') } },
  'default-not-ready-toleration-seconds': { runs: { flags: text('120') } },
  'default-unreachable-toleration-seconds': { runs: { flags: text('90') } },
  // Off in a run of its own: sizes are ignored without the watch cache.
  'watch-cache': { runs: { files: text('false') } },
  'watch-cache-sizes': { runs: { flags: text('events#0,leases.coordination.k8s.io#0') } },
  'nodeagent-certificate-authority': { runs: { flags: (f) => f.servingCa } },
  'nodeagent-client-certificate': { runs: { flags: (f) => f.nodeAgentClientCert } },
  'nodeagent-client-key': { runs: { flags: (f) => f.nodeAgentClientKey } },
  'nodeagent-preferred-address-types': { runs: { flags: text('InternalIP,Hostname') } },
  'nodeagent-timeout': { runs: { flags: text('10s') } },
  'coordinated-leadership-lease-duration': { runs: { etcd: text('20s') } },
  'coordinated-leadership-renew-deadline': { runs: { etcd: text('12s') } },
  'coordinated-leadership-retry-period': { runs: { etcd: text('3s') } },
  'peer-advertise-ip': { runs: { etcd: text('127.0.0.1') } },
  'peer-advertise-port': { runs: { etcd: (f) => String(f.peerPort) } },
  'peer-ca-file': { runs: { etcd: (f) => f.servingCa } },
  // The etcd run's mixed-version proxy presents it to its peers, as the aggregator to extension servers.
  'proxy-client-cert-file': { runs: { flags: (f) => f.proxyClientCert, etcd: (f) => f.proxyClientCert } },
  'proxy-client-key-file': { runs: { flags: (f) => f.proxyClientKey, etcd: (f) => f.proxyClientKey } },
  'shutdown-delay-duration': { runs: { flags: text('2s') } },
  'shutdown-send-retry-after': { runs: { flags: text('true') } },
  'shutdown-watch-termination-grace-period': { runs: { flags: text('3s') } },
  'livez-grace-period': { runs: { flags: text('5s') } },

  // Admission: the deprecated list excludes the two others.
  'admission-control': { runs: { files: text('NamespaceLifecycle,LimitRanger,ServiceAccount,DefaultTolerationSeconds,ResourceQuota') } },
  'enable-admission-plugins': { runs: { flags: text('AlwaysPullImages,DenyServiceExternalIPs') } },
  'disable-admission-plugins': { runs: { flags: text('DefaultStorageClass') } },
  'admission-control-config-file': { runs: { flags: (f) => f.admissionConfig } },

  // Storage.
  'storage-backend': { runs: { etcd: text('etcd3') }, whyDefault: 'etcd3 is the only backend' },
  'storage-media-type': { runs: { flags: text('application/json'), etcd: text('application/yaml') } },
  'storage-initialization-timeout': { runs: { etcd: text('2m0s') } },
  'store-servers': { runs: { etcd: (f) => etcdOf(f).url } },
  'store-servers-overrides': { runs: { etcd: (f) => `/events#${etcdOf(f).url}` } },
  'store-prefix': { runs: { etcd: text('/every-option') } },
  'store-cafile': { runs: { etcd: (f) => etcdOf(f).ca } },
  'store-certfile': { runs: { etcd: (f) => etcdOf(f).clientCert } },
  'store-keyfile': { runs: { etcd: (f) => etcdOf(f).clientKey } },
  'store-compaction-interval': { runs: { etcd: text('10m0s') } },
  'store-count-metric-poll-period': { runs: { etcd: text('30s') } },
  'store-db-metric-poll-interval': { runs: { etcd: text('15s') } },
  'store-healthcheck-timeout': { runs: { etcd: text('5s') } },
  'store-readycheck-timeout': { runs: { etcd: text('5s') } },
  'event-ttl': { runs: { flags: text('30m0s') } },
  'encryption-provider-config': { runs: { flags: (f) => f.encryptionConfig } },
  'encryption-provider-config-automatic-reload': { runs: { flags: text('true') } },
  'data-dir': { runs: {}, harness: 'a temporary directory' },

  // Audit: the log backend batched in one run, the webhook batched in the other (batch options
  // apply in batch mode only).
  'audit-policy-file': { runs: { flags: (f) => f.auditPolicy, files: (f) => f.auditPolicy } },
  'audit-log-path': { runs: { flags: (f) => f.auditLog } },
  'audit-webhook-config-file': { runs: { flags: (f) => f.auditWebhookKubeconfig, files: (f) => f.auditWebhookKubeconfig } },
  'audit-log-mode': { runs: { flags: text('batch') } },
  'audit-log-format': { runs: { flags: text('legacy') } },
  'audit-log-version': { runs: { flags: text('audit.k8s.io/v1') }, whyDefault: 'the reference allows audit.k8s.io/v1 only' },
  'audit-log-batch-buffer-size': { runs: { flags: text('5000') } },
  'audit-log-batch-max-size': { runs: { flags: text('20') } },
  'audit-log-batch-max-wait': { runs: { flags: text('2s') } },
  'audit-log-batch-throttle-burst': { runs: { flags: text('20') } },
  'audit-log-batch-throttle-enable': { runs: { flags: text('true') } },
  'audit-log-batch-throttle-qps': { runs: { flags: text('5') } },
  'audit-log-truncate-enabled': { runs: { flags: text('true') } },
  'audit-log-truncate-max-batch-size': { runs: { flags: text('5242880') } },
  'audit-log-truncate-max-event-size': { runs: { flags: text('51200') } },
  'audit-webhook-mode': { runs: { flags: text('blocking') } },
  'audit-webhook-version': { runs: { flags: text('audit.k8s.io/v1') }, whyDefault: 'the reference allows audit.k8s.io/v1 only' },
  'audit-webhook-batch-buffer-size': { runs: { files: text('5000') } },
  'audit-webhook-batch-max-size': { runs: { files: text('100') } },
  'audit-webhook-batch-max-wait': { runs: { files: text('5s') } },
  'audit-webhook-batch-throttle-burst': { runs: { files: text('20') } },
  'audit-webhook-batch-throttle-enable': { runs: { files: text('false') } },
  'audit-webhook-batch-throttle-qps': { runs: { files: text('5') } },
  'audit-webhook-initial-backoff': { runs: { files: text('5s') } },
  'audit-webhook-truncate-enabled': { runs: { files: text('true') } },
  'audit-webhook-truncate-max-batch-size': { runs: { files: text('5242880') } },
  'audit-webhook-truncate-max-event-size': { runs: { files: text('51200') } },
  'audit-log-compress': { runs: { flags: text('true') } },
  'audit-log-maxage': { runs: { flags: text('7') } },
  'audit-log-maxbackup': { runs: { flags: text('3') } },
  'audit-log-maxsize': { runs: { flags: text('50') } },

  // Observability.
  v: { runs: { flags: text('2') } },
  'log-flush-frequency': { runs: { flags: text('2s') } },
  'logging-format': { runs: { flags: text('text') }, whyDefault: 'text is the only format of the reference without the JSON component' },
  'log-text-info-buffer-size': { runs: { flags: text('64Ki') } },
  'log-text-split-stream': { runs: { flags: text('true') } },
  vmodule: { runs: { flags: text('audit*=3,admission*=4') } },
  // pflag's stringToString: a value with one `=` is one pair, so the key keeps its comma.
  'allow-metric-labels': { runs: { flags: text('apiserver_request_total,verb=GET,LIST,WATCH') } },
  'allow-metric-labels-manifest': { runs: { flags: (f) => f.metricLabelsManifest } },
  'disabled-metrics': { runs: { flags: text('apiserver_longrunning_requests') } },
  'show-hidden-metrics-for-version': { runs: { flags: text('1.34') } },
  'feature-gates': {
    runs: {
      flags: text('LoggingAlphaOptions=true,RemoteRequestHeaderUID=true'),
      files: text('ExternalServiceAccountTokenSigner=true'),
      etcd: text('UnknownVersionInteroperabilityProxy=true,StorageVersionAPI=true,CoordinatedLeaderElection=true'),
    },
  },
  'emulated-version': { runs: { files: text('1.34') } },
  'min-compatibility-version': { runs: { files: text('1.33') } },
  'emulation-forward-compatible': { runs: { files: text('true') } },
  'runtime-config': {
    runs: {
      flags: text('storage.k8s.io/v1alpha1=true'),
      // The storage version API for peers, LeaseCandidate for coordinated leader election.
      etcd: text('internal.apiserver.k8s.io/v1alpha1=true,coordination.k8s.io/v1beta1=true'),
    },
  },
  'runtime-config-emulation-forward-compatible': { runs: { files: text('true') } },

  // Authentication: the --oidc-* options exclude --authentication-config.
  'anonymous-auth': { runs: { flags: text('false') } },
  'client-ca-file': { runs: { flags: (f) => f.clientCa } },
  'token-auth-file': { runs: { flags: (f) => f.tokenFile } },
  'enable-bootstrap-token-auth': { runs: { flags: text('true') } },
  'oidc-issuer-url': { runs: { flags: (f) => f.endpoints.oidcIssuerUrl } },
  'oidc-client-id': { runs: { flags: text('every-option') } },
  'oidc-ca-file': { runs: { flags: (f) => f.oidcCa } },
  'oidc-username-claim': { runs: { flags: text('email') } },
  'oidc-username-prefix': { runs: { flags: text('oidc:') } },
  'oidc-groups-claim': { runs: { flags: text('groups') } },
  'oidc-groups-prefix': { runs: { flags: text('oidc:') } },
  'oidc-required-claim': { runs: { flags: text('hd=every-option.test') } },
  'oidc-signing-algs': { runs: { flags: text('RS256,ES256') } },
  'authentication-config': { runs: { files: (f) => f.authenticationConfig } },
  'authentication-token-webhook-config-file': { runs: { flags: (f) => f.authenticationWebhookKubeconfig } },
  'authentication-token-webhook-cache-ttl': { runs: { flags: text('30s') } },
  'authentication-token-webhook-version': { runs: { flags: text('v1') } },
  'api-audiences': { runs: { flags: text('https://every-option.test,every-option') } },
  'service-account-issuer': { runs: { flags: text(['https://every-option.test', 'https://previous.every-option.test']) } },
  'service-account-key-file': { runs: { flags: (f) => f.serviceAccountPublicKey } },
  'service-account-signing-key-file': { runs: { flags: (f) => f.serviceAccountKey } },
  // The test's gRPC signer listens there during the `files` run (every-option.e2e.test.ts).
  'service-account-signing-endpoint': { runs: { files: (f) => f.signingEndpoint } },
  'service-account-lookup': { runs: { flags: text('false') } },
  'service-account-max-token-expiration': { runs: { flags: text('2h0m0s') } },
  'service-account-extend-token-expiration': { runs: { flags: text('false') } },
  'service-account-jwks-uri': { runs: { flags: text('https://every-option.test/openid/v1/jwks') } },
  'requestheader-client-ca-file': { runs: { flags: (f) => f.frontProxyCa } },
  'requestheader-allowed-names': { runs: { flags: text('front-proxy-client') } },
  'requestheader-username-headers': { runs: { flags: text('X-Remote-User') } },
  'requestheader-group-headers': { runs: { flags: text('X-Remote-Group') } },
  'requestheader-extra-headers-prefix': { runs: { flags: text('X-Remote-Extra-') } },
  'requestheader-uid-headers': { runs: { flags: text('X-Remote-Uid') } },

  // Authorization: --authorization-mode and the webhook options exclude --authorization-config.
  'authorization-mode': { runs: { flags: text('Node,RBAC,ABAC,Webhook') } },
  'authorization-config': { runs: { files: (f) => f.authorizationConfig } },
  'authorization-policy-file': { runs: { flags: (f) => f.authorizationPolicy } },
  'authorization-webhook-config-file': { runs: { flags: (f) => f.authorizationWebhookKubeconfig } },
  'authorization-webhook-cache-authorized-ttl': { runs: { flags: text('1m0s') } },
  'authorization-webhook-cache-unauthorized-ttl': { runs: { flags: text('10s') } },
  'authorization-webhook-version': { runs: { flags: text('v1') } },

  // Limits.
  'max-requests-inflight': { runs: { flags: text('800') } },
  'max-mutating-requests-inflight': { runs: { flags: text('300') } },
  'enable-priority-and-fairness': { runs: { files: text('false') } },
  'request-timeout': { runs: { flags: text('2m0s') } },
  'min-request-timeout': { runs: { flags: text('900') } },
  'max-connection-bytes-per-sec': { runs: { flags: text('10485760') } },
  'lease-reuse-duration-seconds': { runs: { flags: text('30') } },
}

/** The options a run gives, each with its value(s) as written on the command line. */
export function runOptions(run: RunName, inputs: RunInputs): Array<{ name: string; values: readonly string[] }> {
  const out: Array<{ name: string; values: readonly string[] }> = []
  for (const [name, entry] of Object.entries(OPTION_VALUES)) {
    const make = entry.runs[run]
    if (!make) continue
    const value = make(inputs)
    out.push({ name, values: typeof value === 'string' ? [value] : value })
  }
  return out
}

/** The command-line arguments of a run (those ApiServer.start adds itself excepted). */
export function runArgs(run: RunName, inputs: RunInputs): string[] {
  return runOptions(run, inputs).flatMap(({ name, values }) => values.map((value) => `--${name}=${value}`))
}
