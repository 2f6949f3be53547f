import assert from 'node:assert/strict'

import {
  ADMISSION_OPTIONS,
  AUDIT_OPTIONS,
  AUTHENTICATION_OPTIONS,
  AUTHORIZATION_OPTIONS,
  CLIENT_OPTIONS,
  LIMITS_OPTIONS,
  OBSERVABILITY_OPTIONS,
  PATCH_OPTIONS,
  SERVER_OPTIONS,
  SERVING_OPTIONS,
  STORAGE_OPTIONS,
} from '../../../src/core/options/catalogue/index.js'
import {
  ADMISSION_PLUGINS,
  CIPHER_SUITES,
  CIPHER_SUITES_INSECURE,
  CIPHER_SUITES_PREFERRED,
  DEFAULT_ADMISSION_PLUGINS,
  PATCH_OUTPUT_FORMATS,
} from '../../../src/core/options/enums.js'
import { FEATURE_GATES, featureGate } from '../../../src/core/options/feature-gates.js'
import type { OptionSection, OptionSpec, OptionType } from '../../../src/core/options/types.js'

/**
 * Server option names transcribed from the spec tables of sections 4.4 to 4.8, 5 and 8
 * (`--audit-{log,webhook}-X` expanded, `n/a` and "log only" cells left out; `-h`, `--version`
 * left out because the CLI framework owns them).
 */
