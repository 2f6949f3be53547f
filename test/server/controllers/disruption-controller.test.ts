/**
 * The disruption controller over a registry: PodDisruptionBudget status as the reference's
 * pkg/controller/disruption writes it (currentHealthy, desiredHealthy, expectedPods,
 * disruptionsAllowed, observedGeneration, the DisruptionAllowed condition with SufficientPods /
 * InsufficientPods / SyncFailed), expected pods from the controllers' scale for maxUnavailable.
 */
import assert from 'node:assert/strict'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { FakeClock } from '../../../src/server/controllers/clock.js'
import { DisruptionController } from '../../../src/server/controllers/disruption-controller.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'
import { runPod } from './pod-lifecycle.js'

type Obj = Record<string, any>

describe('controllers: disruption-controller', function () {
  this.timeout(20_000)
  let t: TestRegistry
  let manager: ControllerManager
  const pdbs = (): GenericStore => t.registry.lookup('policy', 'v1', 'poddisruptionbudgets')!
  const status = async (name: string): Promise<Obj> => ((await pdbs().get('default', name)).status ?? {}) as Obj
  const condition = async (name: string) => ((await status(name)).conditions ?? []).find((c: Obj) => c.type === 'DisruptionAllowed')
  const createPod = async (name: string, labels: Record<string, string>, ready: boolean, owner?: KubeObject): Promise<KubeObject> => {
    const pod = await t.registry.lookup('', 'v1', 'pods')!.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'default',
        labels,
        ...(owner ? { ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true }] } : {}),
      },
      spec: { nodeName: 'n', containers: [{ name: 'c', image: 'nginx' }] },
    })
    return runPod(t.registry, pod, { ready, ip: '10.0.0.1' })
  }
  const createPdb = (name: string, spec: Obj) => pdbs().create({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace: 'default' }, spec })

  beforeEach(async () => {
    t = await openTestRegistry('disruption-')
    manager = new ControllerManager([new DisruptionController({ clock: new FakeClock(Date.now()), recheckMs: 20 })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  })
  afterEach(async () => {
    await manager.stop()
    await t.close()
  })

  it('allows disruptions above minAvailable, and none when a pod stops being ready', async () => {
    const pods = [await createPod('a', { app: 'web' }, true), await createPod('b', { app: 'web' }, true), await createPod('c', { app: 'web' }, true)]
    await createPdb('web', { minAvailable: 2, selector: { matchLabels: { app: 'web' } } })
    await eventually(async () => (await status('web')).disruptionsAllowed === 1, 'one disruption allowed')
    const s = await status('web')
    assert.equal(s.currentHealthy, 3)
    assert.equal(s.desiredHealthy, 2)
    assert.equal(s.expectedPods, 3)
    assert.equal(s.observedGeneration, 1)
    const allowed = await condition('web')
    assert.equal(allowed.status, 'True')
    assert.equal(allowed.reason, 'SufficientPods')
    assert.equal(allowed.observedGeneration, 1)
    await runPod(t.registry, pods[0]!, { ready: false, ip: '10.0.0.1' })
    await eventually(async () => (await status('web')).disruptionsAllowed === 0 && (await condition('web')).reason === 'InsufficientPods', 'none allowed')
    assert.equal((await condition('web')).status, 'False')
    assert.equal((await status('web')).currentHealthy, 2)
  })

  it('counts expected pods from the controllers\' scale for maxUnavailable', async () => {
    const rs = await t.registry.lookup('apps', 'v1', 'replicasets')!.create({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'rs', namespace: 'default' },
      spec: { replicas: 4, selector: { matchLabels: { app: 'rs' } }, template: { metadata: { labels: { app: 'rs' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    })
    for (const name of ['r1', 'r2', 'r3']) await createPod(name, { app: 'rs' }, true, rs)
    await createPdb('rs', { maxUnavailable: '50%', selector: { matchLabels: { app: 'rs' } } })
    await eventually(async () => (await status('rs')).expectedPods === 4, 'expected 4 from the ReplicaSet')
    assert.equal((await status('rs')).desiredHealthy, 2)
    assert.equal((await status('rs')).disruptionsAllowed, 1)
  })

  it('fails safe when a pod\'s controller cannot be found', async () => {
    await createPod('x', { app: 'odd' }, true, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', uid: 'u-1' } } as KubeObject)
    await createPdb('odd', { maxUnavailable: 1, selector: { matchLabels: { app: 'odd' } } })
    await eventually(async () => (await condition('odd'))?.reason === 'SyncFailed', 'SyncFailed')
    assert.equal((await condition('odd')).message, 'found no controllers for pod "x"')
    assert.equal((await status('odd')).disruptionsAllowed, 0)
  })
})
