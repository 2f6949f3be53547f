import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BIN } from '../../support/api-server.js'

describe('client <alias> (clientrc aliases, as kubectl kuberc)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'client-alias-'))
  const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir, ...env } })

  before(() => {
    writeFileSync(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "1"\n')
    writeFileSync(
      join(dir, 'rc.yaml'),
      'apiVersion: kubectl.config.k8s.io/v1beta1\nkind: Preference\naliases:\n- name: setdata\n  command: patch\n  prependArgs: [--local, --type, merge]\n  options:\n  - name: output\n    default: name\n',
    )
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('runs the alias command with its arguments and option defaults', () => {
    const r = run(['setdata', '-f', 'cm.yaml', '-p', '{"data":{"b":"2"}}', '--clientrc', 'rc.yaml'])
    assert.equal(r.status, 0, r.stderr)
    assert.equal(r.stdout, 'configmap/c\n')
  })

  it('explicit flags win over the alias defaults', () => {
    const r = run(['setdata', '-f', 'cm.yaml', '-p', '{"data":{"b":"2"}}', '-o', 'jsonpath={.data.b}', '--clientrc', 'rc.yaml'])
    assert.equal(r.stdout, '2')
  })

  it('an unknown command is still an error, and CLIENTRC=off turns aliases off', () => {
    // kubectl's answer to an unknown command: exit 1, `error: unknown command "..." for "kubectl"`.
    assert.equal(run(['nope']).status, 1)
    const off = run(['setdata', '-f', 'cm.yaml', '-p', '{}', '--clientrc', 'rc.yaml'], { CLIENTRC: 'off' })
    assert.equal(off.status, 1)
    assert.match(off.stderr, /^error: unknown command "setdata" for "client"\n/)
  })
})
