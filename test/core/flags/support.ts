/**
 * Shared material of the `client flags validate` tests: the base command lines B and H of the
 * research notes (section 6), helpers to vary them, and a table-driven checker that asserts a
 * validation report against exact expected messages and rule ids.
 *
 * The expected strings are copied from the research notes and the spec, with the product's
 * renames applied (etcd -> store, kubelet -> nodeagent, kube -> core, the program in messages
 * is "client server start"); tests never read outside the repository at run time.
 */
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'

import type { ValidationTarget } from '../../../src/core/flags/context.js'
import type { Finding, Phase } from '../../../src/core/flags/finding.js'
import { loadConfigFileParsers } from '../../../src/core/flags/rules/config-files.js'
import { type ValidationReport, validateServerCommandLine } from '../../../src/core/flags/validate.js'

// The rules that read --authentication-config and --authorization-config files need the server's parsers loaded first.
await loadConfigFileParsers()

/** B: the minimal valid core line of the reference (reference spellings `--etcd-*`). */
export const B: readonly string[] = [
  '--etcd-servers=https://127.0.0.1:2379',
  '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
  '--service-account-key-file=pki/sa.pub',
  '--service-account-signing-key-file=pki/sa.key',
]

/** B written with the product's own spellings. */
export const B_STORE: readonly string[] = B.map((a) => a.replace('--etcd-', '--store-'))

/** H: the CIS-hardened line, B plus the hardening flags (reference spellings). */
export const H: readonly string[] = [
  ...B,
  '--anonymous-auth=false',
  '--authorization-mode=Node,RBAC',
  '--enable-admission-plugins=NodeRestriction,EventRateLimit,AlwaysPullImages,DenyServiceExternalIPs',
  '--admission-control-config-file=admission.yaml',
  '--profiling=false',
  '--audit-log-path=audit.log',
  '--audit-log-maxage=30',
  '--audit-log-maxbackup=10',
  '--audit-log-maxsize=100',
  '--audit-policy-file=audit-policy.yaml',
  '--kubelet-client-certificate=pki/kubelet-client.crt',
  '--kubelet-client-key=pki/kubelet-client.key',
  '--kubelet-certificate-authority=pki/ca.crt',
  '--etcd-certfile=pki/etcd-client.crt',
  '--etcd-keyfile=pki/etcd-client.key',
  '--etcd-cafile=pki/etcd-ca.crt',
  '--tls-cert-file=pki/apiserver.crt',
  '--tls-private-key-file=pki/apiserver.key',
  '--client-ca-file=pki/ca.crt',
  '--encryption-provider-config=encryption.yaml',
  '--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  '--service-account-extend-token-expiration=false',
]

const nameOf = (token: string) => token.split('=')[0]

/** "H but X=Y": the line with that flag's value replaced (the flag must be in the line). */
export function but(base: readonly string[], ...replacements: string[]): string[] {
  let out = [...base]
  for (const r of replacements) {
    const name = nameOf(r)
    assert.ok(out.some((a) => nameOf(a) === name), `${name} is not in the base line`)
    out = out.map((a) => (nameOf(a) === name ? r : a))
  }
  return out
}

/** The line without these flags (the flags must be in the line). */
export function without(base: readonly string[], ...names: string[]): string[] {
  for (const name of names) assert.ok(base.some((a) => nameOf(a) === name), `${name} is not in the base line`)
  return base.filter((a) => !names.includes(nameOf(a)))
}

/** A fixture file of test/fixtures/flags, as an absolute path. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../../fixtures/flags/${name}`, import.meta.url))
}

export const messages = (findings: readonly Finding[]) => findings.map((f) => f.message)
export const ofSeverity = (report: ValidationReport, severity: Finding['severity']) =>
  report.findings.filter((f) => f.severity === severity && f.phase !== 'cis')

/** The CORS help text the reference appends to its --cors-allowed-origins messages. */
export const CORS_HELP =
  "List of allowed origins for CORS, comma separated. An allowed origin can be a regular expression to support subdomain matching. If this list is empty CORS will not be enabled. Please ensure each expression matches the entire hostname by anchoring to the start with '^' or including the '//' prefix, and by anchoring to the end with '$' or including the ':' port separator suffix. Examples of valid expressions are '//example\\.com(:|$)' and '^https://example\\.com(:|$)'"