const SPEC_SERVER_NAMES: readonly string[] = [
  'admission-control', 'admission-control-config-file', 'advertise-address',
  'aggregator-reject-forwarding-redirect', 'allow-metric-labels', 'allow-metric-labels-manifest',
  'allow-privileged', 'anonymous-auth', 'api-audiences', 'audit-log-batch-buffer-size',
  'audit-log-batch-max-size', 'audit-log-batch-max-wait', 'audit-log-batch-throttle-burst',
  'audit-log-batch-throttle-enable', 'audit-log-batch-throttle-qps', 'audit-log-compress',
  'audit-log-format', 'audit-log-maxage', 'audit-log-maxbackup', 'audit-log-maxsize',
  'audit-log-mode', 'audit-log-path', 'audit-log-truncate-enabled',
  'audit-log-truncate-max-batch-size', 'audit-log-truncate-max-event-size', 'audit-log-version',
  'audit-policy-file', 'audit-webhook-batch-buffer-size', 'audit-webhook-batch-max-size',
  'audit-webhook-batch-max-wait', 'audit-webhook-batch-throttle-burst',
  'audit-webhook-batch-throttle-enable', 'audit-webhook-batch-throttle-qps',
  'audit-webhook-config-file', 'audit-webhook-initial-backoff', 'audit-webhook-mode',
  'audit-webhook-truncate-enabled', 'audit-webhook-truncate-max-batch-size',
  'audit-webhook-truncate-max-event-size', 'audit-webhook-version', 'authentication-config',
  'authentication-token-webhook-cache-ttl', 'authentication-token-webhook-config-file',
  'authentication-token-webhook-version', 'authorization-config', 'authorization-mode',
  'authorization-policy-file', 'authorization-webhook-cache-authorized-ttl',
  'authorization-webhook-cache-unauthorized-ttl', 'authorization-webhook-config-file',
  'authorization-webhook-version', 'bind-address', 'cert-dir', 'client-ca-file',
  'contention-profiling', 'coordinated-leadership-lease-duration',
  'coordinated-leadership-renew-deadline', 'coordinated-leadership-retry-period',
  'core-service-node-port', 'cors-allowed-origins', 'debug-socket-path',
  'default-not-ready-toleration-seconds', 'default-unreachable-toleration-seconds',
  'delete-collection-workers', 'disable-admission-plugins', 'disable-http2-serving',
  'disabled-metrics', 'egress-selector-config-file', 'emulated-version',
  'emulation-forward-compatible', 'enable-admission-plugins', 'enable-aggregator-routing',
  'enable-bootstrap-token-auth', 'enable-garbage-collector', 'enable-logs-handler',
  'enable-priority-and-fairness', 'encryption-provider-config',
  'encryption-provider-config-automatic-reload', 'endpoint-reconciler-type', 'event-ttl',
  'external-hostname', 'feature-gates', 'goaway-chance', 'http2-max-streams-per-connection',
  'lease-reuse-duration-seconds', 'livez-grace-period', 'log-flush-frequency',
  'log-text-info-buffer-size', 'log-text-split-stream', 'logging-format',
  'max-connection-bytes-per-sec', 'max-mutating-requests-inflight', 'max-requests-inflight',
  'min-compatibility-version', 'min-request-timeout', 'nodeagent-certificate-authority',
  'nodeagent-client-certificate', 'nodeagent-client-key', 'nodeagent-preferred-address-types',
  'nodeagent-timeout', 'oidc-ca-file', 'oidc-client-id', 'oidc-groups-claim', 'oidc-groups-prefix',
  'oidc-issuer-url', 'oidc-required-claim', 'oidc-signing-algs', 'oidc-username-claim',
  'oidc-username-prefix', 'peer-advertise-ip', 'peer-advertise-port', 'peer-ca-file',
  'permit-address-sharing', 'permit-port-sharing', 'profiling', 'proxy-client-cert-file',
  'proxy-client-key-file', 'request-timeout', 'requestheader-allowed-names',
  'requestheader-client-ca-file', 'requestheader-extra-headers-prefix',
  'requestheader-group-headers', 'requestheader-uid-headers', 'requestheader-username-headers',
  'runtime-config', 'runtime-config-emulation-forward-compatible', 'secure-port',
  'service-account-extend-token-expiration', 'service-account-issuer', 'service-account-jwks-uri',
  'service-account-key-file', 'service-account-lookup', 'service-account-max-token-expiration',
  'service-account-signing-endpoint', 'service-account-signing-key-file',
  'service-cluster-ip-range', 'service-node-port-range', 'show-hidden-metrics-for-version',
  'shutdown-delay-duration', 'shutdown-send-retry-after',
  'shutdown-watch-termination-grace-period', 'storage-backend', 'storage-initialization-timeout',
  'storage-media-type', 'store-cafile', 'store-certfile', 'store-compaction-interval',
  'store-count-metric-poll-period', 'store-db-metric-poll-interval', 'store-healthcheck-timeout',
  'store-keyfile', 'store-prefix', 'store-readycheck-timeout', 'store-servers',
  'store-servers-overrides', 'strict-transport-security-directives', 'tls-cert-file',
  'tls-cipher-suites', 'tls-min-version', 'tls-private-key-file', 'tls-sni-cert-key',
  'token-auth-file', 'tracing-config-file', 'v', 'vmodule', 'watch-cache', 'watch-cache-sizes',

]

/** General client options of spec 4.3, without `--version`. */
const SPEC_CLIENT_NAMES: readonly string[] = [
  'as', 'as-group', 'as-uid', 'as-user-extra', 'cache-dir', 'certificate-authority',
  'client-certificate', 'client-key', 'cluster', 'context', 'disable-compression',
  'insecure-skip-tls-verify', 'kubeconfig', 'clientrc', 'match-server-version', 'namespace',
  'password', 'profile', 'profile-output', 'request-timeout', 'server',
  'storage-driver-buffer-duration', 'storage-driver-db', 'storage-driver-host',
  'storage-driver-password', 'storage-driver-secure', 'storage-driver-table',
  'storage-driver-user', 'tls-server-name', 'token', 'user', 'username', 'warnings-as-errors',
]

/** `patch` options of spec 4.3, without `-h, --help`. */
const SPEC_PATCH_NAMES: readonly string[] = [
  'allow-missing-template-keys', 'dry-run', 'field-manager', 'filename', 'kustomize', 'local',
  'output', 'patch', 'patch-file', 'recursive', 'show-managed-fields', 'subresource', 'template',
  'type',
]

