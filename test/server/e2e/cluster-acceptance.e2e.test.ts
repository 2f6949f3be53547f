/**
 * Issue #36's acceptance with kubectl 1.35 (and Helm 4) against `client cluster start`: what CI
 * jobs wait for moves as on a real cluster. A Deployment rolls out and `rollout status`
 * returns, `set image` makes a new ReplicaSet and `rollout undo` goes back; a Job completes and
 * `kubectl wait --for=condition=complete` returns; a CronJob creates its Job at the cluster's
 * clock; a DaemonSet places one pod per node; a StatefulSet makes its pods by ordinal and scales
 * down from the highest; a Service's EndpointSlices hold its ready pods' IPs; an unschedulable
 * pod gets kube-scheduler's FailedScheduling message; a crashing pod restarts (RESTARTS grows,
 * CrashLoopBackOff between runs), and a failing readiness probe times `rollout status` out;
 * `helm install --wait` of `helm create`'s
 * chart succeeds. Expected texts are kubectl's and kube-scheduler's own.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openCluster, waitForKubectl } from '../../support/cluster.js'
import type { KubectlSession } from '../../support/kubectl-session.js'
import { requireTool } from '../../support/tools.js'

describe('cluster start: workloads move as on a real cluster (kubectl 1.35)', function () {
  this.timeout(180_000)
  let k: KubectlSession

  before(async function () {
    // The clock starts 10 s before a minute, and the CronJob is made at once: its first run is
    // at 00:01:00 of the cluster's clock, the first schedule after its creation (the reference
    // runs none from before it).
    k = await openCluster(this, 'cluster-acceptance-', { args: ['--nodes=3', '--clock=2030-01-01T00:00:50Z'] })
    await k.ok('create', 'cronjob', 'tick', '--image=busybox', '--schedule=* * * * *', '--', 'true')
  })
  after(async () => k?.close())

  it('rolls a Deployment out, to a new image and back with rollout undo', async () => {
    await k.ok('create', 'deployment', 'web', '--image=nginx:1.26', '--replicas=3')
    const status = await k.run('rollout', 'status', 'deployment/web', '--timeout=60s')
    assert.equal(status.code, 0, status.stderr)
    assert.match(status.stdout, /deployment "web" successfully rolled out/)
    assert.equal((await k.ok('get', 'deployment', 'web', '-o', 'jsonpath={.status.readyReplicas}/{.status.updatedReplicas}/{.status.availableReplicas}')), '3/3/3')

    await k.ok('set', 'image', 'deployment/web', 'nginx=nginx:1.27')
    const second = await k.run('rollout', 'status', 'deployment/web', '--timeout=60s')
    assert.equal(second.code, 0, second.stderr)
    const sets = (await k.ok('get', 'rs', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.spec.template.spec.containers[0].image}={.spec.replicas}{"\\n"}{end}')).trim().split('\n').sort()
    assert.deepEqual(sets, ['nginx:1.26=0', 'nginx:1.27=3'])

    await k.ok('rollout', 'undo', 'deployment/web')
    const third = await k.run('rollout', 'status', 'deployment/web', '--timeout=60s')
    assert.equal(third.code, 0, third.stderr)
    assert.equal(await k.ok('get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'), 'nginx:1.26')
    // The old ReplicaSet came back (two in all) at the next revision.
    const after = (await k.ok('get', 'rs', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.spec.template.spec.containers[0].image}={.spec.replicas}={.metadata.annotations.deployment\\.kubernetes\\.io/revision}{"\\n"}{end}')).trim().split('\n').sort()
    assert.deepEqual(after, ['nginx:1.26=3=3', 'nginx:1.27=0=2'])
  })

  it("lists a Service's ready pods' IPs in its EndpointSlices", async () => {
    await k.ok('expose', 'deployment', 'web', '--port=80')
    const podIps = (await k.ok('get', 'pods', '-l', 'app=web', '--field-selector=status.phase=Running', '-o', 'jsonpath={.items[*].status.podIP}')).split(' ').filter(Boolean).sort()
    assert.equal(podIps.length, 3)
    const sliced = await waitForKubectl(k, ['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={.items[*].endpoints[*].addresses[0]}'], /\S+ \S+ \S+/)
    assert.deepEqual(sliced.split(' ').sort(), podIps)
  })

  it('completes a Job, and kubectl wait --for=condition=complete returns', async () => {
    await k.ok('create', 'job', 'once', '--image=busybox', '--', 'sh', '-c', 'exit 0')
    const waited = await k.run('wait', '--for=condition=complete', 'job/once', '--timeout=60s')
    assert.equal(waited.code, 0, waited.stderr)
    assert.equal(waited.stdout.trim(), 'job.batch/once condition met')
  })

  it('restarts a crashing pod as the kubelet does: RESTARTS grows, STATUS CrashLoopBackOff between runs', async () => {
    // kwok's chaos stage makes the container exit; restartPolicy Always (kubectl run's) restarts it after the kubelet's 10 s back-off.
    await k.ok('run', 'crash', '--image=busybox', '--restart=Always', '--labels=pod-container-running-failed.stage.kwok.x-k8s.io=true', '--', 'sh', '-c', 'exit 1')
    const seen = new Set<string>()
    let restarts = 0
    const deadline = Date.now() + 60_000
    while (restarts < 2 && Date.now() < deadline) {
      // kubectl's columns: NAME READY STATUS RESTARTS [(AGE ago)] AGE
      const [, ready, status, count] = (await k.ok('get', 'pod', 'crash', '--no-headers')).trim().split(/\s+/)
      seen.add(`${status}:${ready}`)
      restarts = Number(count)
      await new Promise((r) => setTimeout(r, 250))
    }
    assert.equal(restarts, 2, [...seen].join(' '))
    assert.ok(seen.has('CrashLoopBackOff:0/1'), [...seen].join(' '))
    assert.ok(seen.has('Running:1/1'), [...seen].join(' '))
    assert.equal((await k.ok('get', 'pod', 'crash', '-o', 'jsonpath={.status.phase}')).trim(), 'Running')
  })

  it('times kubectl rollout status out when the pods say their readiness probe fails', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'unready', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'unready' } },
        template: {
          metadata: { labels: { app: 'unready' }, annotations: { 'probes.client.dev/readiness': 'false' } },
          spec: { containers: [{ name: 'web', image: 'nginx', readinessProbe: { httpGet: { path: '/', port: 80 } } }] },
        },
      },
    }
    const applied = await k.runWithInput(JSON.stringify(deployment), 'apply', '-f', '-')
    assert.equal(applied.code, 0, applied.stderr)
    const waited = await k.run('rollout', 'status', 'deployment/unready', '--timeout=3s')
    assert.notEqual(waited.code, 0, waited.stdout)
    // kubectl's rollout status: the deployment's text while available replicas lag, then its timeout error.
    assert.match(waited.stdout, /Waiting for deployment "unready" rollout to finish: 0 of 1 updated replicas are available\.\.\./)
    assert.match(waited.stderr, /timed out waiting for the condition/)
  })

  it("creates a CronJob's Job when the cluster's clock reaches its schedule", async () => {
    const jobs = await waitForKubectl(k, ['get', 'jobs', '-o', 'jsonpath={.items[*].metadata.name}'], /tick-\d+/, 60_000)
    // The reference names a CronJob's Job by its scheduled time in minutes since the epoch.
    const minutes = Date.parse('2030-01-01T00:01:00Z') / 60_000
    assert.deepEqual(jobs.split(' ').filter((name) => name.startsWith('tick-')), [`tick-${minutes}`])
  })

  it('places one DaemonSet pod on each node', async () => {
    const manifest = k.file('ds.yaml', [
      'apiVersion: apps/v1', 'kind: DaemonSet', 'metadata: {name: agent}',
      'spec:', '  selector: {matchLabels: {app: agent}}',
      '  template:', '    metadata: {labels: {app: agent}}', '    spec: {containers: [{name: agent, image: busybox}]}', '',
    ].join('\n'))
    await k.ok('apply', '-f', manifest)
    const status = await k.run('rollout', 'status', 'daemonset/agent', '--timeout=60s')
    assert.equal(status.code, 0, status.stderr)
    const nodes = (await k.ok('get', 'pods', '-l', 'app=agent', '-o', 'jsonpath={.items[*].spec.nodeName}')).split(' ').sort()
    assert.deepEqual(nodes, ['node-0', 'node-1', 'node-2'])
  })

  it('makes a StatefulSet pods by ordinal and scales it down from the highest', async () => {
    const manifest = k.file('sts.yaml', [
      'apiVersion: apps/v1', 'kind: StatefulSet', 'metadata: {name: db}',
      'spec:', '  serviceName: db', '  replicas: 3', '  selector: {matchLabels: {app: db}}',
      '  template:', '    metadata: {labels: {app: db}}', '    spec: {containers: [{name: db, image: busybox}]}', '',
    ].join('\n'))
    await k.ok('apply', '-f', manifest)
    const status = await k.run('rollout', 'status', 'statefulset/db', '--timeout=60s')
    assert.equal(status.code, 0, status.stderr)
    // OrderedReady: each pod was created after the one before it was Ready.
    const created = (await k.ok('get', 'pods', '-l', 'app=db', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.metadata.creationTimestamp}{"\\n"}{end}')).trim().split('\n').map((l) => l.split('='))
    assert.deepEqual(created.map(([name]) => name).sort(), ['db-0', 'db-1', 'db-2'])
    await k.ok('scale', 'statefulset', 'db', '--replicas=1')
    await waitForKubectl(k, ['get', 'pods', '-l', 'app=db', '-o', 'jsonpath={.items[*].metadata.name}'], /^db-0$/, 60_000)
  })

  it("gives an unschedulable pod kube-scheduler's FailedScheduling message and PodScheduled=False", async () => {
    await k.ok('run', 'picky', '--image=nginx', '--overrides={"spec":{"nodeSelector":{"disktype":"ssd"}}}')
    const condition = await waitForKubectl(k, ['get', 'pod', 'picky', '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].status}/{.status.conditions[?(@.type=="PodScheduled")].reason}'], /False\/Unschedulable/)
    assert.equal(condition, 'False/Unschedulable')
    const message = await waitForKubectl(k, ['get', 'events', '--field-selector=reason=FailedScheduling,involvedObject.name=picky', '-o', 'jsonpath={.items[*].message}'], /nodes are available/)
    assert.equal(message, "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
  })

  it("installs helm create's chart with helm install --wait", async function () {
    const helm = requireTool(this, 'helm')
    const dir = mkdtempSync(join(tmpdir(), 'helm-chart-'))
    const kubeconfig = k.base.find((a) => a.startsWith('--kubeconfig='))!.slice('--kubeconfig='.length)
    const run = (...args: string[]) =>
      new Promise<{ code: number; out: string }>((resolve) => {
        execFile(helm, args, { cwd: dir, timeout: 120_000, env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig, HELM_CACHE_HOME: join(dir, 'cache'), HELM_CONFIG_HOME: join(dir, 'config'), HELM_DATA_HOME: join(dir, 'data') } }, (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
        )
      })
    try {
      assert.equal((await run('create', 'demo')).code, 0)
      const installed = await run('install', 'demo', './demo', '--wait', '--timeout', '90s')
      assert.equal(installed.code, 0, installed.out)
      assert.match(installed.out, /STATUS: deployed/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
