/**
 * The CIS profile (`--profile cis`): kube-bench cis-1.12 section 1.2 and 3.2.1, evaluated on the
 * effective values. Baselines and deltas from research section 6 (column "CIS"); where the
 * research gives both a kube-bench-literal and an "effective" verdict, the effective one is ours.
 * Deliberate differences: 1.2.23/1.2.26 pass when the embedded store is used (no --store-servers);
 * 1.2.28 is WARN (cannot be decided) unless the encryption config file can be read.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'mocha'

import type { CisVerdict } from '../../../src/core/flags/cis.js'
import { validateServerCommandLine } from '../../../src/core/flags/validate.js'
import { B, H, but, fixture, without } from './support.js'

const IDS = [...Array.from({ length: 30 }, (_, i) => `1.2.${i + 1}`), '3.2.1']

function verdicts(argv: readonly string[], target: 'client' | 'reference' = 'client'): Record<string, CisVerdict> {
  const report = validateServerCommandLine(argv, { target, profile: 'cis' })
  assert.ok(report.cis, 'the CIS profile ran')
  return Object.fromEntries(report.cis.map((r) => [r.id, r.verdict]))
}

function table(fail: string[], warn: string[]): Record<string, CisVerdict> {
  return Object.fromEntries(IDS.map((id) => [id, fail.includes(id) ? 'FAIL' : warn.includes(id) ? 'WARN' : 'PASS']))
}

/** Research section 6: baseline CIS verdicts for B. */
const B_FAIL = ['1.2.4', '1.2.5', '1.2.6', '1.2.7', '1.2.8', '1.2.14', '1.2.15', '1.2.16', '1.2.17', '1.2.18', '1.2.19', '1.2.23', '1.2.24', '1.2.25', '1.2.26', '1.2.30']
const B_WARN = ['1.2.1', '1.2.3', '1.2.9', '1.2.11', '1.2.20', '1.2.27', '1.2.28', '1.2.29', '3.2.1']
const B_CIS = table(B_FAIL, B_WARN)
/** H: all Automated checks pass; 1.2.20 always warns, 1.2.28 needs the file's content. */
const H_CIS = table([], ['1.2.20', '1.2.28'])

const withChanges = (base: Record<string, CisVerdict>, changes: Record<string, CisVerdict>) => ({ ...base, ...changes })