/** Spec name -> reference spelling, from the spec's renaming convention. */
const EXPECTED_ALIASES: Readonly<Record<string, string>> = {
  'store-servers': 'etcd-servers',
  'store-prefix': 'etcd-prefix',
  'store-cafile': 'etcd-cafile',
  'store-certfile': 'etcd-certfile',
  'store-keyfile': 'etcd-keyfile',
  'store-compaction-interval': 'etcd-compaction-interval',
  'store-count-metric-poll-period': 'etcd-count-metric-poll-period',
  'store-db-metric-poll-interval': 'etcd-db-metric-poll-interval',
  'store-healthcheck-timeout': 'etcd-healthcheck-timeout',
  'store-readycheck-timeout': 'etcd-readycheck-timeout',
  'store-servers-overrides': 'etcd-servers-overrides',
  'nodeagent-certificate-authority': 'kubelet-certificate-authority',
  'nodeagent-client-certificate': 'kubelet-client-certificate',
  'nodeagent-client-key': 'kubelet-client-key',
  'nodeagent-preferred-address-types': 'kubelet-preferred-address-types',
  'nodeagent-timeout': 'kubelet-timeout',
  'core-service-node-port': 'kubernetes-service-node-port',
}

/** Defaults the spec (or the reference's --help, for the spec's placeholders) gives. */
const EXPECTED_DEFAULTS: Readonly<Record<string, [OptionType, string | undefined]>> = {
  'secure-port': ['int', '6443'],
  'bind-address': ['ip', '0.0.0.0'],
  'advertise-address': ['ip', undefined],
  'cert-dir': ['string', undefined],
  'service-node-port-range': ['portRange', '30000-32767'],
  'aggregator-reject-forwarding-redirect': ['bool', 'true'],
  'allow-privileged': ['bool', 'false'],
  'disable-http2-serving': ['bool', 'false'],
  'enable-aggregator-routing': ['bool', undefined],
  'profiling': ['bool', 'true'],
  'anonymous-auth': ['bool', 'true'],
  'service-account-lookup': ['bool', 'true'],
  'service-account-extend-token-expiration': ['bool', 'true'],
  'watch-cache': ['bool', 'true'],
  'enable-garbage-collector': ['bool', 'true'],
  'enable-priority-and-fairness': ['bool', 'true'],
  'delete-collection-workers': ['int', '1'],
  'default-not-ready-toleration-seconds': ['int', '300'],
  'default-unreachable-toleration-seconds': ['int', '300'],
  'event-ttl': ['duration', '1h0m0s'],
  'store-prefix': ['string', '/registry'],
  'store-compaction-interval': ['duration', '5m0s'],
  'store-count-metric-poll-period': ['duration', '1m0s'],
  'store-db-metric-poll-interval': ['duration', '30s'],
  'store-healthcheck-timeout': ['duration', '2s'],
  'store-readycheck-timeout': ['duration', '2s'],
  'storage-backend': ['string', undefined],
  'storage-media-type': ['string', 'application/vnd.kubernetes.protobuf'],
  'storage-initialization-timeout': ['duration', '1m0s'],
  'endpoint-reconciler-type': ['string', 'lease'],
  'nodeagent-preferred-address-types': ['strings', 'Hostname,InternalDNS,InternalIP,ExternalDNS,ExternalIP'],
  'nodeagent-timeout': ['duration', '5s'],
  'coordinated-leadership-lease-duration': ['duration', '15s'],
  'coordinated-leadership-renew-deadline': ['duration', '10s'],
  'coordinated-leadership-retry-period': ['duration', '2s'],
  'logging-format': ['string', 'text'],
  'log-flush-frequency': ['duration', '5s'],
  'log-text-info-buffer-size': ['quantity', undefined],
  'allow-metric-labels': ['stringToString', '[]'],
  'emulated-version': ['versions', 'core=1.35'],
  'min-compatibility-version': ['versions', 'core=1.34'],
  'feature-gates': ['featureGates', undefined],
  'runtime-config': ['keyValues', undefined],
  'vmodule': ['moduleLevels', undefined],
  'tls-sni-cert-key': ['namedCertKey', undefined],
  'oidc-required-claim': ['mapStringString', undefined],
  'oidc-username-claim': ['string', 'sub'],
  'oidc-signing-algs': ['strings', 'RS256'],
  'service-account-issuer': ['stringArray', undefined],
  'authentication-token-webhook-cache-ttl': ['duration', '2m0s'],
  'authentication-token-webhook-version': ['string', 'v1beta1'],
  'authorization-mode': ['strings', undefined],
  'authorization-webhook-version': ['string', 'v1beta1'],
  'authorization-webhook-cache-authorized-ttl': ['duration', '5m0s'],
  'authorization-webhook-cache-unauthorized-ttl': ['duration', '30s'],
  'max-requests-inflight': ['int', '400'],
  'max-mutating-requests-inflight': ['int', '200'],
  'request-timeout': ['duration', '1m0s'],
  'min-request-timeout': ['int', '1800'],
  'max-connection-bytes-per-sec': ['int', undefined],
  'lease-reuse-duration-seconds': ['int', '60'],
  'goaway-chance': ['float', undefined],
  'http2-max-streams-per-connection': ['int', undefined],
  'audit-log-mode': ['string', 'blocking'],
  'audit-webhook-mode': ['string', 'batch'],
  'audit-log-format': ['string', 'json'],
  'audit-log-version': ['string', 'audit.k8s.io/v1'],
  'audit-webhook-version': ['string', 'audit.k8s.io/v1'],
  'audit-log-batch-buffer-size': ['int', '10000'],
  'audit-webhook-batch-buffer-size': ['int', '10000'],
  'audit-log-batch-max-size': ['int', '1'],
  'audit-webhook-batch-max-size': ['int', '400'],
  'audit-log-batch-max-wait': ['duration', undefined],
  'audit-webhook-batch-max-wait': ['duration', '30s'],
  'audit-log-batch-throttle-burst': ['int', undefined],
  'audit-webhook-batch-throttle-burst': ['int', '15'],
  'audit-log-batch-throttle-enable': ['bool', undefined],
  'audit-webhook-batch-throttle-enable': ['bool', 'true'],
  'audit-log-batch-throttle-qps': ['float', undefined],
  'audit-webhook-batch-throttle-qps': ['float', '10'],
  'audit-webhook-initial-backoff': ['duration', '10s'],
  'audit-log-truncate-max-batch-size': ['int', '10485760'],
  'audit-webhook-truncate-max-batch-size': ['int', '10485760'],
  'audit-log-truncate-max-event-size': ['int', '102400'],
  'audit-webhook-truncate-max-event-size': ['int', '102400'],
  'audit-log-maxage': ['int', undefined],
  'audit-log-maxbackup': ['int', undefined],
  'audit-log-maxsize': ['int', undefined],
}

