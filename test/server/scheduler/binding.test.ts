/**
 * What the scheduler writes when it places a pod, as kube-scheduler does: spec.nodeName through
 * `pods/binding` (BindingREST sets PodScheduled=True), a `Scheduled` events.k8s.io event
 * (schedule_one.go: action "Binding", note "Successfully assigned %v/%v to %v",
 * reportingController the profile's scheduler name, reportingInstance `<name>-<host>`); pods of
 * another scheduler left alone; priority order; retries when the cluster changes; assumed pods
 * counted at once; leader election on kube-system/kube-scheduler.
 */
import assert from 'node:assert/strict'
import { hostname } from 'node:os'
import { CONTROLLERS, type ControllerDeps, buildControllers } from '../../../src/server/controllers/index.js'
import { SchedulerHarness, eventually } from './support.js'

describe('scheduler: binding, events and the queue', function () {
  this.timeout(20_000)
  let h: SchedulerHarness

  afterEach(async () => {
    await h.close()
  })

  it('binds a pod, with PodScheduled=True and a Scheduled event in events.k8s.io/v1', async () => {
    h = await SchedulerHarness.open()
    await h.node('n1')
    await h.pod('web')
    await h.start()
    assert.equal(await h.waitBound('web'), 'n1')
    const pod = await h.getPod('web')
    const scheduled = ((pod.status as { conditions?: Record<string, unknown>[] }).conditions ?? []).find((c) => c.type === 'PodScheduled')
    assert.equal(scheduled?.status, 'True')
    await eventually(async () => (await h.events('web')).some((e) => e.reason === 'Scheduled'), 'the Scheduled event')
    const event = (await h.events('web')).find((e) => e.reason === 'Scheduled')!
    assert.equal(event.apiVersion, 'events.k8s.io/v1')
    assert.equal(event.type, 'Normal')
    assert.equal(event.action, 'Binding')
    assert.equal(event.note, 'Successfully assigned default/web to n1')
    assert.equal(event.reportingController, 'default-scheduler')
    assert.equal(event.reportingInstance, `default-scheduler-${hostname()}`)
    assert.deepEqual((event.regarding as Record<string, unknown>).kind, 'Pod')
    // The same event through the core API, as kubectl describe reads it.
    const core = (await h.store('', 'v1', 'events').list({ namespace: 'default' })).items.find((e) => e.reason === 'Scheduled')!
    assert.equal(core.message, 'Successfully assigned default/web to n1')
    assert.equal(core.reportingComponent, 'default-scheduler')
  })

  it("leaves pods of another scheduler, and pods with scheduling gates, alone", async () => {
    h = await SchedulerHarness.open()
    await h.node('n1')
    await h.pod('other', { schedulerName: 'my-scheduler' })
    await h.pod('gated', { schedulingGates: [{ name: 'example.com/wait' }] })
    await h.pod('mine')
    await h.start()
    await h.waitBound('mine')
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.equal(await h.nodeOf('other'), undefined)
    assert.equal(await h.nodeOf('gated'), undefined)
    assert.deepEqual(await h.events('other'), [])
  })

  it('schedules by priority: the higher one takes the only room', async () => {
    h = await SchedulerHarness.open()
    await h.node('n1', { cpu: '1' })
    await h.pod('low', { requests: { cpu: '800m' }, priority: 0 })
    await h.pod('high', { requests: { cpu: '800m' }, priority: 1000 })
    await h.start()
    assert.equal(await h.waitBound('high'), 'n1')
    await h.waitUnschedulable('low')
    assert.equal(await h.nodeOf('low'), undefined)
  })

  it('counts a pod it just placed before its binding is seen (assumed pods): back-to-back pods go to different nodes', async () => {
    h = await SchedulerHarness.open()
    await h.node('n1', { cpu: '1' })
    await h.node('n2', { cpu: '1' })
    await h.pod('a', { requests: { cpu: '600m' } })
    await h.pod('b', { requests: { cpu: '600m' } })
    await h.start()
    const placed = [await h.waitBound('a'), await h.waitBound('b')].sort()
    assert.deepEqual(placed, ['n1', 'n2'])
  })

  it('retries an unschedulable pod when a node comes, and when a pod frees room', async () => {
    h = await SchedulerHarness.open()
    await h.pod('waiting')
    await h.start()
    await h.waitUnschedulable('waiting')
    await h.node('late')
    assert.equal(await h.waitBound('waiting'), 'late')
    await h.pod('hog', { nodeName: 'late', requests: { cpu: '1' } })
    await h.pod('second', { requests: { cpu: '4' } })
    await h.waitUnschedulable('second')
    // The pod holding a cpu goes: the node's 4 cpu fit the second pod now.
    await h.store('', 'v1', 'pods').delete('default', 'hog', { gracePeriodSeconds: 0 })
    assert.equal(await h.waitBound('second'), 'late')
  })

  it('retries a parked pod when the pod itself changes (a toleration added), not when only its status does', async () => {
    h = await SchedulerHarness.open()
    await h.node('tainted', { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] })
    await h.pod('db')
    await h.start()
    await h.waitUnschedulable('db')
    const pods = h.store('', 'v1', 'pods')
    await pods.update('default', 'db', (p) => ({ ...p, spec: { ...(p.spec as object), tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }] } }), { admission: false })
    assert.equal(await h.waitBound('db'), 'tainted')
  })

  it('with leader election, schedules once it holds the Lease kube-system/kube-scheduler', async () => {
    h = await SchedulerHarness.open({ leaderElect: true })
    await h.node('n1')
    await h.pod('web')
    await h.start()
    assert.equal(await h.waitBound('web'), 'n1')
    const lease = await h.store('coordination.k8s.io', 'v1', 'leases').get('kube-system', 'kube-scheduler')
    assert.match(String((lease.spec as { holderIdentity?: string }).holderIdentity), new RegExp(`^${hostname()}_`))
  })
})

