/**
 * The pod garbage collector: terminated pods beyond the threshold go oldest first; pods of a
 * node gone (after the quarantine, on the fake clock) are marked Failed with the reference's
 * DisruptionTarget condition (pkg/controller/podgc/gc_controller.go: DeletionByPodGC,
 * "PodGC: node no longer exists") and deleted; unscheduled pods being deleted are deleted.
 */
import assert from 'node:assert/strict'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { FakeClock } from '../../../src/server/controllers/clock.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { PodGarbageCollector } from '../../../src/server/controllers/pod-garbage-collector-controller.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'
import { finishPod, runPod } from './pod-lifecycle.js'

describe('controllers: pod-garbage-collector-controller', function () {
  this.timeout(15_000)
  let t: TestRegistry
  let manager: ControllerManager | undefined
  let clock: FakeClock
  const pods = (): GenericStore => t.registry.lookup('', 'v1', 'pods')!
  const names = async () => (await pods().list({ namespace: 'default' })).items.map((p) => p.metadata.name!).sort()
  const createPod = (name: string, extra: Record<string, unknown> = {}, spec: Record<string, unknown> = {}): Promise<KubeObject> =>
    pods().create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', ...extra }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } })
  const startGC = async (threshold: number) => {
    manager = new ControllerManager([new PodGarbageCollector({ clock, terminatedPodThreshold: threshold, periodMs: 30 })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  }

  beforeEach(async () => {
    t = await openTestRegistry('podgc-')
    clock = new FakeClock(Date.now())
  })
  afterEach(async () => {
    await manager?.stop()
    manager = undefined
    await t.close()
  })

  it('deletes the oldest terminated pods beyond the threshold', async () => {
    for (const name of ['a', 'b', 'c']) {
      await finishPod(t.registry, await createPod(name), 0)
      await new Promise((r) => setTimeout(r, 1100)) // creation timestamps are whole seconds
    }
    await createPod('running')
    await startGC(1)
    await eventually(async () => (await names()).join() === 'c,running', 'the two oldest terminated pods deleted')
  })

  it('marks the pods of a node gone Failed with DisruptionTarget after the quarantine, then deletes them', async () => {
    const pod = await createPod('orphan', {}, { nodeName: 'gone-node' })
    await runPod(t.registry, pod)
    const seen: KubeObject[] = []
    t.registry.onChange(({ object, strategy }) => {
      if (strategy.resource === 'pods' && object.metadata.name === 'orphan') seen.push(object)
    })
    await startGC(0)
    await new Promise((r) => setTimeout(r, 150))
    assert.deepEqual(await names(), ['orphan'], 'kept during the quarantine')
    clock.advance(41_000)
    await eventually(async () => (await names()).length === 0, 'the orphan deleted')
    const failed = seen.find((p) => (p.status as { phase?: string }).phase === 'Failed')!
    const condition = (failed.status as { conditions: Array<Record<string, string>> }).conditions.find((c) => c.type === 'DisruptionTarget')!
    assert.equal(condition.status, 'True')
    assert.equal(condition.reason, 'DeletionByPodGC')
    assert.equal(condition.message, 'PodGC: node no longer exists')
  })

  it('force-deletes unscheduled pods being deleted', async () => {
    await createPod('held', { finalizers: ['example.com/hold'] })
    await pods().delete('default', 'held')
    await startGC(0)
    await new Promise((r) => setTimeout(r, 150))
    // Force deletion leaves a pod with finalizers until they go, marked Failed.
    const held = (await pods().list({ namespace: 'default' })).items[0]!
    assert.equal((held.status as { phase?: string }).phase, 'Failed')
  })
})
