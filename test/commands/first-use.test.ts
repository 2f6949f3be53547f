/**
 * A first use as a newcomer meets it, through the built binary: usage errors in kubectl's
 * style (one `error:` line and a hint, no usage dump, the documented exit code), a mistyped
 * command with a suggestion, server options given before `--`, `health check --check` with a
 * name the server does not have; then, against a real server, boolean client flags with a
 * value, a kubeconfig user with an exec credential plugin for `health` and `patch`, and the
 * start-up line naming the data directory. Expected texts are kubectl 1.32's where kubectl has
 * the same error, and the issue's otherwise.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiServer, BIN } from '../support/api-server.js'
import { freePorts } from '../support/etcd.js'

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function client(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`client ${args.join(' ')} did not exit:\n${stdout}\n${stderr}`))
    }, 60_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** One `error:` line, the hint last, nothing on stdout, no oclif decoration or usage dump. */
function assertUsageError(run: Run, code: number, error: string, hint: string): string[] {
  assert.equal(run.code, code, `exit status; stderr: ${run.stderr}`)
  assert.equal(run.stdout, '')
  const lines = run.stderr.trimEnd().split('\n')
  assert.equal(lines[0], error)
  assert.equal(lines.at(-1), hint)
  assert.equal(lines.filter((l) => l.startsWith('error:')).length, 1, run.stderr)
  assert.doesNotMatch(run.stderr, /USAGE|FLAGS|›|Nonexistent|\n\s+at /)
  return lines
}

