/**
 * The simulated nodes over a registry: nodes registered Ready (kwok's conditions) with their pod
 * CIDRs and a Lease each, a pod bound to one moved to Running and Ready with an IP of its node,
 * a Job's pod to Succeeded (kwok's pod-complete rule), a pod bound elsewhere left alone, and a
 * pod labelled for kwok's failure stage Failed with its annotation's exit code, and a kwok
 * user's own Stage file (a delay and an event) used instead of the defaults.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import type { ClusterConfig } from '../../../src/server/config.js'
import { testClusterConfig } from '../../support/cluster-config.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { SimulatedNodes } from '../../../src/server/simnodes/index.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

const CLUSTER: ClusterConfig = testClusterConfig({ nodeLabels: { zone: 'a' }, registerWithTaints: ['dedicated=sim:NoSchedule'] })

type Cond = { type: string; status: string }
const statusOf = (obj: KubeObject) => (obj.status ?? {}) as { phase?: string; podIP?: string }
const condition = (obj: KubeObject, type: string) => ((obj.status as { conditions?: Cond[] } | undefined)?.conditions ?? []).find((c) => c.type === type)?.status

describe('simulated nodes', function () {
  this.timeout(20_000)
  let t: TestRegistry
  let manager: ControllerManager
  const store = (resource: string): GenericStore => t.registry.lookup('', 'v1', resource)!
  const start = async (cluster: ClusterConfig, clock?: { now(): number }) => {
    manager = new ControllerManager([new SimulatedNodes({ cluster, version: 'v1.35.0', log: () => {}, ...(clock ? { clock } : {}) })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  }
  const pod = (name: string, nodeName: string, extra: Partial<KubeObject['metadata']> = {}, spec: Record<string, unknown> = {}) =>
    store('pods').create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', ...extra }, spec: { nodeName, containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec } })

  beforeEach(async () => {
    t = await openTestRegistry('simnodes-', ['default', 'kube-node-lease'])
  })
  afterEach(async () => {
    await manager?.stop()
    await t.close()
  })

  it('registers the nodes Ready, with pod CIDRs, labels, taints, capacity and a Lease each', async () => {
    await start(CLUSTER)
    await eventually(async () => (await store('nodes').list()).items.filter((n) => condition(n, 'Ready') === 'True').length === 2, 'two Ready nodes')
    const node = await store('nodes').get(undefined, 'sim-1')
    assert.equal((node.spec as { podCIDR: string }).podCIDR, '10.244.1.0/24')
    assert.deepEqual((node.spec as { taints: unknown }).taints, [{ key: 'dedicated', value: 'sim', effect: 'NoSchedule' }])
    assert.equal(node.metadata.labels?.zone, 'a')
    assert.equal(node.metadata.labels?.['kubernetes.io/hostname'], 'sim-1')
    const status = node.status as { capacity: object; allocatable: object; phase: string; nodeInfo: { kubeletVersion: string } }
    assert.deepEqual(status.capacity, { cpu: '4', memory: '8Gi', pods: '110' })
    assert.deepEqual(status.allocatable, { cpu: '4', memory: '8Gi', pods: '110' })
    assert.equal(status.phase, 'Running')
    await eventually(async () => (await t.registry.lookup('coordination.k8s.io', 'v1', 'leases')!.list({ namespace: 'kube-node-lease' })).items.length === 2, 'a Lease per node')
  })

  it('moves a bound pod to Running and Ready with an IP of its node, and leaves pods of other nodes alone', async () => {
    await start(CLUSTER)
    await pod('web', 'sim-1')
    await pod('elsewhere', 'real-node')
    await eventually(async () => condition(await store('pods').get('default', 'web'), 'Ready') === 'True', 'web Ready')
    const web = await store('pods').get('default', 'web')
    const status = web.status as { phase: string; podIP: string; hostIP: string; containerStatuses: Array<{ name: string; ready: boolean; state: object }> }
    assert.equal(status.phase, 'Running')
    assert.match(status.podIP, /^10\.244\.1\.\d+$/)
    assert.equal(status.hostIP, '127.0.0.1')
    assert.deepEqual(status.containerStatuses.map((c) => [c.name, c.ready, Object.keys(c.state)]), [['app', true, ['running']]])
    assert.deepEqual(['Initialized', 'Ready', 'ContainersReady'].map((type) => condition(web, type)), ['True', 'True', 'True'])
    assert.equal(statusOf(await store('pods').get('default', 'elsewhere')).phase, 'Pending')
  })

  it("completes a Job's pod (kwok's pod-complete)", async () => {
    await start(CLUSTER)
    // A Job's pods never have restartPolicy Always (its validation); with Always the kubelet would start the container again.
    await pod('job-x', 'sim-0', { ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'x', uid: '00000000-0000-0000-0000-000000000001' }] }, { restartPolicy: 'Never' })
    await eventually(async () => statusOf(await store('pods').get('default', 'job-x')).phase === 'Succeeded', 'the Job pod Succeeded')
    const done = await store('pods').get('default', 'job-x')
    const state = (done.status as { containerStatuses: Array<{ state: { terminated?: { exitCode: number; reason: string } } }> }).containerStatuses[0]!.state
    assert.deepEqual([state.terminated?.exitCode, state.terminated?.reason], [0, 'Completed'])
  })

  it("fails a pod labelled for kwok's pod-container-running-failed stage, with the exit code of its annotation, when it does not restart", async () => {
    await start(CLUSTER)
    const key = 'pod-container-running-failed.stage.kwok.x-k8s.io'
    await pod('crash', 'sim-0', { labels: { [key]: 'true' }, annotations: { [`${key}/exit-code`]: '3', [`${key}/delay`]: '100ms', [`${key}/jitter-delay`]: '100ms' } }, { restartPolicy: 'Never' })
    await eventually(async () => statusOf(await store('pods').get('default', 'crash')).phase === 'Failed', 'the pod Failed')
    const failed = await store('pods').get('default', 'crash')
    const terminated = (failed.status as { containerStatuses: Array<{ state: { terminated?: { exitCode: number; reason: string; message: string } } }> }).containerStatuses[0]!.state.terminated
    assert.deepEqual(terminated && [terminated.exitCode, terminated.reason, terminated.message], [3, 'containerFailed', 'container failed'])
    assert.equal(condition(failed, 'Ready'), 'False')
  })

  it('puts the exited container of a pod that restarts in CrashLoopBackOff, as the kubelet does, instead of failing the pod', async () => {
    await start(CLUSTER)
    const key = 'pod-container-running-failed.stage.kwok.x-k8s.io'
    await pod('loop', 'sim-0', { labels: { [key]: 'true' }, annotations: { [`${key}/exit-code`]: '2', [`${key}/delay`]: '100ms', [`${key}/jitter-delay`]: '100ms' } }, { restartPolicy: 'Always' })
    type Status = { restartCount: number; ready: boolean; state: { waiting?: { reason: string; message: string } }; lastState: { terminated?: { exitCode: number; finishedAt: string } } }
    const container = async () => ((await store('pods').get('default', 'loop')).status as { containerStatuses?: Status[] }).containerStatuses?.[0]
    await eventually(async () => (await container())?.state.waiting?.reason === 'CrashLoopBackOff', 'the container in CrashLoopBackOff')
    const looping = await store('pods').get('default', 'loop')
    const status = (await container())!
    assert.equal(statusOf(looping).phase, 'Running')
    assert.equal(status.restartCount, 1)
    assert.equal(status.lastState.terminated?.exitCode, 2)
    // pkg/kubelet/kuberuntime: "back-off %s restarting failed container=%s pod=%s", format.Pod = name_namespace(uid)
    assert.equal(status.state.waiting?.message, `back-off 10s restarting failed container=app pod=loop_default(${looping.metadata.uid})`)
    const ready = ((looping.status as { conditions: Array<{ type: string; status: string; reason?: string; message?: string }> }).conditions).find((c) => c.type === 'Ready')
    assert.deepEqual([ready?.status, ready?.reason, ready?.message], ['False', 'ContainersNotReady', 'containers with unready status: [app]'])
  })

  it("counts the back-off on the cluster's clock (on a clock years behind, the container does not restart at once)", async () => {
    const behind = 4 * 365 * 24 * 3600 * 1000
    await start(CLUSTER, { now: () => Date.now() - behind })
    const key = 'pod-container-running-failed.stage.kwok.x-k8s.io'
    await pod('behind', 'sim-0', { labels: { [key]: 'true' }, annotations: { [`${key}/delay`]: '100ms', [`${key}/jitter-delay`]: '100ms' } })
    type Status = { state: { waiting?: { reason: string } } }
    const state = async () => ((await store('pods').get('default', 'behind')).status as { containerStatuses?: Status[] }).containerStatuses?.[0]?.state
    await eventually(async () => (await state())?.waiting?.reason === 'CrashLoopBackOff', 'the container in CrashLoopBackOff')
    await new Promise((r) => setTimeout(r, 1500))
    assert.equal((await state())?.waiting?.reason, 'CrashLoopBackOff')
  })

  it('ends a pod with restartPolicy OnFailure Succeeded when its containers exit 0', async () => {
    await start(CLUSTER)
    await store('pods').create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'once', namespace: 'default', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'u1' }] },
      spec: { nodeName: 'sim-0', restartPolicy: 'OnFailure', containers: [{ name: 'app', image: 'busybox' }] },
    })
    await eventually(async () => statusOf(await store('pods').get('default', 'once')).phase === 'Succeeded', 'the pod Succeeded')
  })

  it('keeps a container with a readinessProbe unready when the pod says its probe fails', async () => {
    await start(CLUSTER)
    await store('pods').create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'unready', namespace: 'default', annotations: { 'probes.client.dev/readiness': 'false' } },
      spec: { nodeName: 'sim-0', containers: [{ name: 'web', image: 'nginx', readinessProbe: { httpGet: { path: '/', port: 80 } } }, { name: 'side', image: 'busybox' }] },
    })
    await eventually(async () => statusOf(await store('pods').get('default', 'unready')).phase === 'Running', 'the pod Running')
    const running = await store('pods').get('default', 'unready')
    const conditions = (running.status as { conditions: Array<{ type: string; status: string; reason?: string; message?: string }> }).conditions
    for (const type of ['Ready', 'ContainersReady']) {
      const c = conditions.find((x) => x.type === type)
      assert.deepEqual([c?.status, c?.reason, c?.message], ['False', 'ContainersNotReady', 'containers with unready status: [web]'], type)
    }
    const ready = (running.status as { containerStatuses: Array<{ name: string; ready: boolean }> }).containerStatuses.map((s) => `${s.name}=${s.ready}`)
    assert.deepEqual(ready.sort(), ['side=true', 'web=false'])
  })

  it('kills and restarts a container whose liveness probe the pod says fails, with the kubelet\'s Unhealthy and Killing events', async () => {
    await start(CLUSTER)
    await store('pods').create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'unlive', namespace: 'default', annotations: { 'probes.client.dev/liveness': 'false' } },
      spec: { nodeName: 'sim-0', containers: [{ name: 'web', image: 'nginx', livenessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 1, failureThreshold: 1 } }] },
    })
    type Status = { restartCount: number; lastState: { terminated?: { exitCode: number; reason: string } } }
    const container = async () => ((await store('pods').get('default', 'unlive')).status as { containerStatuses?: Status[] }).containerStatuses?.[0]
    await eventually(async () => ((await container())?.restartCount ?? 0) >= 1, 'the container restarted', 10_000)
    const status = (await container())!
    assert.deepEqual([status.lastState.terminated?.exitCode, status.lastState.terminated?.reason], [137, 'Error'])
    const events = ((await store('events').list({ namespace: 'default' })).items as unknown as Array<{ involvedObject: { name: string; fieldPath?: string }; type: string; reason: string; message: string }>).filter((e) => e.involvedObject.name === 'unlive')
    const unhealthy = events.find((e) => e.reason === 'Unhealthy')
    const killing = events.find((e) => e.reason === 'Killing')
    // pkg/kubelet/prober ("%s probe failed: %s", the HTTP prober's output) and kuberuntime's kill message.
    assert.deepEqual([unhealthy?.type, unhealthy?.message, unhealthy?.involvedObject.fieldPath], ['Warning', 'Liveness probe failed: HTTP probe failed with statuscode: 500', 'spec.containers{web}'])
    assert.deepEqual([killing?.type, killing?.message], ['Normal', 'Container web failed liveness probe, will be restarted'])
    assert.equal(statusOf(await store('pods').get('default', 'unlive')).phase, 'Running')
  })

  it('deletes a crash-looping pod: the pod-delete stage comes before the kubelet\'s restarts', async () => {
    await start(CLUSTER)
    const key = 'pod-container-running-failed.stage.kwok.x-k8s.io'
    await pod('doomed', 'sim-0', { labels: { [key]: 'true' }, annotations: { [`${key}/delay`]: '100ms', [`${key}/jitter-delay`]: '100ms' } }, { restartPolicy: 'Always' })
    type Status = { state: { waiting?: { reason: string } } }
    const state = async () => ((await store('pods').get('default', 'doomed')).status as { containerStatuses?: Status[] }).containerStatuses?.[0]?.state
    await eventually(async () => (await state())?.waiting?.reason === 'CrashLoopBackOff', 'the container in CrashLoopBackOff')
    await store('pods').delete('default', 'doomed')
    await eventually(async () => !(await store('pods').list({ namespace: 'default' })).items.some((p) => p.metadata.name === 'doomed'), 'the pod gone')
  })

  it("uses a kwok user's Stage file instead of the defaults", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stages-'))
    const file = join(dir, 'stages.yaml')
    writeFileSync(
      file,
      [
        'apiVersion: kwok.x-k8s.io/v1alpha1',
        'kind: Stage',
        'metadata: {name: pod-slow}',
        'spec:',
        '  resourceRef: {apiGroup: v1, kind: Pod}',
        '  selector:',
        '    matchLabels: {speed: slow}',
        '    matchExpressions:',
        "    - {key: '.status.phase', operator: In, values: [Pending]}",
        '  delay: {durationMilliseconds: 1500}',
        '  next:',
        '    event: {type: Normal, reason: Slow, message: took its time}',
        '    statusTemplate: |',
        '      phase: Running',
        '      podIP: {{ PodIPWith .spec.nodeName false .metadata.uid .metadata.name .metadata.namespace | Quote }}',
      ].join('\n'),
    )
    await start({ ...CLUSTER, nodeStages: [file] })
    await pod('fast', 'sim-0')
    await pod('slow', 'sim-0', { labels: { speed: 'slow' } })
    // Still waiting for its delay a moment later (the default stages would have run it at once).
    await new Promise((r) => setTimeout(r, 300))
    assert.equal(statusOf(await store('pods').get('default', 'slow')).phase, 'Pending')
    await eventually(async () => statusOf(await store('pods').get('default', 'slow')).phase === 'Running', 'the slow pod Running after its delay')
    assert.match(String(statusOf(await store('pods').get('default', 'slow')).podIP), /^10\.244\.0\.\d+$/)
    assert.equal(statusOf(await store('pods').get('default', 'fast')).phase, 'Pending')
    const events = (await store('events').list({ namespace: 'default' })).items
    assert.ok(events.some((e) => e.reason === 'Slow' && e.message === 'took its time' && (e.source as { component: string }).component === 'kubelet'))
  })
})
