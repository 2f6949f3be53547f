/**
 * The horizontal pod autoscaler over a registry, on a fake clock, with the simulated usage of the
 * metrics API (the pods' `metrics.client.dev/*` annotations): the reference's algorithm
 * (desired = ceil(current × usage / target) outside a 10% tolerance, min/max, the scale-up limit
 * without a behavior, the 300 s scale-down stabilization window, behavior policies), its status
 * (currentReplicas, desiredReplicas, currentMetrics, lastScaleTime, the AbleToScale,
 * ScalingActive and ScalingLimited conditions) and events. Reasons, messages and event texts are
 * the reference's (pkg/controller/podautoscaler/horizontal.go, replica_calculator.go). The test
 * plays the other parts: it writes the Deployment and its Running, Ready pods itself.
 */
import assert from 'node:assert/strict'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { FakeClock } from '../../../src/server/controllers/clock.js'
import { HorizontalPodAutoscalerController } from '../../../src/server/controllers/horizontal-pod-autoscaler.js'
import { CONTROLLERS } from '../../../src/server/controllers/index.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { SimulatedMetricsApi } from '../../../src/server/simnodes/metrics-api.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

type Json = Record<string, any>

const START = Date.parse('2030-01-01T00:00:00Z')
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')

describe('controllers: horizontal-pod-autoscaler-controller', function () {
  this.timeout(20_000)
  let t: TestRegistry
  let manager: ControllerManager
  let clock: FakeClock
  const store = (group: string, version: string, resource: string): GenericStore => t.registry.lookup(group, version, resource)!
  const hpas = () => store('autoscaling', 'v2', 'horizontalpodautoscalers')
  const deployments = () => store('apps', 'v1', 'deployments')

  beforeEach(async () => {
    clock = new FakeClock(START)
    t = await openTestRegistry('hpa-', ['default'])
    manager = new ControllerManager([new HorizontalPodAutoscalerController({ metrics: new SimulatedMetricsApi(clock).podResourceMetrics, clock, syncPeriodMs: 15_000 })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  })
  afterEach(async () => {
    await manager.stop()
    await t.close()
  })

  /** A Deployment of `replicas` and as many Running pods, Ready for ten minutes, using `usage` each. */
  async function workload(replicas: number, usage: { cpu?: string; memory?: string }, requests: Json = { cpu: '100m', memory: '32Mi' }): Promise<void> {
    const annotations: Record<string, string> = {}
    if (usage.cpu) annotations['metrics.client.dev/cpu'] = usage.cpu
    if (usage.memory) annotations['metrics.client.dev/memory'] = usage.memory
    const template = { metadata: { labels: { app: 'web' }, annotations }, spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests } }] } }
    await deployments().create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas, selector: { matchLabels: { app: 'web' } }, template } })
    const pods = store('', 'v1', 'pods')
    const since = iso(START - 600_000)
    for (let i = 0; i < replicas; i++) {
      await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `web-${i}`, namespace: 'default', ...template.metadata }, spec: { ...template.spec, nodeName: 'node-0' } })
      await pods.update('default', `web-${i}`, (p) => ({ ...p, status: { ...(p.status as Json), phase: 'Running', startTime: since, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: since }] } }), { subresource: 'status' })
    }
  }

  async function autoscaler(spec: Json): Promise<void> {
    await hpas().create({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'default' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 10, ...spec },
    })
  }

  const cpuTarget = (averageUtilization: number) => [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization } } }]
  const status = async (): Promise<Json> => ((await hpas().get('default', 'web')).status ?? {}) as Json
  const condition = (s: Json, type: string) => {
    const c = (s.conditions as Json[] | undefined)?.find((x) => x.type === type)
    return c ? [c.status, c.reason, c.message] : undefined
  }
  const replicas = async () => ((await deployments().get('default', 'web')).spec as Json).replicas as number
  const events = async () => (await store('', 'v1', 'events').list({ namespace: 'default' })).items.map((e: KubeObject) => `${String(e.type)} ${String(e.reason)}: ${String(e.message)}`)
  const synced = (what: string, check: (s: Json) => boolean) => eventually(async () => check(await status()), what)

  it('scales a Deployment up to ceil(current × utilization / target) and reports it', async () => {
    // 180m of a 100m request is 180%, twice the 90% target: 2 pods become 4.
    await workload(2, { cpu: '180m' })
    await autoscaler({ metrics: cpuTarget(90) })
    await synced('a rescale', (s) => s.desiredReplicas === 4)
    assert.equal(await replicas(), 4)
    const s = await status()
    assert.equal(s.currentReplicas, 2)
    assert.equal(s.lastScaleTime, iso(START))
    assert.deepEqual(s.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 180, averageValue: '180m' } } }])
    assert.deepEqual(condition(s, 'AbleToScale'), ['True', 'SucceededRescale', 'the HPA controller was able to update the target scale to 4'])
    assert.deepEqual(condition(s, 'ScalingActive'), ['True', 'ValidMetricFound', 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)'])
    assert.deepEqual(condition(s, 'ScalingLimited'), ['False', 'DesiredWithinRange', 'the desired count is within the acceptable range'])
    assert.deepEqual((s.conditions as Json[]).map((c) => c.type), ['AbleToScale', 'ScalingActive', 'ScalingLimited'])
    assert.ok((await events()).includes('Normal SuccessfulRescale: New size: 4; reason: cpu resource utilization (percentage of request) above target'))
  })

  it('keeps the size within the 10% tolerance', async () => {
    // 95% against 90%: a ratio of 1.055.
    await workload(2, { cpu: '95m' })
    await autoscaler({ metrics: cpuTarget(90) })
    await synced('a status', (s) => s.desiredReplicas === 2)
    const s = await status()
    assert.equal(s.lastScaleTime, undefined)
    assert.equal(await replicas(), 2)
    assert.deepEqual(condition(s, 'AbleToScale'), ['True', 'ReadyForNewScale', 'recommended size matches current size'])
  })

  it('stops at maxReplicas with TooManyReplicas', async () => {
    await workload(2, { cpu: '300m' })
    await autoscaler({ maxReplicas: 3, metrics: cpuTarget(50) })
    await synced('a rescale', (s) => s.desiredReplicas === 3)
    assert.deepEqual(condition(await status(), 'ScalingLimited'), ['True', 'TooManyReplicas', 'the desired replica count is more than the maximum replica count'])
  })

  it('without a behavior, scales up at most to max(2 × current, 4) at once (ScaleUpLimit)', async () => {
    // 600% against 50%: 12 × 3 = 36 wanted, 6 allowed.
    await workload(3, { cpu: '300m' })
    await autoscaler({ maxReplicas: 50, metrics: cpuTarget(50) })
    await synced('a rescale', (s) => s.desiredReplicas === 6)
    assert.deepEqual(condition(await status(), 'ScalingLimited'), ['True', 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate'])
  })

  it('scales down only once the 300 s stabilization window has passed', async () => {
    // 10% against 50%: ceil(0.2 × 4) = 1, but the size seen first (4) holds for five minutes.
    await workload(4, { cpu: '10m' })
    await autoscaler({ metrics: cpuTarget(50) })
    await synced('a stabilized status', (s) => condition(s, 'AbleToScale')?.[1] === 'ScaleDownStabilized')
    const s = await status()
    assert.equal(s.desiredReplicas, 4)
    assert.deepEqual(condition(s, 'AbleToScale'), ['True', 'ScaleDownStabilized', 'recent recommendations were higher than current one, applying the highest recent recommendation'])
    assert.equal(await replicas(), 4)
    clock.advance(301_000)
    await synced('a scale down', (x) => x.desiredReplicas === 1)
    assert.equal(await replicas(), 1)
    assert.ok((await events()).includes('Normal SuccessfulRescale: New size: 1; reason: All metrics below target'))
  })

  it('counts unready pods as using nothing before scaling up (replica_calculator.go)', async () => {
    // Two Ready pods at 200% of a 100% target, two Pending ones: with the Pending ones at zero
    // the ratio is 1.0, within the tolerance, so nothing changes.
    await workload(2, { cpu: '200m' })
    const pods = store('', 'v1', 'pods')
    for (const name of ['web-2', 'web-3']) {
      await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '100m' } } }] } })
    }
    await autoscaler({ metrics: cpuTarget(100) })
    await synced('a status', (s) => s.desiredReplicas !== undefined)
    const s = await status()
    assert.equal(s.desiredReplicas, 2)
    assert.equal(await replicas(), 2)
    // The status reports the ready pods' utilization.
    assert.equal(s.currentMetrics[0].resource.current.averageUtilization, 200)
  })

  it('scales on an AverageValue target (memory)', async () => {
    // 64Mi per pod against 32Mi: 2 pods become 4.
    await workload(2, { memory: '64Mi' })
    await autoscaler({ metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '32Mi' } } }] })
    await synced('a rescale', (s) => s.desiredReplicas === 4)
    const s = await status()
    // resource.NewMilliQuantity(67108864000, DecimalSI): whole bytes.
    assert.deepEqual(s.currentMetrics, [{ type: 'Resource', resource: { name: 'memory', current: { averageValue: '67108864' } } }])
    assert.ok((await events()).includes('Normal SuccessfulRescale: New size: 4; reason: memory resource above target'))
  })

  it("follows a behavior's scale-up policy (one pod per minute)", async () => {
    await workload(2, { cpu: '400m' })
    await autoscaler({ metrics: cpuTarget(50), behavior: { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } } })
    await synced('a rescale', (s) => s.desiredReplicas === 3)
    assert.equal(await replicas(), 3)
    assert.deepEqual(condition(await status(), 'ScalingLimited'), ['True', 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate'])
  })

  it('scales a StatefulSet through its replicas', async () => {
    await workload(2, { cpu: '180m' })
    const template = (await deployments().get('default', 'web')).spec as Json
    await store('apps', 'v1', 'statefulsets').create({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace: 'default' }, spec: { replicas: 2, serviceName: 'db', selector: template.selector, template: template.template } })
    await hpas().create({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'default' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' }, maxReplicas: 10, metrics: cpuTarget(90) },
    })
    await synced('a rescale', (s) => s.desiredReplicas === 4)
    assert.equal(((await store('apps', 'v1', 'statefulsets').get('default', 'db')).spec as Json).replicas, 4)
  })

  it('reports a target it cannot read (FailedGetScale)', async () => {
    await autoscaler({ metrics: cpuTarget(50) })
    await synced('a failed status', (s) => condition(s, 'AbleToScale')?.[1] === 'FailedGetScale')
    assert.deepEqual(condition(await status(), 'AbleToScale'), ['False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: deployments.apps "web" not found`])
    assert.ok((await events()).includes('Warning FailedGetScale: deployments.apps "web" not found'))
  })

  it('reports pods without metrics (FailedGetResourceMetric, FailedComputeMetricsReplicas)', async () => {
    await deployments().create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } } })
    await autoscaler({ metrics: cpuTarget(50) })
    await synced('a failed status', (s) => condition(s, 'ScalingActive')?.[0] === 'False')
    const failure = 'failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API'
    assert.deepEqual(condition(await status(), 'ScalingActive'), ['False', 'FailedGetResourceMetric', `the HPA was unable to compute the replica count: ${failure}`])
    await eventually(async () => (await events()).includes(`Warning FailedComputeMetricsReplicas: invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: ${failure}`), 'the event')
    assert.ok((await events()).includes(`Warning FailedGetResourceMetric: ${failure}`))
  })

  it('is a clusterOnly entry under its kube-controller-manager name', () => {
    const entry = CONTROLLERS.find((c) => c.name === 'horizontal-pod-autoscaler-controller')
    assert.equal(entry?.clusterOnly, true)
  })
})
