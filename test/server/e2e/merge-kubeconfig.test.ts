/**
 * `server start --merge-kubeconfig` and `client kubeconfig remove`, with the real kubectl: the
 * server's context is merged into a kubeconfig that already holds another cluster's entries
 * and made current, so a plain `kubectl --kubeconfig <file> get ns` reaches the server; the
 * other entries stay; `kubeconfig remove` takes the server's entries out again (kind's
 * behaviour for its own context), with kubectl config's messages.
 */
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { ApiServer, BIN } from '../../support/api-server.js'
import { requireTool } from '../../support/tools.js'

const run = promisify(execFile)

/** Another cluster's entries, as a user's ~/.kube/config holds them. */
const OTHER = `apiVersion: v1
kind: Config
clusters:
- name: other
  cluster:
    server: https://192.0.2.10:6443
users:
- name: other
  user:
    token: other-token
contexts:
- name: other
  context:
    cluster: other
    user: other
    namespace: team
current-context: other
preferences: {}
`

describe('server start --merge-kubeconfig and client kubeconfig remove (end to end)', function () {
  this.timeout(90_000)
  let server: ApiServer | undefined
  let dir: string

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'client-merge-kubeconfig-'))
  })
  after(async () => {
    await server?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('merges a current context that plain kubectl uses, keeps the other entries, and removes it on request', async function () {
    const kubectl = requireTool(this, 'kubectl')
    const file = join(dir, 'config')
    writeFileSync(file, OTHER, { mode: 0o600 })
    const otherBefore = async () => JSON.parse((await run(kubectl, ['--kubeconfig', file, 'config', 'view', '--raw', '-o', 'json', '--context', 'other', '--minify'])).stdout)
    const other = await otherBefore()

    server = await ApiServer.start({ args: [`--merge-kubeconfig=${file}`], waitFor: 'ready' })
    assert.equal(statSync(file).mode & 0o777, 0o600)
    const current = await run(kubectl, ['--kubeconfig', file, 'config', 'current-context'])
    assert.equal(current.stdout, 'client\n')
    const ns = await run(kubectl, ['--kubeconfig', file, 'get', 'ns', 'default', '-o', 'name'])
    assert.equal(ns.stdout, 'namespace/default\n')
    const contexts = await run(kubectl, ['--kubeconfig', file, 'config', 'get-contexts', '-o', 'name'])
    assert.deepEqual(contexts.stdout.split('\n').filter(Boolean).sort(), ['client', 'other'])
    assert.deepEqual(await otherBefore(), other, 'the other context, its cluster and user are as they were')

    // A restart merges again: still one entry of each.
    await server.stop()
    server = await ApiServer.start({ certDir: server.certDir, args: [`--merge-kubeconfig=${file}`], waitFor: 'ready' })
    const view = JSON.parse((await run(kubectl, ['--kubeconfig', file, 'config', 'view', '-o', 'json'])).stdout) as { clusters: { name: string }[]; users: { name: string }[] }
    assert.deepEqual(view.clusters.map((c) => c.name).sort(), ['client', 'other'])
    assert.deepEqual(view.users.map((u) => u.name).sort(), ['client', 'other'])
    assert.equal((await run(kubectl, ['--kubeconfig', file, 'get', 'ns', 'default', '-o', 'name'])).stdout, 'namespace/default\n')

    const removed = spawnSync(process.execPath, [BIN, 'kubeconfig', 'remove', '--kubeconfig', file], { encoding: 'utf8' })
    assert.equal(removed.status, 0, removed.stderr)
    assert.equal(removed.stdout, `deleted context client from ${file}\ndeleted cluster client from ${file}\ndeleted user client from ${file}\n`)
    assert.match(removed.stderr, /^warning: this removed your active context, use "kubectl config use-context" to select a different one\n$/)
    const left = await run(kubectl, ['--kubeconfig', file, 'config', 'get-contexts', '-o', 'name'])
    assert.equal(left.stdout, 'other\n')
    assert.deepEqual(await otherBefore(), other)
    // kubectl's own answer once no context is current.
    const none = spawnSync(kubectl, ['--kubeconfig', file, 'config', 'current-context'], { encoding: 'utf8' })
    assert.equal(none.status, 1)
    assert.match(none.stderr, /current-context is not set/)
    assert.ok(readFileSync(file, 'utf8').includes('other-token'))

    const again = spawnSync(process.execPath, [BIN, 'kubeconfig', 'remove', '--kubeconfig', file], { encoding: 'utf8' })
    assert.equal(again.status, 1)
    assert.equal(again.stderr, `error: cannot delete context client, not in ${file}\n`)
  })
})