describe('flags validate --profile cis', () => {
  it('reports the 31 checks of cis-1.12 (1.2.1–1.2.30, 3.2.1) with their types', () => {
    const report = validateServerCommandLine(H, { profile: 'cis' })
    assert.deepEqual(report.cis?.map((r) => r.id), IDS)
    const manual = ['1.2.1', '1.2.3', '1.2.9', '1.2.11', '1.2.20', '1.2.27', '1.2.28', '1.2.29', '3.2.1']
    assert.deepEqual(
      Object.fromEntries(report.cis!.map((r) => [r.id, r.type])),
      Object.fromEntries(IDS.map((id) => [id, manual.includes(id) ? 'Manual' : 'Automated'])),
    )
  })

  it('B: the research baseline (FAIL 1.2.4–8, 14–19, 23–26, 30; PASS 1.2.2, 10, 12, 13, 21, 22)', () => {
    assert.deepEqual(verdicts(B), B_CIS)
  })

  it('B, reference target: the same verdicts', () => {
    assert.deepEqual(verdicts(B, 'reference'), B_CIS)
  })

  it('H: every Automated check passes; 1.2.20 and 1.2.28 warn', () => {
    assert.deepEqual(verdicts(H), H_CIS)
  })

  it('the acceptance line --anonymous-auth=true --profiling=true reports 1.2.1 (WARN) and 1.2.15 (FAIL)', () => {
    const report = validateServerCommandLine(['--anonymous-auth=true', '--profiling=true'], { profile: 'cis' })
    assert.equal(report.valid, true)
    const cis = report.findings.filter((f) => f.phase === 'cis')
    const f121 = cis.find((f) => f.rule === 'CIS-1.2.1')
    const f1215 = cis.find((f) => f.rule === 'CIS-1.2.15')
    assert.equal(f121?.message, 'CIS 1.2.1 WARN: --anonymous-auth is true (check: anonymous requests are disabled)')
    assert.equal(f121?.severity, 'warning')
    assert.equal(f121?.remedy, 'add --anonymous-auth=false')
    assert.equal(f1215?.message, 'CIS 1.2.15 FAIL: --profiling is true (check: profiling is disabled)')
    assert.equal(f1215?.remedy, 'add --profiling=false')
    // Without a store the embedded one is used, so the store TLS checks pass.
    const v = verdicts(['--anonymous-auth=true', '--profiling=true'])
    assert.equal(v['1.2.23'], 'PASS')
    assert.equal(v['1.2.26'], 'PASS')
    assert.equal(v['1.2.22'], 'FAIL')
  })

  it('passing checks produce no finding', () => {
    const report = validateServerCommandLine(H, { profile: 'cis' })
    assert.deepEqual(
      report.findings.filter((f) => f.phase === 'cis').map((f) => f.rule),
      ['CIS-1.2.20', 'CIS-1.2.28'],
    )
  })

  it('runs only when asked', () => {
    assert.equal(validateServerCommandLine(H).cis, undefined)
  })

  it('does not run when the line cannot be parsed', () => {
    const report = validateServerCommandLine([...H, '--secure-port=abc'], { profile: 'cis' })
    assert.equal(report.cis, undefined)
  })

  it('still runs when a validation phase fails, and does not change the verdict', () => {
    const report = validateServerCommandLine([...H, '--secure-port=0'], { profile: 'cis' })
    assert.equal(report.valid, false)
    assert.deepEqual(Object.fromEntries(report.cis!.map((r) => [r.id, r.verdict])), H_CIS)
    assert.equal(validateServerCommandLine(B, { profile: 'cis' }).valid, true)
  })

  const deltas: Array<{ name: string; argv: string[]; expected: Record<string, CisVerdict> }> = [
    { name: 'T43 H with an RC4 suite: WARN 1.2.29', argv: but(H, '--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA'), expected: withChanges(H_CIS, { '1.2.29': 'WARN' }) },
    { name: 'T44 B with a serving cert but no key: 1.2.24 still FAIL', argv: [...B, '--tls-cert-file=pki/apiserver.crt'], expected: B_CIS },
    { name: 'T52 B with a negative maxage: 1.2.17 FAIL', argv: [...B, '--audit-log-maxage=-1'], expected: B_CIS },
    {
      name: 'T53 B with an audit log path: 1.2.16 PASS',
      argv: [...B, '--audit-log-path=audit.log', '--audit-log-maxage=-1', '--audit-log-maxbackup=-1', '--audit-log-maxsize=-1'],
      expected: withChanges(B_CIS, { '1.2.16': 'PASS' }),
    },
    { name: 'T64 store only: B plus 1.2.22 FAIL', argv: ['--etcd-servers=https://127.0.0.1:2379'], expected: withChanges(B_CIS, { '1.2.22': 'FAIL' }) },
    { name: 'T69 B with Node,RBAC,RBAC: 1.2.6–1.2.8 PASS', argv: [...B, '--authorization-mode=Node,RBAC,RBAC'], expected: withChanges(B_CIS, { '1.2.6': 'PASS', '1.2.7': 'PASS', '1.2.8': 'PASS' }) },
    { name: 'T70 B with mode rbac: 1.2.6 PASS, 1.2.8 FAIL (case)', argv: [...B, '--authorization-mode=rbac'], expected: withChanges(B_CIS, { '1.2.6': 'PASS' }) },
    {
      name: 'T74 H with an empty mode (effective: AlwaysAllow): 1.2.6–1.2.8 FAIL',
      argv: but(H, '--authorization-mode='),
      expected: withChanges(H_CIS, { '1.2.6': 'FAIL', '1.2.7': 'FAIL', '1.2.8': 'FAIL' }),
    },
    { name: 'T75 H plus AlwaysAllow appended (effective): 1.2.6 FAIL', argv: [...H, '--authorization-mode=AlwaysAllow'], expected: withChanges(H_CIS, { '1.2.6': 'FAIL' }) },
    {
      name: 'T79 H with ServiceAccount and NamespaceLifecycle disabled: FAIL 1.2.12, 1.2.13',
      argv: [...H, '--disable-admission-plugins=ServiceAccount,NamespaceLifecycle'],
      expected: withChanges(H_CIS, { '1.2.12': 'FAIL', '1.2.13': 'FAIL' }),
    },
    {
      name: 'T80 H with AlwaysAdmit: FAIL 1.2.10',
      argv: but(H, '--enable-admission-plugins=NodeRestriction,EventRateLimit,AlwaysPullImages,DenyServiceExternalIPs,AlwaysAdmit'),
      expected: withChanges(H_CIS, { '1.2.10': 'FAIL' }),
    },
    {
      name: 'T81 H without NodeRestriction: FAIL 1.2.14',
      argv: but(H, '--enable-admission-plugins=EventRateLimit,AlwaysPullImages,DenyServiceExternalIPs'),
      expected: withChanges(H_CIS, { '1.2.14': 'FAIL' }),
    },
    { name: 'T107 H with anonymous auth and bare --profiling: WARN 1.2.1, FAIL 1.2.15', argv: but(H, '--anonymous-auth=true', '--profiling'), expected: withChanges(H_CIS, { '1.2.1': 'WARN', '1.2.15': 'FAIL' }) },
    { name: 'T108 H with a token file: FAIL 1.2.2', argv: [...H, '--token-auth-file=tokens.csv'], expected: withChanges(H_CIS, { '1.2.2': 'FAIL' }) },
    { name: 'T109 H with service-account lookup off: FAIL 1.2.21', argv: [...H, '--service-account-lookup=false'], expected: withChanges(H_CIS, { '1.2.21': 'FAIL' }) },
    { name: 'T110 H with maxage 7: FAIL 1.2.17', argv: but(H, '--audit-log-maxage=7'), expected: withChanges(H_CIS, { '1.2.17': 'FAIL' }) },
    { name: 'T111 H with "--audit-log-maxage 30" (effective): PASS', argv: [...without(H, '--audit-log-maxage'), '--audit-log-maxage', '30'], expected: H_CIS },
    { name: 'T112 H with --anonymous_auth=false (effective): PASS', argv: [...without(H, '--anonymous-auth'), '--anonymous_auth=false'], expected: H_CIS },
    { name: 'T113 H with token expiration extension on: FAIL 1.2.30', argv: but(H, '--service-account-extend-token-expiration=true'), expected: withChanges(H_CIS, { '1.2.30': 'FAIL' }) },
    { name: 'T114 H without the node-agent CA: FAIL 1.2.5', argv: without(H, '--kubelet-certificate-authority'), expected: withChanges(H_CIS, { '1.2.5': 'FAIL' }) },
    {
      name: 'T115 H without the store client TLS flags but with store servers: FAIL 1.2.23, 1.2.26',
      argv: without(H, '--etcd-certfile', '--etcd-keyfile', '--etcd-cafile'),
      expected: withChanges(H_CIS, { '1.2.23': 'FAIL', '1.2.26': 'FAIL' }),
    },
    {
      name: 'T115 variant: no store servers at all (embedded store): 1.2.23 and 1.2.26 PASS (our documented behaviour)',
      argv: without(H, '--etcd-servers', '--etcd-certfile', '--etcd-keyfile', '--etcd-cafile'),
      expected: H_CIS,
    },
    { name: 'T116 H with RBAC only: FAIL 1.2.7', argv: but(H, '--authorization-mode=RBAC'), expected: withChanges(H_CIS, { '1.2.7': 'FAIL' }) },
    { name: 'T117 H without an audit policy: WARN 3.2.1', argv: without(H, '--audit-policy-file'), expected: withChanges(H_CIS, { '3.2.1': 'WARN' }) },
    {
      name: 'T118 H without encryption config and cipher suites: WARN 1.2.27, 1.2.28, 1.2.29',
      argv: without(H, '--encryption-provider-config', '--tls-cipher-suites'),
      expected: withChanges(H_CIS, { '1.2.27': 'WARN', '1.2.28': 'WARN', '1.2.29': 'WARN' }),
    },
    {
      name: 'H with a readable aescbc encryption config: 1.2.28 PASS',
      argv: but(H, `--encryption-provider-config=${fixture('encryption-aescbc.yaml')}`),
      expected: withChanges(H_CIS, { '1.2.28': 'PASS' }),
    },
    {
      name: 'H with --authorization-config: 1.2.6–1.2.8 cannot be decided (WARN)',
      argv: [...without(H, '--authorization-mode'), '--authorization-config=authz.yaml'],
      expected: withChanges(H_CIS, { '1.2.6': 'WARN', '1.2.7': 'WARN', '1.2.8': 'WARN' }),
    },
  ]
  for (const d of deltas) it(d.name, () => assert.deepEqual(verdicts(d.argv), d.expected))

  const details: Array<[string, readonly string[], string, string]> = [
    ['1.2.28 names a weak first provider', but(H, `--encryption-provider-config=${fixture('encryption-identity.yaml')}`), '1.2.28', 'the first provider is identity'],
    ['1.2.28 says when the file cannot be read', H, '1.2.28', 'cannot be decided from the command line; check it by hand'],
    ['1.2.29 names a CBC suite as weak', but(H, '--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA'), '1.2.29', 'weak suites: TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA'],
    ['1.2.29 marks an insecure suite', but(H, '--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA'), '1.2.29', 'weak suites: TLS_RSA_WITH_RC4_128_SHA (insecure)'],
    ['1.2.17 gives the value found', but(H, '--audit-log-maxage=7'), '1.2.17', '--audit-log-maxage is 7; at least 30 is required'],
    ['1.2.24 names the missing flags', B, '1.2.24', '--tls-cert-file and --tls-private-key-file not set'],
  ]
  for (const [name, argv, id, detail] of details) {
    it(`detail: ${name}`, () => {
      const result = validateServerCommandLine(argv, { profile: 'cis' }).cis?.find((r) => r.id === id)
      assert.equal(result?.detail, detail)
      assert.equal(result?.verdict, result?.type === 'Manual' ? 'WARN' : 'FAIL')
    })
  }
})
