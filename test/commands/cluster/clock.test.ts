/**
 * `cluster start --clock`: the cluster's time starts at the given instant and runs on, so the
 * simulated nodes' heartbeats and their pods' times read it (the API server's own timestamps,
 * such as creationTimestamp, stay the real time, as a kube-apiserver's would).
 */
import assert from 'node:assert/strict'
import { openCluster, waitForKubectl } from '../../support/cluster.js'
import type { KubectlSession } from '../../support/kubectl-session.js'

describe('cluster start --clock (kubectl 1.35)', function () {
  this.timeout(90_000)
  let k: KubectlSession

  before(async function () {
    k = await openCluster(this, 'cluster-clock-', { args: ['--nodes=1', '--clock=2030-01-01T00:00:00Z'] })
  })
  after(async () => k?.close())

  it("drives the nodes' heartbeats and their pods' times", async () => {
    const heartbeat = await waitForKubectl(k, ['get', 'node', 'node-0', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].lastHeartbeatTime}'], /^2030-01-01T00:00:\d\dZ$/)
    assert.ok(heartbeat)
    const renew = (await k.run('get', 'lease', '-n', 'kube-node-lease', 'node-0', '-o', 'jsonpath={.spec.renewTime}')).stdout
    assert.match(renew, /^2030-01-01T00:00:/)
    await k.run('run', 'p', '--image=nginx', '--overrides={"spec":{"nodeName":"node-0"}}')
    const start = await waitForKubectl(k, ['get', 'pod', 'p', '-o', 'jsonpath={.status.startTime}'], /^2030-01-01T00:0\d:\d\dZ$/)
    assert.ok(start)
    // Not the pod's creation, which the API server stamps with the real time.
    assert.doesNotMatch((await k.run('get', 'pod', 'p', '-o', 'jsonpath={.metadata.creationTimestamp}')).stdout, /^2030-/)
  })
})
