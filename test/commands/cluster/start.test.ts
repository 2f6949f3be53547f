/**
 * `client cluster start` end to end with kubectl 1.35: N simulated nodes registered and Ready
 * (kubectl's STATUS column), a pod bound to one of them (spec.nodeName) Running with its Ready
 * condition True and an IP from the node's pod CIDR, `kubectl logs` and `exec` answered by the
 * simulated node agent, kube-controller-manager's Lease held, and the command line checked with
 * the reference's messages (kube-controller-manager's for an unknown controller).
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { BIN } from '../../support/api-server.js'
import { openCluster, waitForKubectl } from '../../support/cluster.js'
import type { KubectlSession } from '../../support/kubectl-session.js'

describe('cluster start (kubectl 1.35)', function () {
  this.timeout(120_000)
  let k: KubectlSession

  before(async function () {
    k = await openCluster(this, 'cluster-start-', { args: ['--nodes=3'] })
  })
  after(async () => k?.close())

  it('registers N nodes that kubectl shows Ready, each with its pod CIDR', async () => {
    const out = await waitForKubectl(k, ['get', 'nodes', '--no-headers'], /^(node-\d\s+Ready\s.*\n?){3}$/)
    const rows = out.trim().split('\n').map((l) => l.split(/\s+/))
    assert.deepEqual(rows.map((r) => [r[0], r[1]]), [['node-0', 'Ready'], ['node-1', 'Ready'], ['node-2', 'Ready']])
    const cidrs = (await k.run('get', 'nodes', '-o', 'jsonpath={.items[*].spec.podCIDR}')).stdout
    assert.equal(cidrs, '10.244.0.0/24 10.244.1.0/24 10.244.2.0/24')
  })

  it('renews a Lease per node in kube-node-lease', async () => {
    const out = await waitForKubectl(k, ['get', 'leases', '-n', 'kube-node-lease', '-o', 'jsonpath={.items[*].spec.holderIdentity}'], /node-2/)
    assert.equal(out, 'node-0 node-1 node-2')
  })

  it('moves a pod bound to a node to Running and Ready, with an IP of its node', async () => {
    const created = await k.run('run', 'web', '--image=nginx:1.27', '--overrides={"spec":{"nodeName":"node-1"}}')
    assert.equal(created.code, 0, created.stderr)
    await waitForKubectl(k, ['get', 'pod', 'web', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'], /^True$/)
    const phase = (await k.run('get', 'pod', 'web', '-o', 'jsonpath={.status.phase} {.status.podIP} {.status.containerStatuses[0].ready}')).stdout
    assert.match(phase, /^Running 10\.244\.1\.\d+ true$/)
    const row = (await k.run('get', 'pod', 'web', '--no-headers')).stdout.split(/\s+/)
    assert.deepEqual(row.slice(0, 3), ['web', '1/1', 'Running'])
    // kubectl wait, as CI scripts use it.
    const waited = await k.run('wait', '--for=condition=Ready', 'pod/web', '--timeout=20s')
    assert.equal(waited.code, 0, waited.stderr)
  })

  it('answers kubectl logs and exec through the simulated node agent', async () => {
    await waitForKubectl(k, ['get', 'pod', 'web', '-o', 'jsonpath={.status.phase}'], /Running/)
    const logs = await k.run('logs', 'web')
    assert.equal(logs.code, 0, logs.stderr)
    // Names what a reader would look for: the container, its pod, its image and its node (docs/cluster.md).
    assert.match(logs.stdout, /web.*default\/web.*nginx:1\.27.*node-1/)
    const exec = await k.run('exec', 'web', '--', 'echo', 'hello', 'node')
    assert.equal(exec.code, 0, exec.stderr)
    assert.equal(exec.stdout, 'hello node\n')
    const failing = await k.run('exec', 'web', '--', 'false')
    // kubectl's exit code is the command's.
    assert.equal(failing.code, 1)
    const loop = await k.run('exec', 'web', '--', 'sh', '-c', 'for i in $(seq 1 3); do echo line $i; done; exit 4')
    assert.deepEqual([loop.code, loop.stdout], [4, 'line 1\nline 2\nline 3\n'])
    // An interactive shell reading its commands from stdin, as the Python client's exec test does.
    const interactive = await k.runWithInput('echo test string 1\necho test string 2 >&2\nexit\n', 'exec', '-i', 'web', '--', '/bin/sh')
    assert.deepEqual([interactive.code, interactive.stdout, interactive.stderr], [0, 'test string 1\n', 'test string 2\n'])
  })

  it('removes a deleted pod', async () => {
    await k.run('run', 'gone', '--image=busybox', '--overrides={"spec":{"nodeName":"node-0"}}')
    await waitForKubectl(k, ['get', 'pod', 'gone', '-o', 'jsonpath={.status.phase}'], /Running/)
    const deleted = await k.run('delete', 'pod', 'gone', '--timeout=20s')
    assert.equal(deleted.code, 0, deleted.stderr)
    const after = await k.run('get', 'pod', 'gone')
    assert.match(after.stderr, /NotFound/)
  })

  it("holds kube-controller-manager's Lease", async () => {
    const holder = await waitForKubectl(k, ['get', 'lease', '-n', 'kube-system', 'kube-controller-manager', '-o', 'jsonpath={.spec.holderIdentity}'], /_/)
    assert.match(holder, /^.+_[0-9a-f-]{36}$/)
  })
})

describe('cluster start: the command line', function () {
  this.timeout(30_000)
  const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 20_000 })

  it("refuses an unknown controller with kube-controller-manager's message", () => {
    const r = run('cluster', 'start', '--bind-address=127.0.0.1', '--secure-port=1', '--controllers=*,-nosuch')
    assert.equal(r.status, 1)
    assert.match(r.stderr, /"nosuch" is not in the list of known controllers/)
  })

  it('leaves server start without the cluster options', () => {
    const r = run('server', 'start', '--nodes=3')
    assert.equal(r.status, 1)
    assert.match(r.stderr, /unknown flag: --nodes/)
  })
})