const SERVER_SECTIONS: readonly OptionSection[] = [
  'serving', 'admission', 'storage', 'audit', 'observability', 'authentication', 'authorization',
  'limits',
]

const LIST_KINDS: ReadonlySet<OptionType> = new Set<OptionType>([
  'strings', 'stringArray', 'stringToString', 'mapStringString', 'featureGates', 'versions', 'keyValues',
  'namedCertKey', 'moduleLevels',
])

const DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$|^0$/

function byName(list: readonly OptionSpec[], name: string): OptionSpec {
  const found = list.find((o) => o.name === name)
  assert.ok(found, `option --${name} is missing`)
  return found
}

function duplicates(values: readonly string[]): string[] {
  const seen = new Set<string>()
  const dup = new Set<string>()
  for (const v of values) {
    if (seen.has(v)) dup.add(v)
    seen.add(v)
  }
  return [...dup]
}

/** A basic check that a default is well-formed for its type. */
function defaultParses(type: OptionType, value: string): boolean {
  switch (type) {
    case 'int':
      return /^-?\d+$/.test(value)
    case 'uint':
      return /^\d+$/.test(value)
    case 'float':
      return value.trim() !== '' && Number.isFinite(Number(value))
    case 'bool':
      return value === 'true' || value === 'false'
    case 'duration':
      return DURATION.test(value)
    case 'ip':
      return value === '' || /^(\d{1,3}\.){3}\d{1,3}$/.test(value) || value.includes(':')
    case 'portRange':
      return /^\d+(-\d+|\+\d+)?$/.test(value)
    case 'quantity':
      return /^\d+(\.\d+)?([KMGTPE]i?|[mkMGTPE])?$/.test(value)
    case 'stringToString':
      return value === '[]' || value.split(',').every((kv) => kv.includes('='))
    case 'versions':
      return value.split(',').every((item) => /^([a-z0-9-]+=)?v?\d+\.\d+$/.test(item))
    case 'string':
    case 'strings':
    case 'stringArray':
    case 'mapStringString':
    case 'featureGates':
    case 'keyValues':
    case 'namedCertKey':
    case 'moduleLevels':
      return true
  }
}

