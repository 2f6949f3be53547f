import assert from 'node:assert/strict'
import { POST_START_HOOK_TABLE, postStartHooks, type PostStartHookParts } from '../../../src/server/assembly/post-start-hooks.js'
import type { Store } from '../../../src/server/store/types.js'
import { RELEASE_ORDER, ShutdownList } from '../../../src/server/assembly/shutdown.js'
import { CONTROLLERS } from '../../../src/server/controllers/index.js'
import { LATE_POST_START_HOOKS, POST_START_HOOKS } from '../../../src/server/health/index.js'

describe('server assembly', () => {
  it('names every post-start hook of the spec once, in its order, in the hooks table', () => {
    assert.deepEqual(
      POST_START_HOOK_TABLE.filter((entry) => entry.featureGate === undefined).map((entry) => entry.name),
      [...POST_START_HOOKS, ...LATE_POST_START_HOOKS],
    )
  })

  it('has the reference\'s storage-readiness hook only behind its feature gate (beta, off in 1.35)', () => {
    const gated = POST_START_HOOK_TABLE.filter((entry) => entry.featureGate !== undefined).map((entry) => [entry.name, entry.featureGate])
    assert.deepEqual(gated, [['storage-readiness', 'WatchCacheInitializationPostStartHook']])
  })

  it('storage-readiness (gate on) finishes only once every watch cache is filled; gate off, it is not there', async () => {
    let filled = false
    const watchCache = { whenFilled: async () => (await new Promise((r) => setTimeout(r, 200)), (filled = true)) }
    const parts = (gates: [string, boolean][]) =>
      ({
        config: { featureGates: new Map(gates), storageInitializationTimeoutMs: 60_000 },
        storeNow: async () => ({}) as Store,
        api: { registryFor: () => ({ watchCache }) },
        log: { warning: () => {} },
      }) as unknown as PostStartHookParts
    assert.equal('storage-readiness' in postStartHooks(parts([])), false)
    const hooks = postStartHooks(parts([['WatchCacheInitializationPostStartHook', true]]))
    await hooks['storage-readiness']!()
    assert.equal(filled, true)
  })

  it('releases the parts in RELEASE_ORDER whatever order they were added in', async () => {
    const released: string[] = []
    const list = new ShutdownList()
    for (const name of [...RELEASE_ORDER].reverse()) list.add(name, async () => void released.push(name))
    await list.release()
    assert.deepEqual(released, [...RELEASE_ORDER])
  })

  it('lists each controller the server starts under its reference name, once', () => {
    const names = CONTROLLERS.map((entry) => entry.name)
    assert.deepEqual(new Set(names).size, names.length)
    for (const name of ['clusterrole-aggregation-controller', 'serviceaccount-token-controller', 'lease-endpoint-reconciler', 'priority-and-fairness-config-consumer']) {
      assert.ok(names.includes(name), name)
    }
  })
})
