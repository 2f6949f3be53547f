/**
 * The FailedScheduling message of each Filter plugin, and their aggregate, against the
 * reference's strings. Where a message is quoted whole, it is kube-scheduler 1.35's as clusters
 * print it (events quoted in public write-ups of 1.34.2+/1.35 clusters, the taint's key no
 * longer named since kubernetes/kubernetes#134740); the per-plugin reasons are the constants of
 * pkg/scheduler/framework/plugins/*: nodeunschedulable.ErrReasonUnschedulable,
 * nodeaffinity.ErrReasonPod, nodeports.ErrReason, noderesources "Too many pods" and
 * "Insufficient <resource>", podtopologyspread.ErrReasonConstraintsNotMatch and
 * ErrReasonNodeLabelNotMatch, interpodaffinity's three ErrReason constants, volumebinding's
 * ErrReasonBindConflict/ErrReasonNodeConflict and the PreFilter errors, and FitError.Error's
 * format (pkg/scheduler/framework/types.go).
 */
import assert from 'node:assert/strict'
import { SchedulerHarness } from './support.js'

const CONTROL_PLANE_TAINT = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }

describe('scheduler: filter reasons and the FailedScheduling message', function () {
  this.timeout(20_000)
  let h: SchedulerHarness

  beforeEach(async () => {
    h = await SchedulerHarness.open()
  })
  afterEach(async () => {
    await h.close()
  })

  /** The condition and the Warning event carry the same message; returns it. */
  async function failure(pod: string): Promise<string> {
    const condition = await h.waitUnschedulable(pod)
    assert.equal(condition.reason, 'Unschedulable')
    const events = await h.events(pod)
    const failed = events.find((e) => e.reason === 'FailedScheduling')
    assert.ok(failed, 'a FailedScheduling event')
    assert.equal(failed.type, 'Warning')
    assert.equal(failed.action, 'Scheduling')
    assert.equal(failed.reportingController, 'default-scheduler')
    assert.equal(failed.note, condition.message)
    return String(condition.message)
  }

  it('a taint and too little cpu on every node, the request larger than any node: preemption is not helpful anywhere', async () => {
    await h.node('control-plane', { taints: [CONTROL_PLANE_TAINT] })
    await h.node('worker', { cpu: '2' })
    await h.node('worker2', { cpu: '2' })
    await h.pod('greedy', { requests: { cpu: '64' } })
    await h.start()
    assert.equal(
      await failure('greedy'),
      '0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    )
  })

  it('too little cpu left on nodes that could hold the pod: no preemption victims there', async () => {
    await h.node('control-plane', { taints: [CONTROL_PLANE_TAINT] })
    await h.node('worker', { cpu: '2' })
    await h.node('worker2', { cpu: '2' })
    await h.pod('busy-1', { nodeName: 'worker', requests: { cpu: '1500m' } })
    await h.pod('busy-2', { nodeName: 'worker2', requests: { cpu: '1500m' } })
    await h.pod('web', { requests: { cpu: '1' } })
    await h.start()
    assert.equal(
      await failure('web'),
      '0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.',
    )
  })

  it('node affinity/selector on every node', async () => {
    for (const n of ['a', 'b', 'c']) await h.node(n)
    await h.pod('picky', { nodeSelector: { 'workshop-default': 'no' } })
    await h.start()
    assert.equal(
      await failure('picky'),
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    )
  })

  it('required pod anti-affinity, with the control plane tainted', async () => {
    await h.node('control-plane', { taints: [CONTROL_PLANE_TAINT] })
    await h.node('worker', {})
    await h.node('worker2', {})
    const antiAffinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'testdp' } }, topologyKey: 'kubernetes.io/hostname' }] } }
    await h.pod('testdp-1', { nodeName: 'worker', affinity: antiAffinity }, { labels: { app: 'testdp' } })
    await h.pod('testdp-2', { nodeName: 'worker2', affinity: antiAffinity }, { labels: { app: 'testdp' } })
    await h.pod('testdp-3', { affinity: antiAffinity }, { labels: { app: 'testdp' } })
    await h.start()
    assert.equal(
      await failure('testdp-3'),
      "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
    )
  })

  it("existing pods' anti-affinity, and required pod affinity with no pod to join", async () => {
    await h.node('a', {})
    await h.pod('loner', { nodeName: 'a', affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'x' } }, topologyKey: 'kubernetes.io/hostname' }] } } })
    await h.pod('x', {}, { labels: { app: 'x' } })
    await h.pod('follower', { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname' }] } } })
    await h.start()
    assert.match(await failure('x'), /^0\/1 nodes are available: 1 node\(s\) didn't satisfy existing pods anti-affinity rules\. /)
    assert.match(await failure('follower'), /^0\/1 nodes are available: 1 node\(s\) didn't match pod affinity rules\. .*1 Preemption is not helpful for scheduling\.$/)
  })

  it('a cordoned node, a held host port, and a full pod count', async () => {
    await h.node('cordoned', { unschedulable: true })
    await h.node('ports', {})
    await h.node('full', { pods: '1' })
    await h.pod('holder', { nodeName: 'ports', containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, hostPort: 8080 }] }] })
    await h.pod('filler', { nodeName: 'full' })
    await h.pod('p', { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, hostPort: 8080 }] }] })
    await h.start()
    assert.equal(
      await failure('p'),
      "0/3 nodes are available: 1 Too many pods, 1 node(s) didn't have free ports for the requested pod ports, 1 node(s) were unschedulable. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
    )
  })

  it('topology spread (DoNotSchedule): skew, and nodes without the topology label', async () => {
    await h.node('z1', { labels: { zone: 'z1' } })
    await h.node('z2', { labels: { zone: 'z2' } })
    await h.node('nolabel', {})
    await h.pod('w-1', { nodeName: 'z1' }, { labels: { app: 'w' } })
    // nodeAffinityPolicy Ignore: z2 counts as a domain though the pod's selector excludes it, so z1 would be at skew 2.
    const spread = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'w' } }, nodeAffinityPolicy: 'Ignore' }] }
    await h.pod('w-2', { ...spread, nodeSelector: { zone: 'z1' } }, { labels: { app: 'w' } })
    await h.start()
    assert.equal(
      await failure('w-2'),
      "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, 2 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
    )
    await h.pod('w-3', spread, { labels: { app: 'w' } })
    assert.equal(await h.waitBound('w-3'), 'z2')
  })

  it('a node without the spread constraint label is unresolvable', async () => {
    await h.node('nolabel', {})
    await h.pod('s', { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 's' } } }] }, { labels: { app: 's' } })
    await h.start()
    assert.match(await failure('s'), /^0\/1 nodes are available: 1 node\(s\) didn't match pod topology spread constraints \(missing required label\)\. .* 1 Preemption is not helpful for scheduling\.$/)
  })

  it('volumes: a missing claim and an unbound Immediate claim fail in PreFilter', async () => {
    await h.node('a', {})
    await h.store('', 'v1', 'persistentvolumeclaims').create({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'unbound', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '' } }, { admission: false })
    await h.pod('missing', { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] })
    await h.pod('waiting', { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'unbound' } }] })
    await h.start()
    assert.equal(await failure('missing'), '0/1 nodes are available: persistentvolumeclaim "data" not found. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.')
    assert.equal(await failure('waiting'), '0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.')
  })

  it('no nodes at all', async () => {
    await h.pod('alone', {})
    await h.start()
    assert.equal(await failure('alone'), 'no nodes available to schedule pods')
  })

  it('preemptionPolicy Never: the pod is not eligible to preempt', async () => {
    await h.node('a', { cpu: '1' })
    await h.pod('big', { requests: { cpu: '2' }, preemptionPolicy: 'Never' })
    await h.start()
    assert.equal(await failure('big'), '0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.')
  })
})
