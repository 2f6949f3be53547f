/**
 * `kubectl describe pod` (1.35) on `client cluster start` shows the simulated kubelet's events
 * after the scheduler's, as on a real node: `Pulling`, `Pulled`, `Created` and `Started` from
 * `kubelet`, each after the container's field path (kubectl 1.35 prefixes it,
 * kubernetes/kubernetes#133627), with the 1.35 kubelet's texts; `kubectl get events` lists them
 * on the pod with the node as source host.
 */
import assert from 'node:assert/strict'
import { openCluster, waitForKubectl } from '../../support/cluster.js'
import type { KubectlSession } from '../../support/kubectl-session.js'

describe('cluster start: the kubelet events of a pod (kubectl 1.35)', function () {
  this.timeout(120_000)
  let k: KubectlSession

  before(async function () {
    k = await openCluster(this, 'cluster-kubelet-events-', { args: ['--nodes=1'] })
  })
  after(async () => k?.close())

  it('describe pod lists the scheduling and the image pull, creation and start of its container', async () => {
    assert.equal((await k.run('run', 'web', '--image=nginx')).code, 0)
    await waitForKubectl(k, ['get', 'pod', 'web', '-o', 'jsonpath={.status.phase}'], /^Running$/)
    // Every line, in whatever order events of the same second are sorted in.
    const describe = await waitForKubectl(k, ['describe', 'pod', 'web'], /Started/)
    const events = describe.slice(describe.indexOf('Events:'))
    for (const line of [
      /Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/web to node-0\n/,
      /Normal\s+Pulling\s+\S+\s+kubelet\s+spec\.containers\{web\}: Pulling image "nginx"\n/,
      /Normal\s+Pulled\s+\S+\s+kubelet\s+spec\.containers\{web\}: Successfully pulled image "nginx" in (\d+ms|0s|[\d.]+s) \(\1 including waiting\)\. Image size: \d+ bytes\.\n/,
      /Normal\s+Created\s+\S+\s+kubelet\s+spec\.containers\{web\}: Container created\n/,
      /Normal\s+Started\s+\S+\s+kubelet\s+spec\.containers\{web\}: Container started\n/,
    ]) {
      assert.match(events, line)
    }
    const sources = await k.run('get', 'events', '--field-selector', 'involvedObject.name=web,source=kubelet', '-o', 'jsonpath={range .items[*]}{.reason} {.source.host} {.involvedObject.fieldPath}{"\\n"}{end}')
    assert.deepEqual(sources.stdout.trim().split('\n').sort(), ['Created node-0 spec.containers{web}', 'Pulled node-0 spec.containers{web}', 'Pulling node-0 spec.containers{web}', 'Started node-0 spec.containers{web}'])
  })
})
