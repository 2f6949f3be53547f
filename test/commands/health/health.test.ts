import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { ApiServer, BIN } from '../../support/api-server.js'
import { EtcdServer, requireEtcd } from '../../support/etcd.js'
import { SPEC_READYZ_CHECKS } from '../../support/spec-checks.js'
import { requireTool } from '../../support/tools.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Run {
  code: number | null
  stdout: string
  stderr: string
  /** When the process exited (ms since the epoch). */
  endedAt: number
}

function client(args: string[], timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`client ${args.join(' ')} did not exit in ${timeoutMs}ms:\n${stdout}\n${stderr}`))
    }, timeoutMs)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, endedAt: Date.now() })
    })
  })
}

const target = (server: ApiServer) => [`--server=https://127.0.0.1:${server.port}`, `--certificate-authority=${server.certDir}/ca.crt`]

describe('client health check (end to end)', function () {
  // Generous: these tests start servers, etcd and clients, which take many seconds each on a loaded machine.
  this.timeout(240_000)

  it('--wait returns 0 once the server becomes ready, long before its timeout', async () => {
    const server = await ApiServer.start({ waitFor: 'none' })
    try {
      // The CA exists once the server listens; the check starts while post-start hooks still run.
      await server.waitUntil('/livez', undefined, 30_000)
      const check = client(['health', 'check', '--wait', '--timeout', '30s', ...target(server)])
      const ready = await server.waitUntil('/readyz', 200, 30_000)
      const readyAt = Date.now()
      assert.equal(ready.body, 'ok')
      const run = await check
      assert.equal(run.code, 0, run.stdout + run.stderr)
      assert.match(run.stdout, /^readyz: healthy \(200, [\d.]+ms\)\n$/)
      // Not waiting out the 30 s timeout: a generous ceiling, well under it.
      assert.ok(run.endedAt - readyAt < 15_000, `exited ${run.endedAt - readyAt} ms after the server became ready`)
    } finally {
      await server.stop()
    }
  })

  it('exit codes: 1 for a failing check (with the report), 3 unreachable or untrusted, 2 usage', async () => {
    const server = await ApiServer.start({ waitFor: 'ready' })
    try {
      server.setFaults(['log=fail:logging blocked'])
      const failing = await client(['health', 'check', '--endpoint', 'livez', ...target(server)])
      assert.equal(failing.code, 1)
      assert.match(failing.stdout, /\[-\]log failed: reason withheld\n/)
      assert.match(failing.stdout, /livez: unhealthy \(500, [\d.]+ms\): log failed\n$/)
      const excluded = await client(['health', 'check', '--endpoint', 'livez', '--exclude', 'log', '-o', 'json', ...target(server)])
      assert.equal(excluded.code, 0)
      const json = JSON.parse(excluded.stdout)
      assert.equal(json.verdict, 'healthy')
      assert.deepEqual(json.checks.find((c: { name: string }) => c.name === 'log'), { name: 'log', state: 'excluded' })
      // One check's path (/livez/log) is system:monitoring's, not anonymous: ask as the administrator.
      const one = await client(['health', 'check', '--endpoint', 'livez', '--check', 'log', '--verbose', `--kubeconfig=${server.adminKubeconfig}`])
      assert.equal(one.code, 1)
      assert.match(one.stdout, /^internal server error: logging blocked\n/)
      server.setFaults([])
      const untrusted = await client(['health', 'check', `--server=https://127.0.0.1:${server.port}`])
      assert.equal(untrusted.code, 3)
      assert.match(untrusted.stdout, /x509: certificate signed by unknown authority/)
    } finally {
      await server.stop()
    }
    const refused = await client(['health', 'check', '--server=https://127.0.0.1:1'])
    assert.equal(refused.code, 3)
    assert.match(refused.stdout, /readyz: unreachable: .*127\.0\.0\.1:1 was refused/)
    const usage = await client(['health', 'check', '--endpoint', 'nope', '--server=https://127.0.0.1:1'])
    assert.equal(usage.code, 2)
    const badTimeout = await client(['health', 'check', '--wait', '--timeout', 'soon', '--server=https://127.0.0.1:1'])
    assert.equal(badTimeout.code, 2)
    assert.match(badTimeout.stderr, /invalid --timeout "soon"/)
    assert.doesNotMatch(badTimeout.stderr, /\n\s+at /)
  })

  describe('with a real etcd', function () {
    before(function () {
      requireEtcd(this)
    })

    it('store down: check fails (1), watch logs store ok -> failed, then recovery when etcd is back', async () => {
      const etcd = await EtcdServer.start()
      const server = await ApiServer.start({ waitFor: 'ready', args: [`--store-servers=${etcd.clientUrl}`, '--store-healthcheck-timeout=1s', '--store-readycheck-timeout=1s'] })
      const watch = spawn(process.execPath, [BIN, 'health', 'watch', '--interval', '300ms', ...target(server)], { stdio: ['ignore', 'pipe', 'pipe'] })
      let lines = ''
      watch.stdout.on('data', (d) => (lines += d))
      const waitForLine = async (pattern: RegExp, timeoutMs = 60_000) => {
        const deadline = Date.now() + timeoutMs
        while (!pattern.test(lines)) {
          if (Date.now() > deadline) throw new Error(`no line matching ${pattern} in:\n${lines}`)
          await sleep(100)
        }
      }
      try {
        await waitForLine(/readyz store ok\n/)
        await etcd.stop()
        await waitForLine(/readyz store ok -> failed\n/)
        await waitForLine(/readyz verdict healthy -> unhealthy \(500\)\n/)
        const check = await client(['health', 'check', ...target(server)])
        assert.equal(check.code, 1)
        assert.match(check.stdout, /\[-\]store failed: reason withheld/)
        await etcd.start()
        await waitForLine(/readyz store failed -> ok\n/)
        assert.equal((await client(['health', 'check', ...target(server)])).code, 0)
        for (const line of lines.trim().split('\n')) assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z (livez|readyz) /, line)
      } finally {
        watch.kill('SIGINT')
        await server.stop()
        await etcd.destroy()
      }
    })

    it('--wait --timeout 30s against a server whose store is down returns 1 after 30 s', async function () {
      this.timeout(90_000)
      const etcd = await EtcdServer.start()
      const server = await ApiServer.start({ waitFor: 'ready', args: [`--store-servers=${etcd.clientUrl}`, '--store-readycheck-timeout=1s'] })
      try {
        await etcd.stop()
        await server.waitForBody('/readyz', /\[-\]store failed/, 500, 15_000)
        const started = Date.now()
        const run = await client(['health', 'check', '--wait', '--timeout', '30s', ...target(server)], 60_000)
        const took = run.endedAt - started
        assert.equal(run.code, 1, run.stdout)
        // It waits out the whole timeout, and then stops (a generous ceiling on the stop).
        assert.ok(took >= 30_000 && took < 60_000, `took ${took} ms`)
        assert.match(run.stdout, /readyz: unhealthy \(500, [\d.]+ms\): store failed\n$/)
      } finally {
        await server.stop()
        await etcd.destroy()
      }
    })
  })

  it('watch (lines): SIGTERM with a shutdown delay shows the shutdown check fail first', async () => {
    const server = await ApiServer.start({ waitFor: 'ready', args: ['--shutdown-delay-duration=3s'] })
    const watch = spawn(process.execPath, [BIN, 'health', 'watch', '--interval', '200ms', ...target(server)], { stdio: ['ignore', 'pipe', 'pipe'] })
    let lines = ''
    watch.stdout.on('data', (d) => (lines += d))
    try {
      while (!/readyz shutdown ok\n/.test(lines)) await sleep(50)
      server.signal('SIGTERM')
      const deadline = Date.now() + 5000
      while (!/ -> failed\n/.test(lines) && Date.now() < deadline) await sleep(50)
      const firstFailure = lines.split('\n').find((l) => / -> failed$/.test(l))
      assert.match(firstFailure ?? '', / readyz shutdown ok -> failed$/)
      assert.doesNotMatch(lines, /livez \S+ ok -> failed/, 'livez stays healthy during the delay')
    } finally {
      watch.kill('SIGINT')
      await server.stop()
    }
  })

  it('watch --once prints a snapshot and exits with the check exit codes', async () => {
    const server = await ApiServer.start({ waitFor: 'ready' })
    try {
      const run = await client(['health', 'watch', '--once', ...target(server)])
      assert.equal(run.code, 0)
      for (const name of SPEC_READYZ_CHECKS) assert.match(run.stdout, new RegExp(`readyz +ok +${name.replace(/\//g, '\\/')}\\n`), name)
      server.setFaults(['store=fail:down'])
      await server.waitForBody('/readyz', /\[-\]store failed/, 500, 5000)
      const failing = await client(['health', 'watch', '--once', ...target(server)])
      assert.equal(failing.code, 1)
    } finally {
      await server.stop()
    }
  })

  it('watch in a real 80x24 terminal (tmux) shows every readyz check and redraws on a change', async function () {
    const tmux = requireTool(this, 'tmux')
    const server = await ApiServer.start({ waitFor: 'ready' })
    const session = `client-watch-${process.pid}`
    const capture = () => spawnSync(tmux, ['capture-pane', '-p', '-t', session], { encoding: 'utf8' }).stdout
    try {
      // Ink renders nothing live when it sees a CI environment; this is a real terminal.
      const command = ['env', '-u', 'CI', process.execPath, BIN, 'health', 'watch', '--interval', '500ms', ...target(server)].map((a) => `'${a}'`).join(' ')
      assert.equal(spawnSync(tmux, ['new-session', '-d', '-s', session, '-x', '80', '-y', '24', command]).status, 0)
      let screen = ''
      const waitFor = async (pattern: RegExp, timeoutMs = 15_000) => {
        const deadline = Date.now() + timeoutMs
        while (!pattern.test((screen = capture()))) {
          if (Date.now() > deadline) throw new Error(`screen never matched ${pattern}:\n${screen}`)
          await sleep(100)
        }
      }
      await waitFor(/apiservice-openapi-controller/)
      const rows = screen.split('\n')
      assert.ok(rows.every((r) => r.length <= 80), 'fits 80 columns')
      for (const name of SPEC_READYZ_CHECKS) {
        const visible = name.length > 40 ? name.slice(0, 30) : name
        assert.ok(screen.includes(visible), `${name} on screen:\n${screen}`)
      }
      // The screen is redrawn with the change (how soon is not a test's business on a shared machine).
      server.setFaults(['store=fail:down'])
      await waitFor(/FAILED/)
      spawnSync(tmux, ['send-keys', '-t', session, 'q'])
      const deadline = Date.now() + 5000
      while (spawnSync(tmux, ['has-session', '-t', session]).status === 0 && Date.now() < deadline) await sleep(100)
      assert.notEqual(spawnSync(tmux, ['has-session', '-t', session]).status, 0, 'q quits')
    } finally {
      spawnSync(tmux, ['kill-session', '-t', session])
      await server.stop()
    }
  })
})
