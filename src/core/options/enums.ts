/**
 * Closed value sets named by the spec. The option catalogue uses them for
 * `constraints.oneOf`, and validation rules import them, so each list exists once.
 */

/** `--tls-min-version` (spec 4.4). */
export const TLS_VERSIONS = ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'] as const

/** `--tls-cipher-suites`, preferred suites (spec 4.4). */
export const CIPHER_SUITES_PREFERRED = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
] as const

/** `--tls-cipher-suites`, insecure suites (spec 4.4); accepted, but a lint may warn. */
export const CIPHER_SUITES_INSECURE = [
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_RSA_WITH_RC4_128_SHA',
  'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_RSA_WITH_AES_256_CBC_SHA',
  'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_RSA_WITH_RC4_128_SHA',
] as const

/** Every suite `--tls-cipher-suites` accepts: preferred then insecure. */
export const CIPHER_SUITES = [...CIPHER_SUITES_PREFERRED, ...CIPHER_SUITES_INSECURE] as const

/** All allowed admission plugin names (spec 4.5), in the spec's order. */
export const ADMISSION_PLUGINS = [
  'AlwaysAdmit',
  'AlwaysDeny',
  'AlwaysPullImages',
  'CertificateApproval',
  'CertificateSigning',
  'CertificateSubjectRestriction',
  'ClusterTrustBundleAttest',
  'DefaultIngressClass',
  'DefaultStorageClass',
  'DefaultTolerationSeconds',
  'DenyServiceExternalIPs',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'ImagePolicyWebhook',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'NamespaceAutoProvision',
  'NamespaceExists',
  'NamespaceLifecycle',
  'NodeDeclaredFeatureValidator',
  'NodeRestriction',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'PodNodeSelector',
  'PodSecurity',
  'PodTolerationRestriction',
  'PodTopologyLabels',
  'Priority',
  'ResourceQuota',
  'RuntimeClass',
  'ServiceAccount',
  'StorageObjectInUseProtection',
  'TaintNodesByCondition',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
] as const

/** Admission plugins enabled by default (spec 4.5), in the spec's order. */
export const DEFAULT_ADMISSION_PLUGINS = [
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'TaintNodesByCondition',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'PodTopologyLabels',
  'NodeDeclaredFeatureValidator',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
] as const

/** `--authorization-mode` plug-ins (spec 5, case-sensitive). */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const

/** `--oidc-signing-algs` (spec 5). */
export const OIDC_SIGNING_ALGS = [
  'RS256',
  'RS384',
  'RS512',
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
] as const

/** Review versions exchanged with the token and authorization webhooks (spec 2.3, 9.6). */
export const WEBHOOK_VERSIONS = ['v1', 'v1beta1'] as const

/** `--audit-log-mode`, `--audit-webhook-mode` (spec 4.7). */
export const AUDIT_MODES = ['batch', 'blocking', 'blocking-strict'] as const

/** `--audit-log-format` (spec 4.7). */
export const AUDIT_LOG_FORMATS = ['legacy', 'json'] as const

/** `--storage-media-type` (spec 4.6). */
export const STORAGE_MEDIA_TYPES = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
] as const

/** `--endpoint-reconciler-type` (spec 4.4); `master-count` is deprecated. */
export const ENDPOINT_RECONCILER_TYPES = ['master-count', 'lease', 'none'] as const

/** `--logging-format` (spec 4.8: only `text` is permitted). */
export const LOGGING_FORMATS = ['text'] as const

/** Client `--profile` (spec 4.3). */
export const CLIENT_PROFILES = [
  'none',
  'cpu',
  'heap',
  'goroutine',
  'threadcreate',
  'block',
  'mutex',
  'trace',
] as const

/** `patch --type` (spec 4.3). */
export const PATCH_TYPES = ['json', 'merge', 'strategic'] as const

/** `patch --dry-run` (spec 4.3); a bare `--dry-run` means `unchanged`. */
export const PATCH_DRY_RUN_MODES = ['none', 'server', 'client', 'unchanged'] as const

/**
 * `patch --output` formats (spec 4.3). The template formats take their argument after `=`
 * (`jsonpath={.metadata.name}`, `go-template-file=t.tmpl`), so a check compares the text
 * before the first `=`.
 */
export const PATCH_OUTPUT_FORMATS = [
  'json',
  'yaml',
  'kyaml',
  'name',
  'go-template',
  'go-template-file',
  'template',
  'templatefile',
  'jsonpath',
  'jsonpath-as-json',
  'jsonpath-file',
] as const
