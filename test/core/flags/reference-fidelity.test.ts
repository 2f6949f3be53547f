/**
 * Places where the validator once differed from the reference, each pinned by the
 * reference's behaviour (research notes, the reference's source, Go's standard library):
 * --service-cluster-ip-range as one comma-separated string; pflag's stringToString reading
 * a single `=` as one pair; `_` in Go number literals; HSTS items compared untrimmed with one
 * message for an empty item; Go's url.Parse causes; --service-account-issuer as a StringArray;
 * Go's regexp error texts; CRLF continuation lines in --file; sorted overlapping plugins.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, it } from 'mocha'

import { commandLineFromFile, commandLineFromManifest } from '../../../src/core/flags/sources.js'
import { validateServerCommandLine } from '../../../src/core/flags/validate.js'
import { parseGoFloat, parseGoInt } from '../../../src/core/options/go-syntax.js'
import { B, CORS_HELP, type Case, HSTS_INVALID, check, fixture } from './support.js'

const BIN = fileURLToPath(new URL('../../../bin/run.js', import.meta.url))
const OK = ['--authorization-mode=Node,RBAC', '--anonymous-auth=false']

describe('flags validate: fidelity to the reference', () => {
  describe('1. --service-cluster-ip-range crashes the validator (research T82–T91)', () => {
    const cases: Case[] = [
      { name: 'T82 B --service-cluster-ip-range=10.96.0.0/12 is valid', argv: [...B, '--service-cluster-ip-range=10.96.0.0/12'], valid: true },
      { name: 'T83 a /8 range is valid at 1.35 (the "too large" check is skipped from 1.34)', argv: [...B, '--service-cluster-ip-range=10.0.0.0/8'], valid: true },
      { name: 'T85 a dual-stack pair is valid', argv: [...B, '--service-cluster-ip-range=10.96.0.0/12,fd00:10:96::/112'], valid: true },
      {
        name: 'T86 two ranges of one family',
        argv: [...B, '--service-cluster-ip-range=10.96.0.0/12,10.128.0.0/16'],
        valid: false,
        phase: 'validate',
        errors: ['--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family'],
        rules: ['NET-4'],
      },
      {
        name: 'T87 three ranges',
        argv: [...B, '--service-cluster-ip-range=10.96.0.0/12,fd00::/112,10.128.0.0/16'],
        valid: false,
        phase: 'validate',
        errors: ['--service-cluster-ip-range must not contain more than two entries'],
        rules: ['NET-4'],
      },
      { name: 'T88 an address instead of a CIDR', argv: [...B, '--service-cluster-ip-range=10.96.0.1'], valid: false, phase: 'complete', errors: ['service-cluster-ip-range[0] is not a valid cidr'], rules: ['NET-1'] },
      {
        name: 'T89 a range of fewer than 8 addresses',
        argv: [...B, '--service-cluster-ip-range=10.96.0.0/30'],
        valid: false,
        phase: 'complete',
        errors: ['error determining service IP ranges for primary service cidr: the service cluster IP range must be at least 8 IP addresses'],
        rules: ['NET-1'],
      },
      {
        name: 'T90 IPv6 advertise address with an IPv4 range',
        argv: [...B, '--advertise-address=fd00::10', '--service-cluster-ip-range=10.96.0.0/12'],
        valid: false,
        phase: 'validate',
        errors: ['service IP family "10.96.0.0/12" must match public address family "fd00::10"'],
        rules: ['NET-9'],
      },
      { name: 'T91 the same with --endpoint-reconciler-type=none is valid', argv: [...B, '--advertise-address=fd00::10', '--service-cluster-ip-range=10.96.0.0/12', '--endpoint-reconciler-type=none'], valid: true },
      {
        name: 'NET-1 a secondary range that is not a CIDR',
        argv: [...OK, '--service-cluster-ip-range=10.96.0.0/12,fd00::1'],
        valid: false,
        phase: 'complete',
        errors: ['service-cluster-ip-range[1] is not an ip net'],
        rules: ['NET-1'],
      },
    ]
    for (const c of cases) it(c.name, () => void check(c))

    it('T84 an IPv6 range with the (IPv4) host address: NET-9 only at 1.35', () => {
      const report = validateServerCommandLine([...B, '--service-cluster-ip-range=fd00:10:96::/64'])
      const errors = report.findings.filter((f) => f.severity === 'error')
      assert.deepEqual(errors.map((f) => f.rule), ['NET-9'])
      assert.match(errors[0].message, /^service IP family "fd00:10:96::\/64" must match public address family /)
    })

    it('the kubeadm static pod manifest validates (core API, reference target)', () => {
      const argv = commandLineFromManifest(readFileSync(fixture('kube-apiserver.yaml'), 'utf8'))
      const report = validateServerCommandLine(argv, { target: 'reference' })
      assert.equal(report.valid, true)
      assert.deepEqual(report.findings.filter((f) => f.severity !== 'notice').map((f) => f.rule), [])
    })

    it('the binary exits 0 for the kubeadm manifest and for -- --service-cluster-ip-range=10.96.0.0/12', () => {
      for (const args of [['--manifest', fixture('kube-apiserver.yaml')], ['--', '--authorization-mode=Node,RBAC', '--service-cluster-ip-range=10.96.0.0/12']]) {
        const r = spawnSync(process.execPath, [BIN, 'flags', 'validate', ...args], { encoding: 'utf8' })
        assert.equal(r.status, 0, `${args.join(' ')}\n${r.stdout}${r.stderr}`)
      }
    })
  })

  describe('2. --allow-metric-labels with one "=" is one pair (pflag stringToString)', () => {
    it('metric,label=value is valid', () => {
      check({ name: '', argv: [...OK, '--allow-metric-labels=apiserver_request_total,verb=GET'], valid: true })
    })
    it("the rule's own remedy example (after shell quoting) is valid and parsed as one key", () => {
      const report = check({ name: '', argv: [...OK, '--allow-metric-labels=apiserver_request_total,verb=GET,LIST'], valid: true })
      assert.deepEqual(report.parsed.options.get('allow-metric-labels')?.value, { 'apiserver_request_total,verb': 'GET,LIST' })
    })
  })

  describe('3./4. Go number literals with underscores', () => {
    it('strconv.ParseInt(s, 0, 64) accepts 1_000', () => {
      assert.equal(parseGoInt('1_000'), 1000)
      check({ name: '', argv: [...OK, '--max-requests-inflight=1_000'], valid: true })
    })
    it('strconv.ParseFloat accepts 0.00_1', () => {
      assert.equal(parseGoFloat('0.00_1'), 0.001)
      check({ name: '', argv: [...OK, '--goaway-chance=0.00_1'], valid: true })
    })
  })

  describe('5. --strict-transport-security-directives as the reference checks them', () => {
    it('an empty item gives the empty-value message only', () => {
      check({
        name: '',
        argv: [...OK, '--strict-transport-security-directives=max-age=1,,preload'],
        valid: false,
        phase: 'validate',
        errors: ['empty value in strict-transport-security-directives'],
        rules: ['SRV-10'],
      })
    })
    it('items are compared untrimmed: " preload" is invalid', () => {
      check({ name: '', argv: [...OK, '--strict-transport-security-directives=max-age=1, preload'], valid: false, phase: 'validate', errors: [HSTS_INVALID], rules: ['SRV-10'] })
    })
  })

  describe("6. URLs parsed as Go's url.Parse does", () => {
    it('JWKS URI with a non-numeric port: the Go cause (reference unit test)', () => {
      check({
        name: '',
        argv: [...OK, '--service-account-jwks-uri=https://host:port'],
        valid: false,
        phase: 'validate',
        errors: ['service-account-jwks-uri must be a valid URL: parse "https://host:port": invalid port ":port" after host'],
        rules: ['AUTHN-10'],
      })
    })
    it('JWKS URI without a scheme parses in Go and fails the https check', () => {
      check({
        name: '',
        argv: [...OK, '--service-account-jwks-uri=example.com/openid/v1/jwks'],
        valid: false,
        phase: 'validate',
        errors: ['service-account-jwks-uri requires https scheme, parsed as: example.com/openid/v1/jwks'],
        rules: ['AUTHN-10'],
      })
    })
    it('issuer with a bad port: the Go cause', () => {
      check({
        name: '',
        argv: [...B, ...OK, '--service-account-issuer=http://x:y:z'],
        valid: false,
        phase: 'validate',
        errors: ['service-account-issuer "http://x:y:z" contained a \':\' but was not a valid URL: parse "http://x:y:z": invalid port ":z" after host'],
        rules: ['AUTHN-5'],
      })
    })
  })

  describe('7. --service-account-issuer is a StringArray', () => {
    it('an empty value is an empty issuer', () => {
      check({
        name: '',
        argv: [...B, ...OK, '--service-account-issuer='],
        valid: false,
        phase: 'validate',
        errors: ['service-account-issuer should not be an empty string'],
        rules: ['AUTHN-5'],
      })
    })
  })

  describe("8. --cors-allowed-origins regexp errors in Go's words", () => {
    it('an unclosed group', () => {
      check({
        name: '',
        argv: [...OK, '--cors-allowed-origins=^(a$'],
        valid: false,
        phase: 'validate',
        errors: [`--cors-allowed-origins has an invalid regular expression: error parsing regexp: missing closing ): \`^(a$\`, help: ${CORS_HELP}`],
        rules: ['SRV-12'],
      })
    })
  })

  describe('9. --file with CRLF line ends and continuation lines', () => {
    it('a backslash before CRLF continues the line', () => {
      assert.deepEqual(commandLineFromFile('kube-apiserver \\\r\n  --secure-port=6443 \\\r\n  --profiling=false\r\n'), ['--secure-port=6443', '--profiling=false'])
    })
  })

  describe('10. overlapping admission plugins are listed sorted', () => {
    it('[AlwaysPullImages NodeRestriction]', () => {
      check({
        name: '',
        argv: [...OK, '--enable-admission-plugins=NodeRestriction,AlwaysPullImages', '--disable-admission-plugins=AlwaysPullImages,NodeRestriction'],
        valid: false,
        phase: 'validate',
        errors: ['[AlwaysPullImages NodeRestriction] in enable-admission-plugins and disable-admission-plugins overlapped'],
        rules: ['ADM-1'],
      })
    })
  })
})
