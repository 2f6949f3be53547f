/**
 * The built binary's fast entries (bin/run.js running dist/fast/*.cjs without oclif) against
 * the same command lines run through oclif itself, as bin/run.js did before them: the same
 * standard output, standard error and exit status, for plain command lines, usage errors
 * (which the fast entries hand to oclif) and help.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { BIN } from '../support/api-server.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const OCLIF = pathToFileURL(join(ROOT, 'dist/vendor/oclif-core.mjs')).href

describe('fast: the fast entries answer as oclif does (built binary)', function () {
  this.timeout(120_000)
  let dir: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'fast-entries-'))
    writeFileSync(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\ndata:\n  a: "1"\n')
    writeFileSync(join(dir, 'line.txt'), '--secure-port=6443 --authorization-mode=RBAC\n')
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  const env = () => ({ PATH: process.env.PATH, HOME: dir, KUBECONFIG: join(dir, 'none') })
  const viaBinary = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: dir, env: env(), encoding: 'utf8' })
  const viaOclif = (args: string[]) =>
    spawnSync(process.execPath, ['--input-type=module', '-e', `const core = await import(${JSON.stringify(OCLIF)}); await core.execute({ args: ${JSON.stringify(args)}, loadOptions: { root: ${JSON.stringify(ROOT)} } })`], {
      cwd: dir,
      env: env(),
      encoding: 'utf8',
    })

  const lines: string[][] = [
    ['patch', '--local', '-f', 'cm.yaml', '-p', '{"data":{"b":"2"}}', '-o', 'yaml'],
    ['patch', '--local', '-f', 'cm.yaml', '--type', 'json', '-p', '[{"op":"remove","path":"/data/a"}]', '-o', 'json'],
    ['patch', '--local', '-f', 'missing.yaml', '-p', '{}'],
    ['patch', '--local', '--bogus'],
    ['patch', '-h'],
    ['flags', 'validate', '--', '--secure-port=6443'],
    ['flags', 'validate', '-o', 'json', '--', '--secure-port=0'],
    ['flags', 'validate', '--file', 'line.txt', '--strict'],
    ['flags', 'validate', '--manifest', 'missing.yaml'],
    ['flags', 'validate', '--secure-port=0'],
    ['flags', 'validate', '--strict=maybe'],
    ['flags', 'validate', '-o', 'xml'],
    ['health', 'check', '--server', 'https://127.0.0.1:1', '--insecure-skip-tls-verify'],
    ['health', 'check', '--server', 'https://127.0.0.1:1', '-o', 'json', '--insecure-skip-tls-verify=true'],
    ['health', 'check', '--bogus'],
    ['health', 'check', '--endpoint', 'nope'],
    ['health', 'check'],
    // Command lines the server refuses before it listens (the server's own checks, exit 1).
    ['server', 'start', '--bogus-flag'],
    ['server', 'start', '--secure-port=abc'],
    ['server', 'start', '--authorization-mode=Nope', '--bind-address=127.0.0.1'],
  ]
  for (const args of lines) {
    it(args.join(' '), () => {
      // A probe's measured latency is the one figure that differs from run to run.
      const answer = (r: ReturnType<typeof spawnSync>) => ({ status: r.status, stdout: String(r.stdout).replace(/"latencyMs": \d+/g, '"latencyMs": N'), stderr: String(r.stderr) })
      assert.deepEqual(answer(viaBinary(args)), answer(viaOclif(args)))
    })
  }

  it('help for server start comes from oclif', () => {
    const r = viaBinary(['server', 'start', '--help'])
    assert.equal(r.status, 0)
    assert.match(r.stdout, /^Start the API server/)
    assert.match(r.stdout, /--secure-port/)
  })

  it('help for patch comes from oclif', () => {
    const r = viaBinary(['patch', '--help'])
    assert.equal(r.status, 0)
    assert.match(r.stdout, /^Update fields of a resource/)
    assert.match(r.stdout, /USAGE/)
  })
})