function checkWellFormed(list: readonly OptionSpec[]): void {
  for (const o of list) {
    assert.match(o.name, /^[a-z0-9]+(-[a-z0-9]+)*$/, `bad name ${o.name}`)
    if (o.short !== undefined) assert.match(o.short, /^[A-Za-z]$/, `bad short for --${o.name}`)
    assert.ok(o.help.length > 0, `--${o.name} has no help`)
    assert.ok(!/[\r\n]/.test(o.help), `--${o.name} help spans several lines`)
    if (o.default !== undefined) {
      assert.ok(defaultParses(o.type, o.default), `--${o.name} default ${JSON.stringify(o.default)} is not a valid ${o.type}`)
    }
    if (LIST_KINDS.has(o.type)) assert.equal(o.repeatable, true, `--${o.name} (${o.type}) must be repeatable`)
    else assert.equal(o.repeatable, undefined, `--${o.name} (${o.type}) is a scalar, repeatable must be unset`)
    const c = o.constraints
    if (c?.oneOf !== undefined) {
      assert.ok(o.type === 'string' || o.type === 'strings', `--${o.name}: oneOf on a ${o.type}`)
      assert.ok(c.oneOf.length > 0, `--${o.name}: empty oneOf`)
      assert.deepEqual(duplicates(c.oneOf), [], `--${o.name}: oneOf repeats values`)
      if (o.default !== undefined) {
        const items = o.type === 'strings' ? o.default.split(',') : [o.default]
        for (const item of items) assert.ok(c.oneOf.includes(item), `--${o.name}: default ${item} not in oneOf`)
      }
    }
    if (c?.min !== undefined || c?.max !== undefined) {
      assert.ok(['int', 'uint', 'float', 'duration'].includes(o.type), `--${o.name}: min/max on a ${o.type}`)
      if (c.min !== undefined && c.max !== undefined) assert.ok(c.min <= c.max, `--${o.name}: min > max`)
      if (o.default !== undefined && o.type !== 'duration') {
        const n = Number(o.default)
        if (c.min !== undefined) assert.ok(n >= c.min, `--${o.name}: default below min`)
        if (c.max !== undefined) assert.ok(n <= c.max, `--${o.name}: default above max`)
      }
    }
  }
}

function checkNamespace(list: readonly OptionSpec[]): void {
  const names = list.map((o) => o.name)
  const aliases = list.flatMap((o) => o.aliases ?? [])
  const shorts = list.flatMap((o) => (o.short === undefined ? [] : [o.short]))
  assert.deepEqual(duplicates(names), [], 'duplicate option names')
  assert.deepEqual(duplicates(aliases), [], 'duplicate aliases')
  assert.deepEqual(duplicates(shorts), [], 'duplicate short names')
  const nameSet = new Set(names)
  for (const a of aliases) assert.ok(!nameSet.has(a), `alias ${a} is also an option name`)
  for (const reserved of ['help', 'version']) {
    assert.ok(!nameSet.has(reserved) && !aliases.includes(reserved), `--${reserved} belongs to the framework`)
  }
  assert.ok(!shorts.includes('h'), '-h belongs to the framework')
}

