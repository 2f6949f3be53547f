/**
 * Which node the default profile's Score plugins choose, with the default weights
 * (pkg/scheduler/apis/config/v1/default_plugins.go): LeastAllocated (noderesources
 * least_allocated.go: ((allocatable − requested) × 100) / allocatable, containers without
 * requests counting 100m and 200Mi), the system default spreading of a Service's or
 * ReplicaSet's pods (podtopologyspread: hostname maxSkew 3 and zone maxSkew 5, ScheduleAnyway),
 * preferred node affinity, PreferNoSchedule taints, preferred pod affinity; ties at random with
 * a seeded generator.
 */
import assert from 'node:assert/strict'
import { FakeClock } from '../../../src/server/controllers/clock.js'
import { Scheduler, numFeasibleNodesToFind } from '../../../src/server/scheduler/scheduler.js'
import { SchedulerHarness, seeded } from './support.js'

describe('scheduler: scoring', function () {
  this.timeout(20_000)
  let h: SchedulerHarness

  beforeEach(async () => {
    h = await SchedulerHarness.open()
  })
  afterEach(async () => {
    await h.close()
  })

  it('least allocated: the node with more room left wins', async () => {
    await h.node('busy', { cpu: '4', memory: '8Gi' })
    await h.node('idle', { cpu: '4', memory: '8Gi' })
    await h.pod('existing', { nodeName: 'busy', requests: { cpu: '3', memory: '6Gi' } })
    await h.pod('new', { requests: { cpu: '500m', memory: '512Mi' } })
    await h.start()
    assert.equal(await h.waitBound('new'), 'idle')
  })

  it("spreads a Service's pods across the nodes", async () => {
    for (const n of ['n1', 'n2', 'n3']) await h.node(n)
    await h.store('', 'v1', 'services').create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } }, { admission: false })
    await h.start()
    const placed: string[] = []
    for (let i = 0; i < 6; i++) {
      await h.pod(`web-${i}`, {}, { labels: { app: 'web' } })
      placed.push(await h.waitBound(`web-${i}`))
    }
    const perNode = new Map<string, number>()
    for (const n of placed) perNode.set(n, (perNode.get(n) ?? 0) + 1)
    assert.deepEqual([...perNode.values()].sort(), [2, 2, 2], `placed: ${placed.join(', ')}`)
  })

  it('preferred node affinity and PreferNoSchedule taints steer the choice', async () => {
    await h.node('plain')
    await h.node('ssd', { labels: { disk: 'ssd' } })
    await h.node('avoid', { labels: { disk: 'ssd' }, taints: [{ key: 'dedicated', value: 'batch', effect: 'PreferNoSchedule' }] })
    await h.pod('db', { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } }] } } })
    await h.start()
    assert.equal(await h.waitBound('db'), 'ssd')
  })

  it('image locality: the node that already has the image', async () => {
    for (const n of ['bare-1', 'bare-2', 'bare-3', 'bare-4', 'bare-5']) await h.node(n)
    await h.node('cached', { images: [{ names: ['docker.io/library/nginx@sha256:abc', 'nginx:latest'], sizeBytes: 500 * 1024 * 1024 }] })
    await h.pod('web', { containers: [{ name: 'c', image: 'nginx' }] })
    await h.start()
    assert.equal(await h.waitBound('web'), 'cached')
  })

  it('preferred pod affinity: next to the pods it likes', async () => {
    await h.node('a')
    await h.node('b')
    await h.pod('cache', { nodeName: 'b' }, { labels: { app: 'cache' } })
    await h.pod('app', { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: 'kubernetes.io/hostname' } }] } } })
    await h.start()
    assert.equal(await h.waitBound('app'), 'b')
  })
})

describe('scheduler: ties and the node count it examines', () => {
  const node = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: {} }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } })
  const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c' }] } })

  it('breaks ties at random, the same way for the same seed', () => {
    const choose = (seed: number): string[] => {
      const scheduler = new Scheduler({ random: seeded(seed), clock: new FakeClock(0) })
      for (const name of ['n1', 'n2', 'n3', 'n4']) scheduler.cache.upsertNode(node(name))
      const chosen: string[] = []
      for (let i = 0; i < 16; i++) {
        const result = scheduler.schedulePod(pod(`p${i}`))
        assert.ok('node' in result)
        chosen.push(result.node.name)
      }
      return chosen
    }
    assert.deepEqual(choose(7), choose(7))
    assert.notDeepEqual(choose(7), choose(8))
    assert.equal(new Set(choose(7)).size, 4, 'equal nodes each get some')
  })

  it('keeps the room preemption made for the nominated pod from pods of no higher priority', () => {
    const scheduler = new Scheduler({ random: seeded(1) })
    scheduler.cache.upsertNode({ ...node('n1'), status: { allocatable: { cpu: '2', memory: '8Gi', pods: '110' } } })
    const sized = (name: string, priority: number, extra: Record<string, unknown> = {}) => ({ ...pod(name), spec: { priority, containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }], ...extra } })
    scheduler.cache.assume(sized('running', 0), 'n1')
    const mid = sized('mid', 500, { preemptionPolicy: 'Never' })
    assert.ok('node' in scheduler.schedulePod(mid), 'room for it before anyone is nominated')
    scheduler.nominate(sized('high', 1000), 'n1')
    assert.deepEqual(scheduler.schedulePod(mid), { message: '0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.' })
    // A pod of higher priority than the nominated one is not held back by it.
    assert.ok('node' in scheduler.schedulePod(sized('top', 2000)))
  })

  it("examines the reference's adaptive share of the nodes (numFeasibleNodesToFind)", () => {
    // schedule_one.go: all below 100 nodes; else max(100, n × max(5, 50 − n/125) / 100).
    assert.equal(numFeasibleNodesToFind(10), 10)
    assert.equal(numFeasibleNodesToFind(100), 100)
    assert.equal(numFeasibleNodesToFind(1000), 420)
    assert.equal(numFeasibleNodesToFind(6000), 300)
  })
})