describe('scheduler: where it runs', () => {
  it('in a whole cluster (cluster start) only, not in a bare API server (server start)', () => {
    const names = (cluster: boolean): string[] => buildControllers({ cluster, config: {} } as ControllerDeps, CONTROLLERS.filter((e) => e.name === 'kube-scheduler')).map((c) => c.name)
    assert.deepEqual(names(false), [])
    assert.deepEqual(names(true), ['kube-scheduler'])
  })
})

describe('scheduler: preemption', function () {
  this.timeout(20_000)
  let h: SchedulerHarness

  afterEach(async () => {
    await h.close()
  })

  it('evicts lower-priority pods to make room, nominating the node, then binds there', async () => {
    h = await SchedulerHarness.open()
    await h.node('n1', { cpu: '2' })
    await h.pod('low-1', { nodeName: 'n1', priority: 10, terminationGracePeriodSeconds: 0, requests: { cpu: '1' } })
    await h.pod('low-2', { nodeName: 'n1', priority: 20, terminationGracePeriodSeconds: 0, requests: { cpu: '1' } })
    await h.pod('high', { priority: 1000, requests: { cpu: '1' } })
    await h.start()
    assert.equal(await h.waitBound('high'), 'n1')
    // The least important victim suffices: low-1 goes, low-2 is reprieved.
    const names = (await h.store('', 'v1', 'pods').list({ namespace: 'default' })).items.map((p) => p.metadata.name).sort()
    assert.deepEqual(names, ['high', 'low-2'])
    const preempted = (await h.store('events.k8s.io', 'v1', 'events').list({ namespace: 'default' })).items.find((e) => e.reason === 'Preempted')
    assert.ok(preempted)
    const high = await h.getPod('high')
    // kube-scheduler's victim event (preemption.go prepareCandidate): "Preempted by pod <uid> on node <node>".
    assert.equal(preempted.note, `Preempted by pod ${high.metadata.uid} on node n1`)
    assert.equal((preempted.regarding as { name: string }).name, 'low-1')
    const failed = (await h.events('high')).find((e) => e.reason === 'FailedScheduling')
    // PostFilter succeeded: the FitError without the PostFilter part.
    assert.equal(failed?.note, '0/1 nodes are available: 1 Insufficient cpu.')
  })
})

describe('scheduler: preemption and PodDisruptionBudgets', function () {
  this.timeout(20_000)
  let h: SchedulerHarness

  afterEach(async () => {
    await h.close()
  })

  it('prefers the node where evicting breaks no budget', async () => {
    h = await SchedulerHarness.open()
    await h.node('n1', { cpu: '1' })
    await h.node('n2', { cpu: '1' })
    await h.pod('guarded', { nodeName: 'n1', priority: 10, terminationGracePeriodSeconds: 0, requests: { cpu: '1' } }, { labels: { app: 'guarded' } })
    await h.pod('free', { nodeName: 'n2', priority: 10, terminationGracePeriodSeconds: 0, requests: { cpu: '1' } }, { labels: { app: 'free' } })
    const pdbs = h.store('policy', 'v1', 'poddisruptionbudgets')
    await pdbs.create({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guard', namespace: 'default' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } } }, { admission: false })
    // The disruption controller's part: no disruption allowed.
    await pdbs.update('default', 'guard', (b) => ({ ...b, status: { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1, observedGeneration: 1 } }), { subresource: 'status', admission: false })
    await h.pod('high', { priority: 1000, requests: { cpu: '1' } })
    await h.start()
    assert.equal(await h.waitBound('high'), 'n2')
    assert.equal(await h.nodeOf('guarded'), 'n1')
  })
})
