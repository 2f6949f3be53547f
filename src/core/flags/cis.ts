/**
 * The CIS benchmark's API server checks (kube-bench's cis-1.12, section 1.2, and 3.2.1),
 * evaluated on the effective values: what the server will actually run with, defaults
 * included, not the literal text kube-bench greps for.
 */
import { loadYaml } from '../util/yaml.js'
import { readFileSync } from 'node:fs'
import { CIPHER_SUITES_INSECURE } from '../options/enums.js'
import type { ValidationContext } from './context.js'
import { type Finding, finding } from './finding.js'

export type CisVerdict = 'PASS' | 'FAIL' | 'WARN'

export interface CisResult {
  id: string
  title: string
  /** Automated checks FAIL when they fail; Manual ones only WARN. */
  type: 'Automated' | 'Manual'
  verdict: CisVerdict
  /** Why, when it does not pass (or why it passes without applying). */
  detail?: string
  remedy: string
  finding?: Finding
}

interface Check {
  id: string
  title: string
  type: 'Automated' | 'Manual'
  remedy: string
  /** true = pass; a string = fails for that reason; undefined = cannot be told from the flags. */
  test(ctx: ValidationContext): true | string | undefined
}

const present = (ctx: ValidationContext, ...names: string[]): true | string => {
  const missing = names.filter((n) => !ctx.text(n))
  return missing.length === 0 ? true : `${missing.map((n) => `--${n}`).join(' and ')} not set`
}

const embeddedStore = (ctx: ValidationContext) => ctx.list('store-servers').length === 0

/** Strong suites: the spec's preferred list without the CBC ones. */
const STRONG_SUITES = new Set([
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
])

function authorizationModes(ctx: ValidationContext): string[] | undefined {
  if (ctx.has('authorization-config')) return undefined
  const modes = ctx.list('authorization-mode')
  return modes.length === 0 ? ['AlwaysAllow'] : modes
}

function atLeast(ctx: ValidationContext, name: string, min: number): true | string {
  const value = ctx.value<number>(name)
  return value !== undefined && value >= min ? true : `--${name} is ${value ?? 'not set'}; at least ${min} is required`
}

function firstEncryptionProvider(file: string): string | undefined {
  try {
    const config = loadYaml(readFileSync(file, 'utf8')) as { resources?: Array<{ providers?: Array<Record<string, unknown>> }> }
    const provider = config?.resources?.[0]?.providers?.[0]
    return provider ? Object.keys(provider)[0] : undefined
  } catch {
    return undefined
  }
}