export const HSTS_INVALID =
  '--strict-transport-security-directives invalid, allowed values: max-age=expireTime, includeSubDomains, preload. see https://tools.ietf.org/html/rfc6797#section-6.1 for more information'

/** Messages of the client target's notices and warnings that B-based lines always carry. */
export const CLIENT_ALWAYS_ALLOW_WARNING =
  'every authenticated request is authorized (AlwaysAllow), on all interfaces: anyone with a credential the server accepts can read and change everything'
export const REFERENCE_ANONYMOUS_RESET =
  'AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer'
export const DEFAULT_SERVICE_RANGE = 'no --service-cluster-ip-range given: 10.0.0.0/24 is used; this default is deprecated'
export const ETCD_SERVERS_ALIAS = '--etcd-servers is the reference spelling of --store-servers; it is accepted as --store-servers'

export interface Case {
  name: string
  argv: readonly string[]
  target?: ValidationTarget
  /** Whether the server would start (no errors). */
  valid: boolean
  /** Exactly the messages of the error findings, in order (default: none). */
  errors?: string[]
  /** Exactly the rule ids of the error findings, in order (default: none). */
  rules?: string[]
  /** The phase that failed first. */
  phase?: Phase
  /** What the server prints; defaults to the single error, or the errors joined as `[m1, m2]`. */
  serverMessage?: string
  /** Warnings (rule, message) that must be among the warnings. */
  warnings?: Array<[string, string]>
  /** Notices (rule, message) that must be among the notices. */
  notices?: Array<[string, string]>
  /** Rule ids that must not appear in any finding. */
  absent?: string[]
}

/** Runs one table row and asserts everything it states. */
export function check(c: Case): ValidationReport {
  const report = validateServerCommandLine(c.argv, { target: c.target ?? 'client' })
  const errors = ofSeverity(report, 'error')
  const expectedErrors = c.errors ?? []
  assert.deepEqual(messages(errors), expectedErrors, 'error messages')
  if (c.rules !== undefined || expectedErrors.length === 0) {
    assert.deepEqual(errors.map((f) => f.rule), c.rules ?? [], 'error rule ids')
  }
  assert.equal(report.valid, c.valid, 'valid')
  if (c.valid) {
    assert.equal(report.failedPhase, undefined, 'failedPhase')
    assert.equal(report.serverMessage, undefined, 'serverMessage')
  } else {
    assert.ok(c.phase !== undefined, 'an invalid case must state the failing phase')
    assert.equal(report.failedPhase, c.phase, 'failedPhase')
    // The reference prints the first parse error only, and aggregates the validate phase.
    const unique = [...new Set(expectedErrors)]
    const expectedMessage = c.serverMessage ?? (c.phase === 'validate' && unique.length > 1 ? `[${unique.join(', ')}]` : unique[0])
    assert.equal(report.serverMessage, expectedMessage, 'serverMessage')
  }
  const warnings = ofSeverity(report, 'warning').map((f) => [f.rule, f.message])
  for (const w of c.warnings ?? []) assert.ok(warnings.some(([r, m]) => r === w[0] && m === w[1]), `missing warning ${w[0]}: ${w[1]}\n got ${JSON.stringify(warnings)}`)
  const notices = ofSeverity(report, 'notice').map((f) => [f.rule, f.message])
  for (const n of c.notices ?? []) assert.ok(notices.some(([r, m]) => r === n[0] && m === n[1]), `missing notice ${n[0]}: ${n[1]}\n got ${JSON.stringify(notices)}`)
  for (const id of c.absent ?? []) {
    assert.ok(!report.findings.some((f) => f.rule === id), `rule ${id} should not fire: ${JSON.stringify(report.findings.filter((f) => f.rule === id))}`)
  }
  return report
}
