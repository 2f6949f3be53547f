/**
 * The README's quick start, run as written (under CI from a fresh `git clone` and `npm ci`, see FROM_CLONE): its command lines are read from README.md and run
 * by bash, one by one, in a fresh home directory (so the data directory, the certificates and
 * ~/.kube/client.config are new), with `client` on PATH by the README's
 * `npm link --ignore-scripts` (into a global prefix of the test's own) and kubectl 1.35 as
 * `kubectl`. The only change is the port: the `client` on PATH adds `--secure-port=<a free
 * port>` to `server start`, so the test never needs 6443 (the README's default) to be free;
 * the kubeconfig the server writes carries that port to every later step. Each step's output
 * is checked against what kubectl and the commands are documented to print.
 */
import assert from 'node:assert/strict'
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePorts } from '../support/etcd.js'
import { KUBECTL } from '../support/kubectl-session.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
/**
 * Under CI (or CLIENT_TEST_FRESH_INSTALL=1) the quick start runs from a `git clone` of HEAD
 * installed with the README's `npm ci` (minutes: the SQLite addon may be compiled); otherwise
 * from this checkout, as built.
 */
const FROM_CLONE = Boolean(process.env.CI || process.env.CLIENT_TEST_FRESH_INSTALL)
let source = root

/** The environment without npm configuration (npm_config_*, npm_*), as a fresh shell has it. */
function withoutNpmConfig(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !/^npm_/i.test(k)))
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The `sh` code blocks of a section of the README, as lists of lines. */
function readmeBlocks(title: string): string[][] {
  const readme = readFileSync(join(source, 'README.md'), 'utf8')
  const from = readme.indexOf(`\n## ${title}\n`)
  assert.ok(from !== -1, `README.md has no "## ${title}" section`)
  const to = readme.indexOf('\n## ', from + 1)
  const section = readme.slice(from, to === -1 ? undefined : to)
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]!.split('\n').filter((l) => l.trim() !== ''))
}

/** The `sh` block of the README's "One example per command" section that runs without etcd. */
function exampleLines(): string[] {
  const readme = readFileSync(join(source, 'README.md'), 'utf8')
  const from = readme.indexOf('\n## One example per command\n')
  assert.ok(from !== -1, 'README.md has no "## One example per command" section')
  const block = /^```sh\n([\s\S]*?)^```/m.exec(readme.slice(from))
  return block![1]!.split('\n').filter((l) => l.trim() !== '')
}

/** What each step prints, in README order (the README's prose says the same). */
const STEPS: { line: RegExp; stdout: RegExp }[] = [
  { line: /^client health check --wait /, stdout: /^readyz: healthy \(200, [\d.]+ms\)\n$/ },
  { line: /^kubectl create deployment web --image=nginx --replicas=2$/, stdout: /^deployment\.apps\/web created\n$/ },
  // kubectl's rollout_status.go: the last line once every replica is updated and available.
  { line: /^kubectl rollout status deployment\/web$/, stdout: /deployment "web" successfully rolled out\n$/ },
  { line: /^kubectl get pods$/, stdout: /^NAME +READY +STATUS +RESTARTS +AGE\n(web-[a-z0-9]+-[a-z0-9]{5} +1\/1 +Running +0 +\d+s\n){2}$/ },
  { line: /^client patch deployment web -p /, stdout: /^deployment\.apps\/web patched\n$/ },
]