const CHECKS: Check[] = [
  { id: '1.2.1', title: 'anonymous requests are disabled', type: 'Manual', remedy: 'add --anonymous-auth=false',
    test: (ctx) => (ctx.value<boolean>('anonymous-auth') === false ? true : '--anonymous-auth is true') },
  { id: '1.2.2', title: 'no static token file', type: 'Automated', remedy: 'remove --token-auth-file and use another authentication method',
    test: (ctx) => (ctx.text('token-auth-file') ? '--token-auth-file is set' : true) },
  { id: '1.2.3', title: 'DenyServiceExternalIPs admission plugin is enabled', type: 'Manual', remedy: 'add DenyServiceExternalIPs to --enable-admission-plugins',
    test: (ctx) => (ctx.list('enable-admission-plugins').includes('DenyServiceExternalIPs') ? true : 'DenyServiceExternalIPs is not enabled') },
  { id: '1.2.4', title: 'node-agent client certificate and key are set', type: 'Automated', remedy: 'set --nodeagent-client-certificate and --nodeagent-client-key',
    test: (ctx) => present(ctx, 'nodeagent-client-certificate', 'nodeagent-client-key') },
  { id: '1.2.5', title: 'node-agent serving CA is set', type: 'Automated', remedy: 'set --nodeagent-certificate-authority to the node agents\' CA bundle',
    test: (ctx) => present(ctx, 'nodeagent-certificate-authority') },
  { id: '1.2.6', title: 'authorization is not AlwaysAllow', type: 'Automated', remedy: 'set e.g. --authorization-mode=Node,RBAC',
    test: (ctx) => { const m = authorizationModes(ctx); return m === undefined ? undefined : m.includes('AlwaysAllow') ? 'AlwaysAllow is an authorization mode' : true } },
  { id: '1.2.7', title: 'authorization includes Node', type: 'Automated', remedy: 'include Node in --authorization-mode',
    test: (ctx) => { const m = authorizationModes(ctx); return m === undefined ? undefined : m.includes('Node') ? true : 'Node is not an authorization mode' } },
  { id: '1.2.8', title: 'authorization includes RBAC', type: 'Automated', remedy: 'include RBAC in --authorization-mode',
    test: (ctx) => { const m = authorizationModes(ctx); return m === undefined ? undefined : m.includes('RBAC') ? true : 'RBAC is not an authorization mode' } },
  { id: '1.2.9', title: 'EventRateLimit admission plugin is enabled', type: 'Manual', remedy: 'enable EventRateLimit and configure its limits in --admission-control-config-file',
    test: (ctx) => (ctx.list('enable-admission-plugins').includes('EventRateLimit') ? true : 'EventRateLimit is not enabled') },
  { id: '1.2.10', title: 'AlwaysAdmit admission plugin is not enabled', type: 'Automated', remedy: 'remove AlwaysAdmit from --enable-admission-plugins',
    test: (ctx) => (ctx.list('enable-admission-plugins').includes('AlwaysAdmit') ? 'AlwaysAdmit is enabled' : true) },
  { id: '1.2.11', title: 'AlwaysPullImages admission plugin is enabled', type: 'Manual', remedy: 'add AlwaysPullImages to --enable-admission-plugins',
    test: (ctx) => (ctx.list('enable-admission-plugins').includes('AlwaysPullImages') ? true : 'AlwaysPullImages is not enabled') },
  { id: '1.2.12', title: 'ServiceAccount admission plugin is active', type: 'Automated', remedy: 'remove ServiceAccount from --disable-admission-plugins',
    test: (ctx) => (ctx.list('disable-admission-plugins').includes('ServiceAccount') ? 'ServiceAccount is disabled' : true) },
  { id: '1.2.13', title: 'NamespaceLifecycle admission plugin is active', type: 'Automated', remedy: 'remove NamespaceLifecycle from --disable-admission-plugins',
    test: (ctx) => (ctx.list('disable-admission-plugins').includes('NamespaceLifecycle') ? 'NamespaceLifecycle is disabled' : true) },
  { id: '1.2.14', title: 'NodeRestriction admission plugin is enabled', type: 'Automated', remedy: 'add NodeRestriction to --enable-admission-plugins (with Node authorization)',
    test: (ctx) => (ctx.list('enable-admission-plugins').includes('NodeRestriction') ? true : 'NodeRestriction is not enabled') },
  { id: '1.2.15', title: 'profiling is disabled', type: 'Automated', remedy: 'add --profiling=false',
    test: (ctx) => (ctx.value<boolean>('profiling') === false ? true : '--profiling is true') },
  { id: '1.2.16', title: 'audit log path is set', type: 'Automated', remedy: 'set --audit-log-path=<file>',
    test: (ctx) => present(ctx, 'audit-log-path') },
  { id: '1.2.17', title: 'audit logs are kept at least 30 days', type: 'Automated', remedy: 'set --audit-log-maxage=30 or more',
    test: (ctx) => atLeast(ctx, 'audit-log-maxage', 30) },
  { id: '1.2.18', title: 'at least 10 audit log backups are kept', type: 'Automated', remedy: 'set --audit-log-maxbackup=10 or more',
    test: (ctx) => atLeast(ctx, 'audit-log-maxbackup', 10) },
  { id: '1.2.19', title: 'audit logs rotate at 100 MB or more', type: 'Automated', remedy: 'set --audit-log-maxsize=100 or more',
    test: (ctx) => atLeast(ctx, 'audit-log-maxsize', 100) },
  { id: '1.2.20', title: 'request timeout is appropriate', type: 'Manual', remedy: 'set --request-timeout only where needed (e.g. 300s)',
    test: () => undefined },
  { id: '1.2.21', title: 'service-account lookup is on', type: 'Automated', remedy: 'remove --service-account-lookup or set it to true',
    test: (ctx) => (ctx.value<boolean>('service-account-lookup') === false ? '--service-account-lookup is false' : true) },
  { id: '1.2.22', title: 'service-account verification key is set', type: 'Automated', remedy: 'set --service-account-key-file=<public key>',
    test: (ctx) => present(ctx, 'service-account-key-file') },
  { id: '1.2.23', title: 'store client certificate and key are set', type: 'Automated', remedy: 'set --store-certfile and --store-keyfile for TLS to the store',
    test: (ctx) => (embeddedStore(ctx) ? true : present(ctx, 'store-certfile', 'store-keyfile')) },
  { id: '1.2.24', title: 'serving certificate and key are set', type: 'Automated', remedy: 'set --tls-cert-file and --tls-private-key-file',
    test: (ctx) => present(ctx, 'tls-cert-file', 'tls-private-key-file') },
  { id: '1.2.25', title: 'client CA is set', type: 'Automated', remedy: 'set --client-ca-file',
    test: (ctx) => present(ctx, 'client-ca-file') },
  { id: '1.2.26', title: 'store CA is set', type: 'Automated', remedy: 'set --store-cafile',
    test: (ctx) => (embeddedStore(ctx) ? true : present(ctx, 'store-cafile')) },
  { id: '1.2.27', title: 'encryption at rest is configured', type: 'Manual', remedy: 'write an encryption configuration and set --encryption-provider-config',
    test: (ctx) => present(ctx, 'encryption-provider-config') },
  { id: '1.2.28', title: 'the encryption provider is strong', type: 'Manual', remedy: 'make aescbc, kms or secretbox the first provider',
    test: (ctx) => {
      const file = ctx.text('encryption-provider-config')
      if (!file) return '--encryption-provider-config not set'
      const first = firstEncryptionProvider(file)
      if (first === undefined) return undefined
      return ['aescbc', 'kms', 'secretbox'].includes(first) ? true : `the first provider is ${first}`
    } },
  { id: '1.2.29', title: 'only strong TLS cipher suites', type: 'Manual', remedy: 'restrict --tls-cipher-suites to GCM and CHACHA20 suites',
    test: (ctx) => {
      const suites = ctx.list('tls-cipher-suites')
      if (suites.length === 0) return '--tls-cipher-suites not set'
      const weak = suites.filter((s) => !STRONG_SUITES.has(s))
      return weak.length === 0 ? true : `weak suites: ${weak.join(', ')}${weak.some((w) => (CIPHER_SUITES_INSECURE as readonly string[]).includes(w)) ? ' (insecure)' : ''}`
    } },
  { id: '1.2.30', title: 'service-account token expiration is not extended', type: 'Automated', remedy: 'add --service-account-extend-token-expiration=false',
    test: (ctx) => (ctx.value<boolean>('service-account-extend-token-expiration') === false ? true : '--service-account-extend-token-expiration is true') },
  { id: '3.2.1', title: 'a minimal audit policy exists', type: 'Manual', remedy: 'write an audit policy and set --audit-policy-file',
    test: (ctx) => present(ctx, 'audit-policy-file') },
]

export function runCisProfile(ctx: ValidationContext): CisResult[] {
  return CHECKS.map((check) => {
    const outcome = check.test(ctx)
    const base = { id: check.id, title: check.title, type: check.type, remedy: check.remedy }
    if (outcome === true) return { ...base, verdict: 'PASS' as const }
    const verdict: CisVerdict = outcome === undefined || check.type === 'Manual' ? 'WARN' : 'FAIL'
    const detail = outcome ?? 'cannot be decided from the command line; check it by hand'
    return {
      ...base,
      verdict,
      detail,
      finding: finding('warning', `CIS-${check.id}`, 'cis', `CIS ${check.id} ${verdict}: ${detail} (check: ${check.title})`, { remedy: check.remedy }),
    }
  })
}
