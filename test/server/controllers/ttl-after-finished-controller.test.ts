/**
 * The TTL-after-finished controller with a fake clock: a finished Job with
 * ttlSecondsAfterFinished is deleted with foreground propagation (the reference's processTTL)
 * once the clock passes its finish time plus the TTL, and not before; Jobs without a TTL or
 * still running stay.
 */
import assert from 'node:assert/strict'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import { FakeClock } from '../../../src/server/controllers/clock.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { TTLAfterFinishedController } from '../../../src/server/controllers/ttl-after-finished-controller.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

const FINISHED_AT = '2026-01-01T00:00:00Z'

describe('controllers: ttl-after-finished-controller', function () {
  this.timeout(15_000)
  let t: TestRegistry
  let manager: ControllerManager
  let clock: FakeClock
  const jobs = (): GenericStore => t.registry.lookup('batch', 'v1', 'jobs')!
  const exists = async (name: string) => (await jobs().list({ namespace: 'default' })).items.find((j) => j.metadata.name === name)
  const createJob = async (name: string, ttl: number | undefined, finished: boolean) => {
    await jobs().create({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name, namespace: 'default' },
      spec: { ...(ttl !== undefined ? { ttlSecondsAfterFinished: ttl } : {}), template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    })
    if (finished) {
      await jobs().update(
        'default',
        name,
        (j) => ({ ...j, status: { startTime: FINISHED_AT, completionTime: FINISHED_AT, succeeded: 1, conditions: [{ type: 'Complete', status: 'True', lastProbeTime: FINISHED_AT, lastTransitionTime: FINISHED_AT }] } }),
        { subresource: 'status' },
      )
    }
  }

  beforeEach(async () => {
    t = await openTestRegistry('ttl-after-finished-', ['default'], { garbageCollector: true })
    clock = new FakeClock(Date.parse(FINISHED_AT) + 10_000)
    manager = new ControllerManager([new TTLAfterFinishedController({ clock, recheckMs: 20 })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  })
  afterEach(async () => {
    await manager.stop()
    await t.close()
  })

  it('deletes a finished Job once its TTL has passed, not before, with foreground propagation', async () => {
    await createJob('done', 60, true)
    await createJob('keep', undefined, true)
    await createJob('running', 0, false)
    await new Promise((r) => setTimeout(r, 150))
    assert.ok(await exists('done'), 'kept within the TTL')
    clock.advance(50_000)
    await eventually(async () => {
      const job = await exists('done')
      return job === undefined || job.metadata.deletionTimestamp !== undefined
    }, 'the Job deleted after its TTL')
    const job = await exists('done')
    if (job) assert.ok((job.metadata.finalizers as string[]).includes('foregroundDeletion'))
    assert.ok(await exists('keep'))
    assert.ok(await exists('running'))
  })

  it('deletes a Job with TTL 0 as soon as it finishes', async () => {
    await createJob('zero', 0, true)
    await eventually(async () => (await exists('zero'))?.metadata.deletionTimestamp !== undefined || (await exists('zero')) === undefined, 'the Job deleted')
  })
})
