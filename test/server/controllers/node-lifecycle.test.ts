/**
 * The node lifecycle and taint eviction controllers over a registry, on a fake clock: a node
 * whose heartbeats (Ready's lastHeartbeatTime, its kube-node-lease Lease) stop changing for
 * longer than the grace period, on the controller's clock, gets Ready, MemoryPressure, DiskPressure and PIDPressure Unknown with the
 * reference's reason and message (node_lifecycle_controller.go), the unreachable taints
 * (NoSchedule, NoExecute), and its pods' Ready False; a pod tolerating the taint for N seconds
 * is deleted N seconds after the taint was added, one without tolerations after the 300 s the
 * DefaultTolerationSeconds admission plugin gave it, one tolerating it for ever stays. A node heard from again loses the taints.
 */
import assert from 'node:assert/strict'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import { FakeClock } from '../../../src/server/controllers/clock.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { NodeLifecycleController } from '../../../src/server/controllers/node-lifecycle.js'
import { TaintEvictionController } from '../../../src/server/controllers/taint-eviction.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

const T0 = Date.parse('2030-01-01T00:00:00Z')
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')

describe('controllers: node-lifecycle-controller and taint-eviction-controller', function () {
  this.timeout(20_000)
  let t: TestRegistry
  let manager: ControllerManager
  const clock = new FakeClock(T0)
  const store = (resource: string): GenericStore => t.registry.lookup('', 'v1', resource)!

  const readyNode = async (name: string) => {
    await store('nodes').create({ apiVersion: 'v1', kind: 'Node', metadata: { name } })
    await store('nodes').update(undefined, name, (cur) => ({
      ...cur,
      status: {
        conditions: [
          { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: iso(T0), lastTransitionTime: iso(T0) },
          { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', lastHeartbeatTime: iso(T0), lastTransitionTime: iso(T0) },
        ],
      },
    }), { subresource: 'status' })
  }
  const pod = async (name: string, node: string, tolerationSeconds?: number | null) => {
    const tolerations = tolerationSeconds === undefined ? [] : [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', ...(tolerationSeconds === null ? {} : { tolerationSeconds }) }]
    await store('pods').create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: node, containers: [{ name: 'c', image: 'i' }], tolerations } })
    await store('pods').update('default', name, (cur) => ({ ...cur, status: { ...(cur.status as object), phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }), { subresource: 'status' })
  }
  // The controller times silence from when it first sees a node (as the reference's probeTimestamp): let it look once.
  const observed = () => new Promise((r) => setTimeout(r, 200))
  const node = async (name: string) => store('nodes').get(undefined, name)
  // The eviction is a (graceful) deletion: the node's agent finishes it, none runs here.
  const exists = async (name: string) => (await store('pods').list({ namespace: 'default' })).items.some((p) => p.metadata.name === name && !p.metadata.deletionTimestamp)

  beforeEach(async () => {
    clock.set(T0)
    t = await openTestRegistry('node-lifecycle-', ['default', 'kube-node-lease'])
    manager = new ControllerManager([new NodeLifecycleController({ gracePeriodMs: 40_000, monitorPeriodMs: 50, clock }), new TaintEvictionController({ clock, periodMs: 50 })])
  })
  afterEach(async () => {
    await manager.stop()
    await t.close()
  })

  it('leaves a node heard from within the grace period alone', async () => {
    await readyNode('n1')
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
    await observed()
    clock.advance(30_000)
    await new Promise((r) => setTimeout(r, 200))
    const n = await node('n1')
    assert.equal((n.status as { conditions: Array<{ status: string }> }).conditions[0]!.status, 'True')
    assert.equal((n.spec as { taints?: unknown } | undefined)?.taints, undefined)
  })

  it('marks a silent node Unknown and tainted, its pods not ready, then evicts them after their tolerations', async () => {
    await readyNode('n1')
    await pod('short', 'n1', 5)
    await pod('none', 'n1')
    await pod('forever', 'n1', null)
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
    await observed()
    clock.advance(41_000)
    await eventually(async () => ((await node('n1')).spec as { taints?: unknown[] } | undefined)?.taints?.length === 2, 'the unreachable taints')
    const n = await node('n1')
    const conditions = (n.status as { conditions: Array<Record<string, string>> }).conditions
    assert.deepEqual(
      conditions.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['Ready', 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'],
        ['MemoryPressure', 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'],
        ['DiskPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
        ['PIDPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
      ],
    )
    assert.equal(conditions[0]!.lastHeartbeatTime, iso(T0))
    assert.deepEqual(
      (n.spec as { taints: Array<Record<string, string>> }).taints.map((x) => [x.key, x.effect]),
      [['node.kubernetes.io/unreachable', 'NoSchedule'], ['node.kubernetes.io/unreachable', 'NoExecute']],
    )
    const forever = await store('pods').get('default', 'forever')
    assert.equal((forever.status as { conditions: Array<{ type: string; status: string }> }).conditions.find((c) => c.type === 'Ready')!.status, 'False')
    assert.ok(await exists('short'))
    clock.advance(5_000)
    await eventually(async () => !(await exists('short')), 'the pod tolerating 5 s evicted after them')
    assert.ok(await exists('none'))
    // The DefaultTolerationSeconds admission plugin gave the pod without tolerations 300 s.
    clock.advance(295_000)
    await eventually(async () => !(await exists('none')), 'the pod with the default toleration evicted after 300 s')
    await new Promise((r) => setTimeout(r, 200))
    assert.ok(await exists('forever'))
    const events = (await store('events').list({ namespace: 'default' })).items
    assert.ok(events.some((e) => e.reason === 'TaintManagerEviction' && e.message === 'Marking for deletion Pod default/short'))
    assert.ok(events.some((e) => e.reason === 'NodeNotReady' && e.message === 'Node n1 status is now: NodeNotReady'))
  })

  it('removes the taints once the node is heard from again (a new heartbeat)', async () => {
    await readyNode('n1')
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
    await observed()
    clock.advance(41_000)
    await eventually(async () => ((await node('n1')).spec as { taints?: unknown[] } | undefined)?.taints?.length === 2, 'the unreachable taints')
    await store('nodes').update(undefined, 'n1', (cur) => ({
      ...cur,
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: iso(clock.now()), lastTransitionTime: iso(clock.now()) }] },
    }), { subresource: 'status' })
    await eventually(async () => ((await node('n1')).spec as { taints?: unknown[] } | undefined)?.taints === undefined, 'the taints removed')
  })
})
