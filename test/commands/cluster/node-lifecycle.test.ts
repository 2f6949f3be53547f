/**
 * The node lifecycle end to end with kubectl 1.35: a node whose heartbeats stop (here one
 * written by hand, whose Ready heartbeat nobody renews, with --node-monitor-grace-period=3s)
 * becomes NotReady in `kubectl get nodes`, gets the unreachable taints, and a pod on it that
 * tolerates them for 2 s is evicted after them (its deletion begun, with the
 * TaintManagerEviction event), while a pod tolerating them for ever stays.
 */
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openCluster, waitForKubectl } from '../../support/cluster.js'
import type { KubectlSession } from '../../support/kubectl-session.js'

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

describe('cluster start: a node whose heartbeats stop (kubectl 1.35)', function () {
  this.timeout(120_000)
  let k: KubectlSession

  before(async function () {
    k = await openCluster(this, 'cluster-lifecycle-', { args: ['--nodes=1', '--node-monitor-grace-period=3s'] })
  })
  after(async () => k?.close())

  it('becomes NotReady and tainted, and its pods are evicted after their toleration', async () => {
    const file = join(k.tmp, 'objects.yaml')
    const pod = (name: string, seconds?: number) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  nodeName: silent
  containers: [{name: app, image: nginx}]
  tolerations:
  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute${seconds === undefined ? '' : `, tolerationSeconds: ${seconds}`}}
`
    writeFileSync(file, `apiVersion: v1\nkind: Node\nmetadata: {name: silent}\n---\n${pod('brief', 2)}---\n${pod('patient')}`)
    const created = await k.run('create', '-f', file)
    assert.equal(created.code, 0, created.stderr)
    const heartbeat = { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: iso(Date.now()), lastTransitionTime: iso(Date.now()) }] } }
    const patched = await k.run('patch', 'node', 'silent', '--subresource=status', '--type=merge', '-p', JSON.stringify(heartbeat))
    assert.equal(patched.code, 0, patched.stderr)

    await waitForKubectl(k, ['get', 'node', 'silent', '--no-headers'], /^silent\s+NotReady\s/)
    const taints = (await k.run('get', 'node', 'silent', '-o', 'jsonpath={range .spec.taints[*]}{.key}:{.effect} {end}')).stdout.trim()
    assert.equal(taints, 'node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/unreachable:NoExecute')
    const reason = (await k.run('get', 'node', 'silent', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].reason}')).stdout
    assert.equal(reason, 'NodeStatusUnknown')

    await waitForKubectl(k, ['get', 'pod', 'brief', '-o', 'jsonpath={.metadata.deletionTimestamp}'], /\d{4}-/, 20_000)
    const events = (await k.run('get', 'events', '--field-selector=involvedObject.name=brief', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}')).stdout
    assert.match(events, /^TaintManagerEviction: Marking for deletion Pod default\/brief$/m)
    const patient = (await k.run('get', 'pod', 'patient', '-o', 'jsonpath={.metadata.deletionTimestamp}')).stdout
    assert.equal(patient, '')
    // Simulated nodes keep posting their status: they stay Ready.
    assert.match((await k.run('get', 'node', 'node-0', '--no-headers')).stdout, /^node-0\s+Ready\s/)
  })
})