describe("README: the quick start, as written (end to end)", function () {
  this.timeout(180_000)
  let home: string
  let server: ChildProcess | undefined
  let serverLog = ''
  let env: NodeJS.ProcessEnv
  let port: number

  before(async function () {
    if (!existsSync(KUBECTL)) {
      if (process.env.CI) throw new Error(`${KUBECTL} is missing: the quick start test cannot run in CI`)
      this.skip()
    }
    home = mkdtempSync(join(tmpdir(), 'client-quick-start-'))
    if (FROM_CLONE) {
      // From `git clone` on (issue 38's acceptance): the README's `npm ci` in the clone, with the
      // fresh HOME, an empty npm cache and no npm configuration from the environment; nothing
      // may come from nodejs.org (better-sqlite3's fallback build uses the local Node headers).
      this.timeout(900_000)
      source = join(home, 'clone')
      const cloned = spawnSync('git', ['clone', '-q', root, source], { encoding: 'utf8' })
      assert.equal(cloned.status, 0, cloned.stderr)
      const npmEnv = { ...withoutNpmConfig(process.env), HOME: home, PWD: source, npm_config_cache: join(home, '.npm-cache') }
      const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=http'], { cwd: source, encoding: 'utf8', env: npmEnv, timeout: 840_000 })
      assert.equal(install.status, 0, `npm ci failed:\n${(install.stdout + install.stderr).slice(-4000)}`)
      assert.doesNotMatch(install.stdout + install.stderr, /nodejs\.org/, 'node-gyp downloaded Node headers')
    }
    // The README's second set-up command, into a global prefix of the test's own.
    const prefix = join(home, 'npm-global')
    const link = spawnSync('npm', ['link', '--ignore-scripts'], { cwd: source, encoding: 'utf8', env: { ...process.env, npm_config_prefix: prefix }, timeout: 120_000 })
    assert.equal(link.status, 0, `npm link --ignore-scripts failed: ${link.stderr}`)
    assert.doesNotMatch(link.stderr, /warn/i, 'npm link prints no warning')
    const linked = join(prefix, 'bin/client')
    assert.ok(existsSync(linked), `npm link put no client in ${prefix}/bin`)
    const bin = join(home, 'bin')
    mkdirSync(bin)
    ;[port] = (await freePorts(1)) as [number]
    // The linked `client`, plus the test's port for `server start`.
    writeFileSync(
      join(bin, 'client'),
      `#!/bin/sh\nif [ "$1" = server ] && [ "$2" = start ]; then exec "${linked}" "$@" --secure-port=${port}; fi\nexec "${linked}" "$@"\n`,
    )
    writeFileSync(join(bin, 'kubectl'), `#!/bin/sh\nexec "${KUBECTL}" "$@"\n`)
    chmodSync(join(bin, 'client'), 0o755)
    chmodSync(join(bin, 'kubectl'), 0o755)
    env = { PATH: `${bin}:${process.env.PATH}`, HOME: home, LANG: 'C.UTF-8', NO_COLOR: '1' }
  })

  after(async () => {
    if (server?.exitCode === null) {
      server.kill('SIGKILL')
      await sleep(200)
    }
    if (home) rmSync(home, { recursive: true, force: true })
  })

  it('starts the cluster as npm start does, waits, runs each kubectl and client step, and stops on Ctrl-C', async () => {
    const setUp = readmeBlocks('Set up')
    assert.deepEqual(setUp, [['npm ci && npm start'], ['npm test']], 'the set-up is two blocks: install and start, then test')
    const blocks = readmeBlocks('Quick start')
    assert.equal(blocks.length, 1, 'the quick start is one block of steps: it starts nothing')
    const steps = blocks[0]!
    assert.equal(steps.length, STEPS.length, `the quick start has ${steps.length} steps, the test knows ${STEPS.length}`)

    // `npm start`, as package.json writes it, on the test's port; `exec` makes the server the
    // process we hold (stopped by its PID) where npm would stand between.
    const start = (JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
    assert.match(start, /^node bin\/run\.js cluster start /)
    server = spawn('bash', ['-c', `exec ${start} --secure-port=${port}`], { cwd: source, env, stdio: ['ignore', 'pipe', 'pipe'] })
    server.stdout!.on('data', (d) => (serverLog += d))
    server.stderr!.on('data', (d) => (serverLog += d))

    // Wait: the second block runs once the server has merged its context into ~/.kube/config.
    const kubeconfig = join(home, '.kube/config')
    for (let i = 0; i < 600 && !existsSync(kubeconfig); i++) {
      assert.equal(server.exitCode, null, `the server exited:\n${serverLog}`)
      await sleep(100)
    }
    assert.ok(existsSync(kubeconfig), `no ${kubeconfig} after 60 s:\n${serverLog}`)
    assert.ok(existsSync(join(home, '.local/state/client/certs/ca.crt')), 'the certificates are in the per-user state directory')

    for (const [i, line] of steps.entries()) {
      const step = STEPS[i]!
      assert.match(line, step.line, `quick start step ${i + 1} changed: ${line}`)
      const run = spawnSync('bash', ['-c', line], { env, encoding: 'utf8', timeout: 90_000 })
      assert.equal(run.status, 0, `step ${i + 1} (${line}) failed:\n${run.stdout}${run.stderr}\nserver:\n${serverLog.slice(-2000)}`)
      assert.match(run.stdout, step.stdout, `step ${i + 1} (${line}) printed:\n${run.stdout}`)
    }

    // One example per command, as written, from the clone (the examples' files are shipped).
    const examples = exampleLines()
    const run = (line: string) => spawnSync('bash', ['-c', line], { cwd: source, env, encoding: 'utf8', timeout: 90_000 })
    const patchLine = examples.find((l) => l.startsWith('client patch --local '))
    assert.ok(patchLine, examples.join('\n'))
    const patched = run(patchLine)
    assert.equal(patched.status, 0, patched.stderr)
    // What kubectl prints for the same command line.
    const byKubectl = run(patchLine.replace(/^client /, 'kubectl '))
    assert.equal(byKubectl.status, 0, byKubectl.stderr)
    assert.equal(patched.stdout, byKubectl.stdout)
    assert.match(patched.stdout, /^ {2}replicas: 3$/m)
    const validateLine = examples.find((l) => l.startsWith('client flags validate '))!
    const validated = run(validateLine)
    assert.equal(validated.status, 1)
    // kube-apiserver's own message for --secure-port=0.
    assert.match(validated.stdout, /^error: --secure-port 0 must be between 1 and 65535, inclusive\. It cannot be turned off with 0/)
    const healthLine = examples.find((l) => l.startsWith('client health check '))!
    const probed = run(healthLine)
    assert.equal(probed.status, 0, probed.stdout + probed.stderr)
    assert.equal((JSON.parse(probed.stdout) as { verdict: string }).verdict, 'healthy')
    assert.ok(examples.some((l) => /^client health watch\b/.test(l)), 'health watch is shown (it needs a terminal: not run here)')
    const validateFiles = run(examples.find((l) => l.startsWith('client validate '))!)
    assert.equal(validateFiles.status, 0, validateFiles.stdout + validateFiles.stderr)
    assert.match(validateFiles.stdout, /^6 objects: 0 errors, 0 warnings\n$/)
    // The offline answer is the running cluster's: the same RBAC files applied, kubectl asked.
    const canILine = examples.find((l) => l.startsWith('client auth can-i '))!
    const offline = run(canILine)
    assert.equal(run('kubectl apply -f examples/rbac.yaml').status, 0)
    const online = run(canILine.replace(/^client /, 'kubectl ').replace(/ --rbac-from \S+/, ''))
    assert.deepEqual([offline.status, offline.stdout], [online.status, online.stdout])
    assert.deepEqual([offline.status, offline.stdout], [1, 'no\n'])

    // Stop with Ctrl-C: a graceful shutdown that exits 0.
    const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)))
    server.kill('SIGINT')
    assert.equal(await exited, 0, serverLog.slice(-2000))
    assert.match(serverLog, new RegExp(`\\] Storing data in ${home}/\\.local/share/client/data\\n`), `the start-up log names the fresh data directory:\n${serverLog}`)

    // The last example: the merged context taken out again (kubectl config's messages).
    const removeLine = examples.find((l) => l.startsWith('client kubeconfig remove'))!
    const removed = run(removeLine)
    assert.equal(removed.status, 0, removed.stderr)
    assert.match(removed.stdout, new RegExp(`^deleted context client from ${kubeconfig}\\n`))
    const contexts = spawnSync(KUBECTL, ['config', 'get-contexts', '-o', 'name'], { env, encoding: 'utf8' })
    assert.equal(contexts.stdout, '')
  })
})
