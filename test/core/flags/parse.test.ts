/**
 * Parsing a server command line with the reference flag library's (pflag) semantics, the
 * parse-phase rules (PARSE-*, DEPRECATED, ALIAS, ARGS) and the phase order: a failing phase
 * stops the later ones.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'mocha'

import { validateServerCommandLine } from '../../../src/core/flags/validate.js'
import { type Case, check, messages, ofSeverity } from './support.js'

const OK = ['--authorization-mode=Node,RBAC', '--anonymous-auth=false']

const cases: Case[] = [
  // PARSE-VALUE
  { name: 'PARSE-VALUE accepts Go bool spellings 1 and F', argv: [...OK, '--profiling=1', '--contention-profiling=F'], valid: true },
  {
    name: 'PARSE-VALUE rejects 08 (a leading 0 means octal)',
    argv: [...OK, '--secure-port=08'],
    valid: false,
    phase: 'parse',
    errors: ['invalid argument "08" for "--secure-port" flag: strconv.ParseInt: parsing "08": invalid syntax'],
    rules: ['PARSE-VALUE'],
  },
  {
    name: 'PARSE-VALUE rejects an int64 overflow',
    argv: [...OK, '--secure-port=99999999999999999999'],
    valid: false,
    phase: 'parse',
    errors: ['invalid argument "99999999999999999999" for "--secure-port" flag: strconv.ParseInt: parsing "99999999999999999999": value out of range'],
    rules: ['PARSE-VALUE'],
  },
  {
    name: 'PARSE-VALUE names a flag with a shorthand as "-v, --v"',
    argv: [...OK, '-v=abc'],
    valid: false,
    phase: 'parse',
    errors: ['invalid argument "abc" for "-v, --v" flag: strconv.ParseInt: parsing "abc": invalid syntax'],
    rules: ['PARSE-VALUE'],
  },
  {
    name: 'PARSE-VALUE consumes a value that looks like a flag',
    argv: [...OK, '--secure-port', '--profiling=false'],
    valid: false,
    phase: 'parse',
    errors: ['invalid argument "--profiling=false" for "--secure-port" flag: strconv.ParseInt: parsing "--profiling=false": invalid syntax'],
    rules: ['PARSE-VALUE'],
  },
  {
    name: 'PARSE-VALUE reports a CSV bare quote in a list value',
    argv: [...OK, '--enable-admission-plugins=No"deRestriction'],
    valid: false,
    phase: 'parse',
    errors: ['invalid argument "No\\"deRestriction" for "--enable-admission-plugins" flag: parse error on line 1, column 3: bare " in non-quoted-field'],
    rules: ['PARSE-VALUE'],
  },
  {
    name: 'PARSE-VALUE rejects an --oidc-required-claim without =',
    argv: [...OK, '--oidc-required-claim=nokv'],
    valid: false,
    phase: 'parse',
    errors: ['invalid argument "nokv" for "--oidc-required-claim" flag: malformed pair, expect string=string'],
    rules: ['PARSE-VALUE'],
  },
  {
    name: 'PARSE-VALUE rejects an SNI entry with an empty names list',
    argv: [...OK, '--tls-sni-cert-key=a.crt,a.key:'],
    valid: false,
    phase: 'parse',
    errors: ['invalid argument "a.crt,a.key:" for "--tls-sni-cert-key" flag: empty names list is not allowed'],
    rules: ['PARSE-VALUE'],
  },
  {
    name: 'PARSE-VALUE rejects a negative --vmodule level',
    argv: [...OK, '--vmodule=foo=-1'],
    valid: false,
    phase: 'parse',
    errors: ['invalid argument "foo=-1" for "--vmodule" flag: negative value for vmodule level'],
    rules: ['PARSE-VALUE'],
  },
  {
    name: 'PARSE-VALUE: every parse error is collected, the server prints the first',
    argv: [...OK, '--secure-port=abc', '--profiling=yes'],
    valid: false,
    phase: 'parse',
    errors: [
      'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax',
      'invalid argument "yes" for "--profiling" flag: strconv.ParseBool: parsing "yes": invalid syntax',
    ],
    rules: ['PARSE-VALUE', 'PARSE-VALUE'],
    serverMessage: 'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax',
  },
  // PARSE-UNKNOWN
  { name: 'PARSE-UNKNOWN accepts a known flag with underscores', argv: [...OK, '--max_requests_inflight=100'], valid: true },
  { name: 'PARSE-UNKNOWN rejects an unknown shorthand', argv: [...OK, '-x'], valid: false, phase: 'parse', errors: ["unknown shorthand flag: 'x' in -x"], rules: ['PARSE-UNKNOWN'] },
  { name: 'PARSE-UNKNOWN rejects the removed --basic-auth-file', argv: [...OK, '--basic-auth-file=users.csv'], valid: false, phase: 'parse', errors: ['unknown flag: --basic-auth-file'], rules: ['PARSE-UNKNOWN'] },
  // PARSE-MISSING
  { name: 'PARSE-MISSING accepts -v 4', argv: [...OK, '-v', '4'], valid: true },
  { name: 'PARSE-MISSING rejects -v as the last token', argv: [...OK, '-v'], valid: false, phase: 'parse', errors: ["flag needs an argument: 'v' in -v"], rules: ['PARSE-MISSING'] },
  // PARSE-SYNTAX
  { name: 'PARSE-SYNTAX accepts a lone -- (end of flags)', argv: [...OK, '--'], valid: true },
  { name: 'PARSE-SYNTAX rejects ---x', argv: [...OK, '---x'], valid: false, phase: 'parse', errors: ['bad flag syntax: ---x'], rules: ['PARSE-SYNTAX'] },
  { name: 'PARSE-SYNTAX rejects --=x', argv: [...OK, '--=x'], valid: false, phase: 'parse', errors: ['bad flag syntax: --=x'], rules: ['PARSE-SYNTAX'] },
  // PARSE-REPEATED
  { name: 'PARSE-REPEATED is quiet for a repeated list flag (lists accumulate)', argv: ['--authorization-mode=Node', '--authorization-mode=RBAC', '--anonymous-auth=false'], valid: true, absent: ['PARSE-REPEATED'] },
  {
    name: 'PARSE-REPEATED warns about a repeated scalar under its alias',
    argv: [...OK, '--kubelet-timeout=10s', '--kubelet-timeout=20s'],
    valid: true,
    warnings: [['PARSE-REPEATED', '--nodeagent-timeout is given 2 times ("10s", "20s"); only the last value, "20s", takes effect']],
  },
  // DEPRECATED
  { name: 'DEPRECATED is quiet for current flags', argv: [...OK, '--enable-admission-plugins=NodeRestriction'], valid: true, absent: ['DEPRECATED'] },
  {
    name: 'DEPRECATED warns about --enable-logs-handler',
    argv: [...OK, '--enable-logs-handler=true'],
    valid: true,
    warnings: [['DEPRECATED', 'Flag --enable-logs-handler has been deprecated, This flag will be removed in v1.19']],
  },
  // ALIAS
  { name: 'ALIAS is quiet for the product spelling', argv: [...OK, '--nodeagent-timeout=10s'], valid: true, absent: ['ALIAS'] },
  {
    name: 'ALIAS notes a kubelet spelling',
    argv: [...OK, '--kubelet-timeout=10s'],
    valid: true,
    notices: [['ALIAS', '--kubelet-timeout is the reference spelling of --nodeagent-timeout; it is accepted as --nodeagent-timeout']],
  },
  {
    name: 'ALIAS notes an underscore reference spelling as typed',
    argv: [...OK, '--etcd_servers=https://10.0.0.1:2379'],
    valid: true,
    notices: [['ALIAS', '--etcd_servers is the reference spelling of --store-servers; it is accepted as --store-servers']],
  },
  // ARGS
  { name: 'ARGS ignores an empty positional argument', argv: [...OK, ''], valid: true, absent: ['ARGS'] },
  {
    name: 'ARGS rejects arguments after --',
    argv: [...OK, '--', 'extra', 'more'],
    valid: false,
    phase: 'arguments',
    errors: ['"client server start" does not take any arguments, got ["extra" "more"]'],
    rules: ['ARGS'],
  },
]

describe('flags validate: parsing (pflag semantics)', () => {
  for (const c of cases) it(c.name, () => void check(c))

  it('reads --secure_port as --secure-port and a hexadecimal value', () => {
    const report = validateServerCommandLine(['--secure_port=0x1BB'])
    assert.equal(report.parsed.options.get('secure-port')?.value, 443)
  })

  it('takes the last value of a scalar flag', () => {
    const report = validateServerCommandLine(['--secure-port=1', '--secure-port=6443'])
    assert.equal(report.parsed.options.get('secure-port')?.value, 6443)
  })

  it('accumulates list flags and the aliased spelling into one option', () => {
    const report = validateServerCommandLine(['--etcd-servers=https://a:2379', '--store-servers=https://b:2379,https://c:2379'])
    assert.deepEqual(report.parsed.options.get('store-servers')?.value, ['https://a:2379', 'https://b:2379', 'https://c:2379'])
    assert.deepEqual(
      report.findings.filter((f) => f.rule === 'ALIAS').map((f) => f.message),
      ['--etcd-servers is the reference spelling of --store-servers; it is accepted as --store-servers'],
    )
  })

  it('reports an alias once however often it is used', () => {
    const report = validateServerCommandLine(['--etcd-servers=https://a:2379', '--etcd-servers=https://b:2379'])
    assert.equal(report.findings.filter((f) => f.rule === 'ALIAS').length, 1)
  })

  it('accepts the three shorthand forms -v=4, -v4 and -v 4', () => {
    for (const argv of [['-v=4'], ['-v4'], ['-v', '4']]) {
      assert.equal(validateServerCommandLine(argv).parsed.options.get('v')?.value, 4, argv.join(' '))
    }
  })

  it('reads a bare boolean flag as true, and --profiling false as true plus an argument', () => {
    const report = validateServerCommandLine(['--profiling', 'false'])
    assert.equal(report.parsed.options.get('profiling')?.value, true)
    assert.deepEqual(report.parsed.positional, ['false'])
  })

  it('notes --help, -h and --version without failing', () => {
    for (const flag of ['--help', '-h', '--version']) {
      const report = validateServerCommandLine(['--anonymous-auth=false', flag])
      assert.equal(report.parsed.asksForHelp, true, flag)
      assert.equal(report.valid, true, flag)
    }
  })

  it('suggests the closest known name for a typo', () => {
    const report = validateServerCommandLine(['--secure-prot=6443'])
    const unknown = report.findings.find((f) => f.rule === 'PARSE-UNKNOWN')
    assert.equal(unknown?.message, 'unknown flag: --secure-prot')
    assert.equal(unknown?.remedy, 'did you mean --secure-port?')
  })

  it('stops after a failing parse phase: no later phase runs', () => {
    const report = validateServerCommandLine(['--secure-port=abc', '--goaway-chance=1'])
    assert.equal(report.failedPhase, 'parse')
    assert.equal(report.context, undefined)
    assert.ok(!report.findings.some((f) => f.phase !== 'parse'), JSON.stringify(report.findings))
  })

  it('a parse error wins over an argument error', () => {
    const report = validateServerCommandLine(['--secure-port=abc', 'extra'])
    assert.equal(report.failedPhase, 'parse')
    assert.equal(report.serverMessage, 'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax')
  })

  const stops: Array<[string, string[], string, string]> = [
    ['versions stop the rest', ['--feature-gates=Nope=true', '--secure-port=0'], 'versions', 'unrecognized feature gate: Nope'],
    ['logging stops the rest', ['--logging-format=json', '--secure-port=0'], 'logging', 'format: Invalid value: "json": Unsupported log format'],
    ['complete stops validate', ['--watch-cache-sizes=pods', '--secure-port=0'], 'complete', 'invalid value of watch cache size: pods'],
    [
      'validate stops config',
      ['--secure-port=0', '--tls-min-version=VersionTLS14'],
      'validate',
      '--secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0',
    ],
  ]
  for (const [name, argv, phase, message] of stops) {
    it(`phase order: ${name}`, () => {
      const report = validateServerCommandLine([...OK, ...argv])
      assert.equal(report.failedPhase, phase)
      assert.deepEqual(messages(ofSeverity(report, 'error')), [message])
    })
  }
})