describe('option catalogue', () => {
  describe('server options', () => {
    it('has no duplicate names, aliases or short names, and no alias equal to a name', () => {
      checkNamespace(SERVER_OPTIONS)
    })

    it('keeps every entry well-formed (defaults, constraints, repeatable)', () => {
      checkWellFormed(SERVER_OPTIONS)
    })

    it('concatenates every server file, each with its own section', () => {
      const files: Array<[OptionSection, readonly OptionSpec[]]> = [
        ['serving', SERVING_OPTIONS],
        ['admission', ADMISSION_OPTIONS],
        ['storage', STORAGE_OPTIONS],
        ['audit', AUDIT_OPTIONS],
        ['observability', OBSERVABILITY_OPTIONS],
        ['authentication', AUTHENTICATION_OPTIONS],
        ['authorization', AUTHORIZATION_OPTIONS],
        ['limits', LIMITS_OPTIONS],
      ]
      assert.equal(SERVER_OPTIONS.length, files.reduce((n, [, l]) => n + l.length, 0))
      for (const [section, list] of files) {
        for (const o of list) assert.equal(o.section, section, `--${o.name} is in the ${section} file`)
      }
      for (const o of SERVER_OPTIONS) assert.ok(SERVER_SECTIONS.includes(o.section))
    })

    it('lists every option named in the spec tables, and nothing else except product-only ones', () => {
      const names = new Set(SERVER_OPTIONS.map((o) => o.name))
      const missing = SPEC_SERVER_NAMES.filter((n) => !names.has(n))
      assert.deepEqual(missing, [], 'spec options missing from the catalogue')
      const spec = new Set(SPEC_SERVER_NAMES)
      const extra = SERVER_OPTIONS.filter((o) => !spec.has(o.name))
      assert.deepEqual(extra.map((o) => o.name), ['write-kubeconfig', 'merge-kubeconfig', 'data-dir'])
      for (const o of extra) assert.equal(o.productOnly, true)
      for (const o of SERVER_OPTIONS.filter((x) => spec.has(x.name))) assert.equal(o.productOnly, undefined, `--${o.name}`)
    })

    it('gives the renamed options their reference spellings as aliases, and no other aliases', () => {
      const withAliases = SERVER_OPTIONS.filter((o) => o.aliases !== undefined)
      assert.deepEqual(
        Object.fromEntries(withAliases.map((o) => [o.name, [...(o.aliases ?? [])]])),
        Object.fromEntries(Object.entries(EXPECTED_ALIASES).map(([k, v]) => [k, [v]])),
      )
    })

    it('uses the spec types and defaults', () => {
      for (const [name, [type, def]] of Object.entries(EXPECTED_DEFAULTS)) {
        const o = byName(SERVER_OPTIONS, name)
        assert.equal(o.type, type, `--${name} type`)
        assert.equal(o.default, def, `--${name} default`)
      }
    })

    it('has the spot-checked shapes', () => {
      const port = byName(SERVER_OPTIONS, 'secure-port')
      assert.deepEqual(port.constraints, { min: 1, max: 65535 })
      assert.deepEqual(byName(SERVER_OPTIONS, 'goaway-chance').constraints, { min: 0, max: 0.02 })
      assert.deepEqual(byName(SERVER_OPTIONS, 'store-servers').aliases, ['etcd-servers'])
      const v = byName(SERVER_OPTIONS, 'v')
      assert.equal(v.short, 'v')
      assert.equal(v.type, 'int')
      assert.equal(byName(SERVER_OPTIONS, 'tls-cipher-suites').constraints?.oneOf, CIPHER_SUITES)
      assert.equal(byName(SERVER_OPTIONS, 'enable-admission-plugins').constraints?.oneOf, ADMISSION_PLUGINS)
      assert.equal(byName(SERVER_OPTIONS, 'disable-admission-plugins').constraints?.oneOf, ADMISSION_PLUGINS)
      assert.equal(byName(SERVER_OPTIONS, 'admission-control').constraints?.oneOf, ADMISSION_PLUGINS)
      assert.deepEqual(byName(SERVER_OPTIONS, 'storage-media-type').constraints?.oneOf, [
        'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf',
      ])
      assert.deepEqual(byName(SERVER_OPTIONS, 'endpoint-reconciler-type').constraints?.oneOf, ['master-count', 'lease', 'none'])
      assert.deepEqual(byName(SERVER_OPTIONS, 'logging-format').constraints?.oneOf, ['text'])
      assert.deepEqual(byName(SERVER_OPTIONS, 'authorization-mode').constraints?.oneOf, [
        'AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node',
      ])
      assert.equal(byName(SERVER_OPTIONS, 'storage-backend').constraints, undefined)
      assert.equal(byName(SERVER_OPTIONS, 'data-dir').section, 'storage')
    })

    it('marks exactly the deprecated options', () => {
      const deprecated = Object.fromEntries(
        SERVER_OPTIONS.filter((o) => o.deprecated !== undefined).map((o) => [o.name, o.deprecated]),
      )
      assert.deepEqual(deprecated, {
        'admission-control': 'use --enable-admission-plugins or --disable-admission-plugins instead. Will be removed in a future version.',
        'enable-logs-handler': 'This flag will be removed in v1.19',
      })
    })

    it('expands the audit table into log and webhook options, respecting the n/a cells', () => {
      const names = new Set(AUDIT_OPTIONS.map((o) => o.name))
      assert.equal(AUDIT_OPTIONS.length, 31)
      for (const n of ['audit-webhook-format', 'audit-log-initial-backoff', 'audit-webhook-compress',
        'audit-webhook-maxage', 'audit-webhook-maxbackup', 'audit-webhook-maxsize', 'audit-webhook-path',
        'audit-log-config-file']) {
        assert.ok(!names.has(n), `--${n} must not exist`)
      }
      for (const n of ['audit-log-format', 'audit-webhook-initial-backoff', 'audit-log-compress',
        'audit-log-maxage', 'audit-log-maxbackup', 'audit-log-maxsize', 'audit-policy-file']) {
        assert.ok(names.has(n), `--${n} must exist`)
      }
      const shared = ['mode', 'version', 'batch-buffer-size', 'batch-max-size', 'batch-max-wait',
        'batch-throttle-burst', 'batch-throttle-enable', 'batch-throttle-qps', 'truncate-enabled',
        'truncate-max-batch-size', 'truncate-max-event-size']
      for (const x of shared) {
        const log = byName(AUDIT_OPTIONS, `audit-log-${x}`)
        const hook = byName(AUDIT_OPTIONS, `audit-webhook-${x}`)
        assert.equal(log.type, hook.type, `--audit-*-${x} types differ`)
        assert.deepEqual(log.constraints, hook.constraints, `--audit-*-${x} constraints differ`)
      }
      assert.deepEqual(byName(AUDIT_OPTIONS, 'audit-log-mode').constraints?.oneOf, ['batch', 'blocking', 'blocking-strict'])
      assert.deepEqual(byName(AUDIT_OPTIONS, 'audit-log-format').constraints?.oneOf, ['legacy', 'json'])
    })

    it('keeps product names out of help texts', () => {
      const allowed = /etcd3|application\/vnd\.kubernetes\.protobuf/g
      for (const o of [...SERVER_OPTIONS, ...CLIENT_OPTIONS, ...PATCH_OPTIONS]) {
        const text = o.help.replace(allowed, '')
        assert.doesNotMatch(text, /kubernetes|kubelet|kubectl|\bkube\b|etcd|cadvisor|influx/i, `--${o.name}: ${o.help}`)
      }
    })
  })

  describe('client and patch options', () => {
    it('lists the spec options in their own sections', () => {
      assert.deepEqual(CLIENT_OPTIONS.map((o) => o.name).sort(), [...SPEC_CLIENT_NAMES].sort())
      assert.deepEqual(PATCH_OPTIONS.map((o) => o.name).sort(), [...SPEC_PATCH_NAMES].sort())
      for (const o of CLIENT_OPTIONS) assert.equal(o.section, 'client')
      for (const o of PATCH_OPTIONS) assert.equal(o.section, 'patch')
    })

    it('has no clashes between the client and patch options, which share one command line', () => {
      checkNamespace([...CLIENT_OPTIONS, ...PATCH_OPTIONS])
    })

    it('keeps every entry well-formed', () => {
      checkWellFormed([...CLIENT_OPTIONS, ...PATCH_OPTIONS])
    })

    it('has the spec shorts, defaults and value sets', () => {
      const shorts = Object.fromEntries(
        [...CLIENT_OPTIONS, ...PATCH_OPTIONS].filter((o) => o.short !== undefined).map((o) => [o.short, o.name]),
      )
      assert.deepEqual(shorts, { n: 'namespace', s: 'server', f: 'filename', k: 'kustomize', o: 'output', p: 'patch', R: 'recursive' })
      assert.equal(byName(CLIENT_OPTIONS, 'request-timeout').default, '0')
      assert.equal(byName(CLIENT_OPTIONS, 'request-timeout').type, 'string')
      assert.equal(byName(CLIENT_OPTIONS, 'profile').default, 'none')
      assert.equal(byName(CLIENT_OPTIONS, 'storage-driver-buffer-duration').default, '1m0s')
      assert.equal(byName(PATCH_OPTIONS, 'type').default, 'strategic')
      assert.deepEqual(byName(PATCH_OPTIONS, 'type').constraints?.oneOf, ['json', 'merge', 'strategic'])
      assert.deepEqual(byName(PATCH_OPTIONS, 'dry-run').constraints?.oneOf, ['none', 'server', 'client', 'unchanged'])
      assert.equal(byName(PATCH_OPTIONS, 'allow-missing-template-keys').default, 'true')
      assert.equal(byName(PATCH_OPTIONS, 'field-manager').default, 'client-patch')
      assert.equal(byName(PATCH_OPTIONS, 'filename').type, 'strings')
      assert.equal(PATCH_OUTPUT_FORMATS.length, 11)
    })
  })

  describe('enums', () => {
    it('keeps the default admission plugins within the allowed ones', () => {
      assert.equal(ADMISSION_PLUGINS.length, 37)
      assert.equal(DEFAULT_ADMISSION_PLUGINS.length, 23)
      assert.deepEqual(duplicates(ADMISSION_PLUGINS), [])
      assert.deepEqual(duplicates(DEFAULT_ADMISSION_PLUGINS), [])
      const all: readonly string[] = ADMISSION_PLUGINS
      for (const p of DEFAULT_ADMISSION_PLUGINS) assert.ok(all.includes(p), p)
    })

    it('keeps the preferred and insecure cipher suites apart', () => {
      assert.equal(CIPHER_SUITES_PREFERRED.length, 15)
      assert.equal(CIPHER_SUITES_INSECURE.length, 12)
      assert.deepEqual(duplicates(CIPHER_SUITES), [])
    })
  })

  describe('feature gates', () => {
    it('transcribes the spec lists', () => {
      assert.deepEqual(duplicates(FEATURE_GATES.map((g) => g.name)), [])
      const count = (stage: string, def: boolean): number =>
        FEATURE_GATES.filter((g) => g.stage === stage && g.default === def).length
      assert.equal(count('alpha', false), 54)
      assert.equal(count('alpha', true), 0)
      assert.equal(count('beta', false), 14)
      assert.equal(count('beta', true), 73)
    })

    it('looks gates up by exact name', () => {
      assert.deepEqual(featureGate('AllAlpha'), { name: 'AllAlpha', stage: 'alpha', default: false })
      assert.deepEqual(featureGate('AllBeta'), { name: 'AllBeta', stage: 'beta', default: false })
      assert.deepEqual(featureGate('NodeAgentInUserNamespace'), { name: 'NodeAgentInUserNamespace', stage: 'alpha', default: false })
      assert.deepEqual(featureGate('APIResponseCompression'), { name: 'APIResponseCompression', stage: 'beta', default: true })
      assert.deepEqual(featureGate('WatchList'), { name: 'WatchList', stage: 'beta', default: true })
      assert.equal(featureGate('KubeletInUserNamespace'), undefined)
      assert.equal(featureGate('allalpha'), undefined)
      assert.equal(featureGate('NotARealGate'), undefined)
    })
  })
})
