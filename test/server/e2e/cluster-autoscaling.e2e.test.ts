/**
 * Issue #36's `kubectl top` and horizontal pod autoscaling with kubectl 1.35 against
 * `client cluster start`: the resource metrics API answers `kubectl top nodes` and `kubectl top
 * pods` (kubectl's own table headers), and `kubectl autoscale` scales a Deployment whose pods'
 * simulated usage is above the target (the usage is set by the pods' `metrics.client.dev/cpu`
 * annotation; see docs/cluster.md). Expected texts are kubectl's and the reference controller's.
 */
import assert from 'node:assert/strict'
import { openCluster, waitForKubectl } from '../../support/cluster.js'
import type { KubectlSession } from '../../support/kubectl-session.js'

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: busy
spec:
  replicas: 2
  selector:
    matchLabels: {app: busy}
  template:
    metadata:
      labels: {app: busy}
      annotations:
        metrics.client.dev/cpu: 180m
        metrics.client.dev/memory: 64Mi
    spec:
      containers:
      - name: app
        image: nginx
        resources:
          requests: {cpu: 100m, memory: 32Mi}
`

describe('cluster start: kubectl top and the horizontal pod autoscaler (kubectl 1.35)', function () {
  this.timeout(180_000)
  let k: KubectlSession

  before(async function () {
    k = await openCluster(this, 'cluster-autoscaling-', { args: ['--nodes=2', '--horizontal-pod-autoscaler-sync-period=1s'] })
    await k.ok('apply', '-f', k.file('busy.yaml', DEPLOYMENT))
    const status = await k.run('rollout', 'status', 'deployment/busy', '--timeout=60s')
    assert.equal(status.code, 0, status.stderr)
  })
  after(async () => k?.close())

  it('lists the APIService v1beta1.metrics.k8s.io as available', async () => {
    const line = await k.ok('get', 'apiservice', 'v1beta1.metrics.k8s.io')
    assert.match(line, /^NAME\s+SERVICE\s+AVAILABLE\s+AGE\n/)
    assert.match(line, /v1beta1\.metrics\.k8s\.io\s+Local\s+True\s+/)
  })

  it('answers kubectl top pods with each pod\'s simulated usage', async () => {
    const out = await k.ok('top', 'pods', '-l', 'app=busy')
    const [header, ...rows] = out.trim().split('\n')
    // kubectl's header (top_pod.go's MeasuredResources: NAME, CPU(cores), MEMORY(bytes)).
    assert.match(header!, /^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*$/)
    assert.equal(rows.length, 2)
    for (const row of rows) assert.match(row, /^busy-\S+\s+180m\s+64Mi\s*$/)
    const containers = await k.ok('top', 'pods', '-l', 'app=busy', '--containers')
    assert.match(containers, /^POD\s+NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)/)
    assert.match(containers, /busy-\S+\s+app\s+180m\s+64Mi/)
  })

  it('answers kubectl top nodes with the sum of each node\'s pods', async () => {
    const out = await k.ok('top', 'nodes')
    const [header, ...rows] = out.trim().split('\n')
    assert.match(header!, /^NAME\s+CPU\(cores\)\s+CPU(\(%\))?\s+MEMORY\(bytes\)\s+MEMORY(\(%\))?\s*$/)
    assert.equal(rows.length, 2)
    const cpu = rows.map((r) => Number(/^node-\d\s+(\d+)m/.exec(r)?.[1]))
    assert.equal(cpu.reduce((a, b) => a + b, 0), 360, out)
  })

  it('scales a Deployment out with kubectl autoscale when its pods use more than the target', async () => {
    // 180m of a 100m request is 180%: twice the 90% target, so 2 pods become 4 (ceil(2 * 180/90)).
    await k.ok('autoscale', 'deployment', 'busy', '--cpu-percent=90', '--min=1', '--max=10')
    await waitForKubectl(k, ['get', 'deployment', 'busy', '-o', 'jsonpath={.spec.replicas}'], /^4$/, 60_000)
    const events = await waitForKubectl(k, ['get', 'events', '--field-selector=involvedObject.kind=HorizontalPodAutoscaler', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}'], /SuccessfulRescale/)
    // The reference's event (podautoscaler/horizontal.go: "New size: %d; reason: %s").
    assert.match(events, /SuccessfulRescale: New size: 4; reason: cpu resource utilization \(percentage of request\) above target/)
    const described = await k.ok('get', 'hpa', 'busy', '-o', 'jsonpath={.status.desiredReplicas} {.status.currentMetrics[0].resource.current.averageUtilization}')
    assert.match(described, /^\d+ 180$/)
    // kubectl get hpa's TARGETS column (the reference's printer: "<resource>: <current>%/<target>%").
    const table = await k.ok('get', 'hpa', 'busy')
    assert.match(table, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\n/)
    assert.match(table, /\nbusy\s+Deployment\/busy\s+cpu: 180%\/90%\s+1\s+10\s+\d+\s+/)
  })
})