describe('first use (built binary)', function () {
  this.timeout(120_000)

  describe('the etcd example with no etcd running', () => {
    it('logs the first failed connection at once (address and cause), then each retry at a growing interval', async () => {
      const [port, etcdPort] = await freePorts(2)
      const home = mkdtempSync(join(tmpdir(), 'client-first-use-etcd-'))
      const store = `http://127.0.0.1:${etcdPort}`
      const child = spawn(process.execPath, [BIN, 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--store-servers=${store}`], {
        env: { ...process.env, HOME: home },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let log = ''
      child.stdout!.on('data', (d) => (log += d))
      child.stderr!.on('data', (d) => (log += d))
      const failures = () => log.split('\n').filter((l) => l.includes(`cannot reach the store at ${store} `))
      try {
        for (let i = 0; i < 600 && failures().length < 3; i++) await new Promise((r) => setTimeout(r, 100))
        const lines = failures()
        assert.ok(lines.length >= 3, `three reports of the unreachable store:\n${log}`)
        // The address and the cause (the operating system's refusal).
        assert.match(lines[0]!, new RegExp(`^W.*\\(attempt 1; .*ECONNREFUSED 127\\.0\\.0\\.1:${etcdPort}`))
        // By the server's own clock (its log's timestamps): the first report within 2 s of
        // "Storing data in etcd", the bound; then not at every attempt, but after
        // gRPC's connection backoff (1 s, then 1.6 s), as the reference's client logs.
        const at = (line: string) => {
          const m = /^[IW]\d{4} (\d\d):(\d\d):(\d\d\.\d+)/.exec(line)!
          return (Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3])) * 1000
        }
        const storing = log.split('\n').find((l) => l.includes('] Storing data in etcd at '))
        assert.ok(storing, log)
        const firstReportAfterStart = at(lines[0]!) - at(storing)
        assert.ok(firstReportAfterStart <= 2_000, `the first failure was logged ${firstReportAfterStart} ms after start-up`)
        const attempts = lines.map((l) => Number(/\(attempt (\d+);/.exec(l)![1]))
        assert.ok(attempts[1]! > attempts[0]! + 1 && attempts[2]! > attempts[1]!, `reports are paced, not one per attempt: ${attempts.join(', ')}`)
        assert.ok(at(lines[1]!) - at(lines[0]!) >= 900 && at(lines[2]!) - at(lines[1]!) >= 1_500, lines.join('\n'))
      } finally {
        child.kill('SIGKILL')
        rmSync(home, { recursive: true, force: true })
      }
    })
  })

  describe('usage errors in kubectl style', () => {
    it('an unknown flag: error line and hint, exit 2 for health and flags validate, 1 for patch (as kubectl)', async () => {
      assertUsageError(await client(['health', 'check', '--bogus']), 2, 'error: unknown flag: --bogus', "See 'client health check --help' for usage.")
      assertUsageError(await client(['health', 'watch', '--once', '--bogus']), 2, 'error: unknown flag: --bogus', "See 'client health watch --help' for usage.")
      assertUsageError(await client(['flags', 'validate', '--bogus']), 2, 'error: unknown flag: --bogus', "See 'client flags validate --help' for usage.")
      assertUsageError(await client(['patch', '--bogus']), 1, 'error: unknown flag: --bogus', "See 'client patch --help' for usage.")
      // server start reports it as the server does (exit 1), with the same first and last lines.
      assertUsageError(await client(['server', 'start', '--bogus']), 1, 'error: unknown flag: --bogus', "See 'client server start --help' for usage.")
    })

    it('a flag value kubectl would refuse', async () => {
      assertUsageError(
        await client(['health', 'check', '--insecure-skip-tls-verify=maybe']),
        2,
        'error: invalid argument "maybe" for "--insecure-skip-tls-verify" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
        "See 'client health check --help' for usage.",
      )
      assertUsageError(await client(['health', 'check', '--check']), 2, 'error: flag needs an argument: --check', "See 'client health check --help' for usage.")
    })

    it('a mistyped command suggests the nearest, exit 1 (as kubectl)', async () => {
      const run = await client(['server', 'strat'])
      const lines = assertUsageError(run, 1, 'error: unknown command "server strat" for "client"', "See 'client --help' for usage.")
      assert.deepEqual(lines.slice(1, -1), ['', 'Did you mean this?', '\tserver start', ''])
      assertUsageError(await client(['bogus']), 1, 'error: unknown command "bogus" for "client"', "See 'client --help' for usage.")
    })

    it('client helth suggests health, not help (cobra leaves its help command out)', async () => {
      const lines = assertUsageError(await client(['helth']), 1, 'error: unknown command "helth" for "client"', "See 'client --help' for usage.")
      assert.deepEqual(lines.slice(1, -1), ['', 'Did you mean this?', '\thealth', ''])
    })

    it('patch without -p: the error and the hint', async () => {
      assertUsageError(await client(['patch', 'deployment', 'web']), 1, 'error: must specify --patch or --patch-file containing the contents of the patch', "See 'client patch --help' for usage.")
    })

    it('with no kubeconfig, the error names the kubeconfig the server writes', async () => {
      const home = mkdtempSync(join(tmpdir(), 'client-first-use-home-'))
      try {
        const run = await client(['health', 'check'], { HOME: home, KUBECONFIG: '' })
        assert.notEqual(run.code, 0)
        assert.match(run.stdout + run.stderr, /no server found: .*--merge-kubeconfig=\$HOME\/\.kube\/config\b.*--write-kubeconfig=\$HOME\/\.kube\/client\.config .*--kubeconfig ~\/\.kube\/client\.config/)
        const patch = await client(['patch', 'ns', 'default', '-p', '{}'], { HOME: home, KUBECONFIG: '' })
        assert.equal(patch.code, 1)
        assert.match(patch.stderr, /--kubeconfig ~\/\.kube\/client\.config/)
      } finally {
        rmSync(home, { recursive: true, force: true })
      }
    })

    it('--help lists only options that act for the command (no storage-driver options)', async () => {
      for (const command of [['health', 'check'], ['health', 'watch'], ['patch']]) {
        const help = await client([...command, '--help'])
        assert.equal(help.code, 0, help.stderr)
        assert.match(help.stdout, /--kubeconfig/)
        assert.doesNotMatch(help.stdout, /--storage-driver-/, `client ${command.join(' ')} --help`)
      }
      // Still accepted, as kubectl accepts them.
      const accepted = await client(['health', 'check', '--storage-driver-db=x', '--server=https://127.0.0.1:1', '--timeout=1s'])
      assert.doesNotMatch(accepted.stderr, /unknown flag/)
    })

    it('server start --help: the common options first, then the sections in kube-apiserver --help order', async () => {
      const help = await client(['server', 'start', '--help'])
      assert.equal(help.code, 0, help.stderr)
      // kube-apiserver's usage line is `kube-apiserver [flags]`; its named flag sets print as
      // generic/secure serving, etcd, auditing, ..., authentication, authorization, admission,
      // metrics/logs/traces, misc.
      assert.match(help.stdout, /^USAGE\n {2}\$ client server start \[FLAGS\]\n/m)
      const headers = help.stdout.split('\n').filter((l) => /^[A-Z][A-Z ,]* FLAGS$/.test(l))
      assert.deepEqual(headers, [
        'COMMON FLAGS',
        'SERVING FLAGS',
        'STORAGE FLAGS',
        'AUDIT FLAGS',
        'AUTHENTICATION FLAGS',
        'AUTHORIZATION FLAGS',
        'ADMISSION FLAGS',
        'LOGGING, METRICS, FEATURES FLAGS',
        'LIMITS FLAGS',
      ])
      const common = help.stdout.slice(help.stdout.indexOf('COMMON FLAGS'), help.stdout.indexOf('SERVING FLAGS'))
      for (const name of ['--bind-address', '--secure-port', '--cert-dir', '--data-dir', '--store-servers', '--merge-kubeconfig']) assert.match(common, new RegExp(`^ +${name}=`, 'm'))
      // Each option is listed once.
      assert.equal(help.stdout.match(/^ +--bind-address=/gm)?.length, 1)
    })

    it('server options given to flags validate without -- say they go after --', async () => {
      const run = await client(['flags', 'validate', '--secure-port=0'])
      const lines = assertUsageError(run, 2, 'error: unknown flag: --secure-port', "See 'client flags validate --help' for usage.")
      assert.deepEqual(lines.slice(1, -1), ["Server options go after '--': client flags validate -- --secure-port=0"])
    })
  })

  describe('against a real server', () => {
    let server: ApiServer
    let tmp: string
    // The administrator's certificate (written with --write-kubeconfig): the requests stay
    // allowed whatever authentication and authorization the server runs.
    const admin = () => [`--client-certificate=${server.certDir}/admin.crt`, `--client-key=${server.certDir}/admin.key`]
    const target = () => [`--server=https://127.0.0.1:${server.port}`, `--certificate-authority=${server.certDir}/ca.crt`, ...admin()]

    before(async () => {
      tmp = mkdtempSync(join(tmpdir(), 'client-first-use-'))
      server = await ApiServer.start({ waitFor: 'ready', args: [`--write-kubeconfig=${join(tmp, 'admin.kubeconfig')}`] })
    })
    after(async () => {
      await server?.stop()
      if (tmp) rmSync(tmp, { recursive: true, force: true })
    })

    it('the start-up log names the data directory by its full path', () => {
      assert.ok(server.logs.split('\n').some((l) => l.endsWith(`] Storing data in ${server.dataDir}`)), server.logs)
    })

    it('a restart names the certificates directory too (nothing is generated then)', async () => {
      assert.ok(server.logs.includes(`self-signed serving certificate in ${server.certDir} `), server.logs)
      const again = await ApiServer.start({ certDir: server.certDir, args: [`--write-kubeconfig=${join(tmp, 'again.kubeconfig')}`] })
      try {
        assert.doesNotMatch(again.logs, /generated a self-signed/)
        assert.ok(again.logs.split('\n').some((l) => l.includes('] ') && l.endsWith(` in ${server.certDir}`)), again.logs)
      } finally {
        await again.stop()
      }
    })

    it('health check --check takes a name; an unknown one is a usage error (exit 2) listing the checks', async () => {
      const known = await client(['health', 'check', '--check', 'store', ...target()])
      assert.equal(known.code, 0, known.stderr)
      assert.match(known.stdout, /^readyz\/store: healthy \(200, /)
      const unknown = await client(['health', 'check', '--check', 'nosuch', ...target()])
      const lines = assertUsageError(unknown, 2, 'error: unknown check "nosuch" for /readyz', "See 'client health check --help' for usage.")
      assert.match(lines[1]!, /^The server's readyz checks: ping, log, store, .*shutdown$/)
      const asPath = await client(['health', 'check', '--check', '/readyz/store', '--wait', '--timeout', '30s', ...target()])
      const pathLines = assertUsageError(asPath, 2, 'error: unknown check "/readyz/store" for /readyz', "See 'client health check --help' for usage.")
      assert.equal(pathLines[1], "--check takes a check's name: --check store")
    })

    it('boolean client flags take a value, as kubectl: --insecure-skip-tls-verify=true|false', async () => {
      const address = `--server=https://127.0.0.1:${server.port}`
      const skip = await client(['health', 'check', address, '--insecure-skip-tls-verify=true', ...admin()])
      assert.equal(skip.code, 0, skip.stdout + skip.stderr)
      const verify = await client(['health', 'check', address, '--insecure-skip-tls-verify=false', ...admin()])
      assert.equal(verify.code, 3, verify.stdout)
      assert.match(verify.stdout, /x509: certificate signed by unknown authority/)
      const patch = await client(['patch', address, '--insecure-skip-tls-verify=true', ...admin(), 'namespace', 'default', '-p', '{"metadata":{"labels":{"first-use":"bool"}}}'])
      assert.equal(patch.code, 0, patch.stderr)
      assert.equal(patch.stdout, 'namespace/default patched\n')
    })

    it('a kubeconfig user with an exec credential plugin works for health and patch', async () => {
      const ran = join(tmp, 'ran')
      const pluginFile = join(tmp, 'login.sh')
      // The plugin hands out the administrator's certificate, as a login plugin would hand out a user's.
      const credential = JSON.stringify({
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        kind: 'ExecCredential',
        status: { clientCertificateData: readFileSync(`${server.certDir}/admin.crt`, 'utf8'), clientKeyData: readFileSync(`${server.certDir}/admin.key`, 'utf8') },
      })
      writeFileSync(join(tmp, 'credential.json'), credential)
      writeFileSync(pluginFile, `#!/bin/sh\necho run >> ${ran}\ncat ${join(tmp, 'credential.json')}\n`)
      chmodSync(pluginFile, 0o755)
      const kubeconfig = join(tmp, 'kubeconfig')
      writeFileSync(
        kubeconfig,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'c', cluster: { server: `https://127.0.0.1:${server.port}`, 'certificate-authority': `${server.certDir}/ca.crt` } }],
          users: [{ name: 'u', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: './login.sh' } } }],
          contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'c',
        }),
      )
      const health = await client(['health', 'check', `--kubeconfig=${kubeconfig}`])
      assert.equal(health.code, 0, health.stdout + health.stderr)
      const patch = await client(['patch', `--kubeconfig=${kubeconfig}`, 'namespace', 'default', '-p', '{"metadata":{"labels":{"first-use":"exec"}}}'])
      assert.equal(patch.code, 0, patch.stderr)
      assert.equal(patch.stdout, 'namespace/default patched\n')
      assert.ok(existsSync(ran) && readFileSync(ran, 'utf8').split('\n').filter(Boolean).length >= 2, 'the plugin ran for each command')
    })
  })
})
