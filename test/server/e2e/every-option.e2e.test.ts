/**
 * Every server option of the catalogue in effect (issue 34's first acceptance criterion): the
 * built server is started with every option of SERVER_OPTIONS set to a valid non-default value
 * (test/support/option-values.ts, the files they name written by the test), in a few runs
 * because some options exclude others, and nothing may be reported as not in effect or set aside
 * (the start-up warning that named options without behaviour is gone with the last of them). Each run's
 * command line must pass `client flags validate` with no error, and the runs together must give
 * every option of the catalogue, so an option added to the catalogue without a line in the
 * table fails here.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SERVER_OPTIONS } from '../../../src/core/options/catalogue/index.js'
import { ApiServer, BIN, type ClientCredentials } from '../../support/api-server.js'
import { EtcdServer, freePorts, makeTlsFiles, requireEtcd } from '../../support/etcd.js'
import { TestJwtSigner } from '../../support/external-jwt-signer.js'
import { HttpSink } from '../../support/http-sink.js'
import { OidcIssuer } from '../../support/oidc-issuer.js'
import { type OptionFiles, writeOptionFiles } from '../../support/option-files.js'
import { OPTION_VALUES, RUNS, type RunInputs, type RunName, runArgs, runOptions } from '../../support/option-values.js'
import { requireTool } from '../../support/tools.js'

/**
 * A warning or error line saying that something asked for is not done: the start-up warning that
 * once named the options without behaviour, or any later one that sets an option aside.
 */
const SET_ASIDE = /^[WE]\d{4} .*(not in effect|not applied|is ignored|ignoring|not supported|has no effect)/i
/** The reference's error for an enabled admission plugin that is not registered. */
const UNREGISTERED_PLUGIN = /unknown admission plugin|admission plugin[^\n]*not registered/i

const READY_WITHIN_MS: Record<RunName, number> = { flags: 120_000, files: 120_000, etcd: 180_000 }

const HARNESS_OPTIONS = Object.entries(OPTION_VALUES)
  .filter(([, entry]) => entry.harness !== undefined)
  .map(([name]) => name)

interface Validation {
  code: number | null
  report: { valid: boolean; errors: Array<{ rule: string; message: string; option?: string }> }
  stderr: string
}

/** `client flags validate -o json -- <args>` of the built binary. */
function flagsValidate(args: readonly string[]): Promise<Validation> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'flags', 'validate', '-o', 'json', '--', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.once('error', reject)
    child.once('exit', (code) => {
      try {
        resolve({ code, report: JSON.parse(stdout), stderr })
      } catch (err) {
        reject(new Error(`flags validate printed no JSON (exit ${code}): ${stdout}${stderr}`, { cause: err }))
      }
    })
  })
}

/** The server's own arguments, as started (after `server start`). */
function serverArgs(server: ApiServer): string[] {
  const argv = server.child.spawnargs
  const start = argv.findIndex((arg, i) => arg === 'start' && argv[i - 1] === 'server')
  return argv.slice(start + 1)
}

/** The option names a command line gives. */
function givenNames(args: readonly string[]): Set<string> {
  return new Set(args.map((arg) => /^--([^=]+)/.exec(arg)?.[1]).filter((name): name is string => name !== undefined))
}

