/**
 * `client flags validate` through the built binary, as a child process: exit codes (0 valid,
 * 1 invalid, 2 usage error), the acceptance lines, the JSON schema, --strict, --file,
 * --manifest and usage errors without stack traces. Needs `npx tsc -p tsconfig.json` first.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { before, describe, it } from 'mocha'
import { H } from '../../core/flags/support.js'

const BIN = fileURLToPath(new URL('../../../bin/run.js', import.meta.url))
const COMMAND = fileURLToPath(new URL('../../../dist/commands/flags/validate.js', import.meta.url))
const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/flags/${name}`, import.meta.url))

interface Run {
  status: number | null
  stdout: string
  /** stderr with oclif's line wrapping (`\n ›   `) undone. */
  stderr: string
}

function run(args: string[], input?: string): Run {
  const result = spawnSync(process.execPath, [BIN, 'flags', 'validate', ...args], { encoding: 'utf8', input, env: { ...process.env, NO_COLOR: '1' } })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.replace(/\s*\n ›\s+/g, ' ') }
}

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1)

/** A usage error: exit 2, the message on stderr, nothing on stdout, no stack trace. */
function assertUsageError(r: Run, message: string) {
  assert.equal(r.status, 2, `exit status; stderr: ${r.stderr}`)
  assert.ok(r.stderr.includes(message), `stderr should contain ${JSON.stringify(message)}: ${r.stderr}`)
  assert.doesNotMatch(r.stderr, /^\s+at .+[:(]\d+/m, 'no stack trace')
  assert.equal(r.stdout, '')
}


describe('client flags validate (built binary)', function () {
  this.timeout(30_000)

  before(() => {
    assert.ok(existsSync(COMMAND), `${COMMAND} is missing: build first with npx tsc -p tsconfig.json`)
  })

  it('acceptance: -- --secure-port=0 exits 1 and names --secure-port', () => {
    const r = run(['--', '--secure-port=0'])
    assert.equal(r.status, 1, r.stderr)
    const lines = r.stdout.split('\n')
    assert.ok(lines.includes('error: --secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0'), r.stdout)
    assert.ok(lines.includes('  option --secure-port=0, rule SEC-1'), r.stdout)
    assert.ok(lines.includes('The server would refuse to start with: --secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0'), r.stdout)
    // The default Node,RBAC raises no warning.
    assert.equal(lastLine(r.stdout), 'invalid: 1 error, 0 warnings')
  })

  it('acceptance: --etcd-servers with Node,RBAC exits 0 and reports the alias', () => {
    const r = run(['--', '--etcd-servers=https://127.0.0.1:2379', '--authorization-mode=Node,RBAC'])
    assert.equal(r.status, 0, r.stderr)
    const lines = r.stdout.split('\n')
    assert.ok(lines.includes('note: --etcd-servers is the reference spelling of --store-servers; it is accepted as --store-servers'), r.stdout)
    assert.ok(lines.includes('  option --store-servers, rule ALIAS'), r.stdout)
    assert.equal(lastLine(r.stdout), 'valid: 0 errors, 0 warnings')
  })

  it('acceptance: --profile cis reports 1.2.1 and 1.2.15 for --anonymous-auth=true --profiling=true', () => {
    const r = run(['--profile', 'cis', '--', '--anonymous-auth=true', '--profiling=true'])
    assert.equal(r.status, 0, r.stderr)
    const lines = r.stdout.split('\n')
    assert.ok(lines.includes('warning: CIS 1.2.1 WARN: --anonymous-auth is true (check: anonymous requests are disabled)'), r.stdout)
    assert.ok(lines.includes('  rule CIS-1.2.1'), r.stdout)
    assert.ok(lines.includes('warning: CIS 1.2.15 FAIL: --profiling is true (check: profiling is disabled)'), r.stdout)
    assert.ok(lines.includes('  rule CIS-1.2.15'), r.stdout)
    assert.ok(lines.includes('CIS benchmark (API server): 7 pass, 15 fail, 9 warn'), r.stdout)
  })

  it('-o json follows the client.flags.validate/v1 schema', () => {
    const r = run(['-o', 'json', '--', '--etcd-servers=https://127.0.0.1:2379', '--secure-port=0'])
    assert.equal(r.status, 1, r.stderr)
    const doc = JSON.parse(r.stdout)
    assert.deepEqual(Object.keys(doc), ['schema', 'valid', 'strict', 'target', 'failedPhase', 'serverMessage', 'errors', 'warnings', 'notices'])
    assert.equal(doc.schema, 'client.flags.validate/v1')
    assert.equal(doc.valid, false)
    assert.equal(doc.strict, false)
    assert.equal(doc.target, 'client')
    assert.equal(doc.failedPhase, 'validate')
    assert.equal(doc.serverMessage, '--secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0')
    assert.deepEqual(
      doc.errors.map((f: { rule: string; phase: string; option: string }) => [f.rule, f.phase, f.option]),
      [['SEC-1', 'validate', '--secure-port']],
    )
    for (const key of ['errors', 'warnings', 'notices']) {
      for (const f of doc[key]) {
        assert.deepEqual(Object.keys(f).slice(0, 4), ['severity', 'rule', 'phase', 'message'], JSON.stringify(f))
        assert.equal(f.severity, key === 'errors' ? 'error' : key === 'warnings' ? 'warning' : 'notice')
      }
    }
    assert.deepEqual(doc.notices.map((f: { rule: string }) => f.rule), ['ALIAS', 'NET-1'])
  })

  it('-o json --profile cis on the hardened line H: valid, 31 CIS results', () => {
    const r = run(['-o', 'json', '--profile', 'cis', '--target', 'reference', '--', ...H])
    assert.equal(r.status, 0, r.stderr)
    const doc = JSON.parse(r.stdout)
    assert.equal(doc.valid, true)
    assert.equal(doc.target, 'reference')
    assert.equal(doc.cis.length, 31)
    const notPassing = doc.cis.filter((c: { verdict: string }) => c.verdict !== 'PASS').map((c: { id: string; verdict: string }) => `${c.id} ${c.verdict}`)
    assert.deepEqual(notPassing, ['1.2.20 WARN', '1.2.28 WARN'])
  })

  it('--strict turns a warning into exit 1', () => {
    // An explicit AlwaysAllow without anonymous access: one warning (AUTHZ-DEFAULT).
    const args = ['--', '--etcd-servers=https://127.0.0.1:2379', '--authorization-mode=AlwaysAllow', '--anonymous-auth=false']
    const lax = run(args)
    assert.equal(lax.status, 0, lax.stderr)
    assert.equal(lastLine(lax.stdout), 'valid: 0 errors, 1 warning')
    const strict = run(['--strict', ...args])
    assert.equal(strict.status, 1, strict.stderr)
    assert.equal(lastLine(strict.stdout), 'invalid (--strict: warnings fail): 0 errors, 1 warning')
  })

  it('--strict -o json reports valid false and strict true', () => {
    const r = run(['--strict', '-o', 'json', '--', '--etcd-servers=https://127.0.0.1:2379', '--authorization-mode=AlwaysAllow', '--anonymous-auth=false'])
    assert.equal(r.status, 1, r.stderr)
    const doc = JSON.parse(r.stdout)
    assert.equal(doc.valid, false)
    assert.equal(doc.strict, true)
    assert.deepEqual(doc.errors, [])
    assert.deepEqual(doc.warnings.map((f: { rule: string }) => f.rule), ['AUTHZ-DEFAULT'])
  })

  it('--target reference requires the store: --store-servers must be specified', () => {
    const r = run(['--target', 'reference', '-o', 'json', '--', '--service-account-issuer=https://kubernetes.default.svc.cluster.local', '--service-account-key-file=pki/sa.pub', '--service-account-signing-key-file=pki/sa.key'])
    assert.equal(r.status, 1, r.stderr)
    const doc = JSON.parse(r.stdout)
    assert.equal(doc.serverMessage, '--store-servers must be specified')
    assert.equal(doc.failedPhase, 'validate')
  })

  it('--command cluster checks a cluster start line: its options, and kube-controller-manager\'s refusal of an unknown controller', () => {
    assert.equal(run(['--command', 'cluster', '--', '--nodes=3', '--controllers=*,-cronjob-controller,bootstrapsigner']).status, 0)
    const r = run(['--command', 'cluster', '-o', 'json', '--', '--controllers=*,-nosuch'])
    assert.equal(r.status, 1, r.stderr)
    assert.equal(JSON.parse(r.stdout).serverMessage, '"nosuch" is not in the list of known controllers')
    // A server start line does not take them.
    assert.equal(JSON.parse(run(['-o', 'json', '--', '--nodes=3']).stdout).serverMessage, 'unknown flag: --nodes')
  })

  it('a parse error exits 1 with the reference message', () => {
    const r = run(['--', '--no-such-flag=1'])
    assert.equal(r.status, 1, r.stderr)
    assert.ok(r.stdout.split('\n').includes('The server would refuse to start with: unknown flag: --no-such-flag'), r.stdout)
  })

  it('reads --authorization-config and reports what the server would refuse in it (exit 1)', () => {
    const r = run(['--', '--anonymous-auth=false', `--authorization-config=${fixture('authz-bad-cel.yaml')}`])
    assert.equal(r.status, 1, r.stderr)
    assert.ok(
      r.stdout.includes(
        'error: invalid authorization config: [authorizers[2].webhook.timeout: Invalid value: "40s": must be > 0s and <= 30s, authorizers[2].webhook.matchConditions[1].expression: Invalid value: "request.resourceAttributes.namespace": must evaluate to bool but got string]',
      ),
      r.stdout,
    )
    const good = run(['--', '--anonymous-auth=false', `--authorization-config=${fixture('authz-cel.yaml')}`])
    assert.equal(good.status, 0, good.stdout + good.stderr)
  })

  it('--file reads a saved kube-apiserver command line', () => {
    const r = run(['--file', fixture('kube-apiserver.cmdline')])
    assert.equal(r.status, 0, r.stderr)
    assert.equal(lastLine(r.stdout), 'valid: 0 errors, 0 warnings')
  })

  it('--file - reads standard input', () => {
    const r = run(['--file', '-', '-o', 'json'], '# from a pipe\n--secure-port=0\n')
    assert.equal(r.status, 1, r.stderr)
    assert.equal(JSON.parse(r.stdout).serverMessage, '--secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0')
  })

  it('--manifest reads the API server container of a static pod (args form)', () => {
    const r = run(['--manifest', fixture('kube-apiserver-args.yaml'), '--target', 'reference', '-o', 'json'])
    assert.equal(r.status, 0, r.stderr)
    const doc = JSON.parse(r.stdout)
    assert.equal(doc.valid, true)
    assert.deepEqual(doc.errors, [])
    assert.ok(doc.notices.some((f: { message: string }) => f.message === '--kubelet-client-key is the reference spelling of --nodeagent-client-key; it is accepted as --nodeagent-client-key'))
  })

  it('a manifest without an API server container exits 2', () => {
    assertUsageError(run(['--manifest', fixture('no-apiserver.yaml')]), 'the manifest has no API server container (a container named like *apiserver* or running kube-apiserver)')
  })

  it('a missing --file exits 2', () => {
    assertUsageError(run(['--file', '/nonexistent/flags.txt']), 'cannot read the file "/nonexistent/flags.txt": no such file')
  })

  it('flags both in --file and after -- exit 2', () => {
    assertUsageError(run(['--file', fixture('kube-apiserver.cmdline'), '--', '--secure-port=1']), 'give the flags either after -- or in --file/--manifest, not both')
  })

  it('an unknown output format exits 2', () => {
    assertUsageError(run(['-o', 'yaml', '--', '--secure-port=1']), 'error: invalid argument "yaml" for "--output" flag: must be one of text, json\n')
  })
})