/** Polls /readyz until it answers 200, failing with the server's output if it exits or never does. */
async function waitReady(server: ApiServer, as: ClientCredentials | undefined, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last = ''
  for (;;) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      throw new Error(`server exited (${server.child.exitCode ?? server.child.signalCode}):\n${server.logs}`)
    }
    try {
      const reply = await server.get('/readyz', {}, 'GET', undefined, as)
      if (reply.status === 200) return
      last = `${reply.status}: ${reply.body}`
    } catch (err) {
      last = String(err)
    }
    if (Date.now() > deadline) throw new Error(`/readyz did not answer 200 within ${timeoutMs} ms (last: ${last})\n${server.logs}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

describe('server: every option of the catalogue in effect (end to end)', function () {
  this.timeout(240_000)
  let dir: string
  let sink: HttpSink
  let issuer: OidcIssuer
  let files: OptionFiles
  let peerPort: number

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), 'every-option-'))
    sink = await HttpSink.start()
    issuer = await OidcIssuer.start()
    const [tracingPort, port] = await freePorts(2)
    peerPort = port!
    files = await writeOptionFiles(dir, {
      sinkUrl: sink.url,
      oidcIssuerUrl: issuer.url,
      oidcCaPem: issuer.tls.caPem,
      tracingEndpoint: `127.0.0.1:${tracingPort}`,
    })
  })

  after(async function () {
    await issuer?.close()
    await sink?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('the runs together give every server option of the catalogue, each with a value other than its default', () => {
    const catalogue = new Map(SERVER_OPTIONS.map((spec) => [spec.name, spec]))
    const missing = [...catalogue.keys()].filter((name) => !(name in OPTION_VALUES))
    assert.deepEqual(missing, [], `options of the catalogue with no line in test/support/option-values.ts: ${missing.join(', ')}`)
    const strays = Object.keys(OPTION_VALUES).filter((name) => !catalogue.has(name))
    assert.deepEqual(strays, [], `lines of test/support/option-values.ts for no option of the catalogue: ${strays.join(', ')}`)

    // A stand-in etcd: the values are only compared here, nothing is started.
    const inputs: RunInputs = { ...files, peerPort, etcd: { url: 'https://127.0.0.1:2379', ca: 'ca.crt', clientCert: 'client.crt', clientKey: 'client.key' } }
    const given = new Set([...HARNESS_OPTIONS, ...RUNS.flatMap((run) => runOptions(run, inputs).map(({ name }) => name))])
    const notGiven = [...catalogue.keys()].filter((name) => !given.has(name))
    assert.deepEqual(notGiven, [], `options that no run gives: ${notGiven.join(', ')}`)

    for (const run of RUNS) {
      for (const { name, values } of runOptions(run, inputs)) {
        const spec = catalogue.get(name)!
        if (OPTION_VALUES[name]!.whyDefault) continue
        assert.notEqual(values.join(','), spec.default, `--${name} in run ${run} is given its default`)
      }
    }
  })

  for (const run of RUNS) {
    describe(`run "${run}"`, function () {
      let etcd: EtcdServer | undefined
      let signer: TestJwtSigner | undefined
      let server: ApiServer | undefined
      let expected: string[]
      /** Who the test's requests are: the run's own administrator where anonymous access is off. */
      let as: ClientCredentials | undefined

      before(async function () {
        let inputs: RunInputs = { ...files, peerPort }
        if (run === 'etcd') {
          requireEtcd(this)
          // Its certificates are made with the openssl CLI.
          requireTool(this, 'openssl')
          const tls = makeTlsFiles(dir, 'etcd')
          etcd = await EtcdServer.start({ tls })
          inputs = { ...inputs, etcd: { url: etcd.clientUrl, ca: tls.ca, clientCert: tls.clientCert, clientKey: tls.clientKey } }
        }
        if (run === 'files') {
          // --service-account-signing-endpoint: the external signer the server asks at start-up.
          signer = await TestJwtSigner.start()
          inputs = { ...inputs, signingEndpoint: signer.socketPath }
        }
        expected = [...HARNESS_OPTIONS, ...runOptions(run, inputs).map(({ name }) => name)]
        as = runOptions(run, inputs).some(({ name }) => name === 'client-ca-file') ? files.admin : undefined
        server = await ApiServer.start({ args: runArgs(run, inputs), waitFor: 'none' })
      })

      after(async function () {
        await server?.stop()
        await signer?.stop()
        await etcd?.destroy()
      })

      it('its command line gives every option the table assigns to it', () => {
        const names = givenNames(serverArgs(server!))
        const absent = expected.filter((name) => !names.has(name))
        assert.deepEqual(absent, [], `not on the command line: ${absent.join(', ')}`)
      })

      it('its command line passes `client flags validate` with no error', async () => {
        const { code, report, stderr } = await flagsValidate(serverArgs(server!))
        const errors = report.errors.map((e) => `${e.rule} ${e.option ?? ''}: ${e.message}`)
        assert.deepEqual(errors, [], `flags validate reported errors:\n${errors.join('\n')}\n${stderr}`)
        assert.equal(report.valid, true)
        assert.equal(code, 0)
      })

      it('the server becomes ready', async () => {
        await waitReady(server!, as, READY_WITHIN_MS[run])
      })

      it('nothing is reported as not in effect or set aside, and no admission plugin as unregistered', async () => {
        // Stopped first: what the log buffers (--log-text-info-buffer-size) is flushed on the way out.
        await server!.stop(true)
        const lines = server!.logs.split('\n')
        // What the harness gives every run (--data-dir beside --store-servers) is not the table's to answer for.
        const harness = new RegExp(`--(${HARNESS_OPTIONS.join('|')}) `)
        const setAside = lines.filter((line) => SET_ASIDE.test(line) && !harness.test(line))
        assert.deepEqual(setAside, [], `reported as not in effect or set aside:\n${setAside.join('\n')}`)
        const unregistered = lines.filter((line) => UNREGISTERED_PLUGIN.test(line))
        assert.deepEqual(unregistered, [], `admission plugins reported unregistered:\n${unregistered.join('\n')}`)
      })
    })
  }
})
