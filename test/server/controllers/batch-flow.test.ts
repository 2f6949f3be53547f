/**
 * The batch controllers together over one registry with the garbage collector, the test
 * playing the node: a CronJob's Job (on the fake clock) runs its pod to completion, the CronJob
 * sees it complete, and the TTL-after-finished controller deletes the Job with its pod.
 */
import assert from 'node:assert/strict'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import { FakeClock } from '../../../src/server/controllers/clock.js'
import { CronJobController } from '../../../src/server/controllers/cronjob-controller.js'
import { JobController } from '../../../src/server/controllers/job-controller.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { TTLAfterFinishedController } from '../../../src/server/controllers/ttl-after-finished-controller.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'
import { finishPod } from './pod-lifecycle.js'

type Obj = Record<string, any>

describe('controllers: a CronJob through its Job, pod and TTL', function () {
  this.timeout(20_000)
  let t: TestRegistry
  let manager: ControllerManager

  beforeEach(async () => {
    t = await openTestRegistry('batch-flow-', ['default'], { garbageCollector: true })
  })
  afterEach(async () => {
    await manager.stop()
    await t.close()
  })

  it('runs the scheduled Job to completion and cleans it up after its TTL', async () => {
    const clock = new FakeClock(Date.now())
    manager = new ControllerManager([new CronJobController({ clock, recheckMs: 20 }), new JobController({ clock, recheckMs: 20 }), new TTLAfterFinishedController({ clock, recheckMs: 20 })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
    const cronJobs: GenericStore = t.registry.lookup('batch', 'v1', 'cronjobs')!
    const jobs: GenericStore = t.registry.lookup('batch', 'v1', 'jobs')!
    const pods: GenericStore = t.registry.lookup('', 'v1', 'pods')!
    const cj = await cronJobs.create({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'report', namespace: 'default' },
      spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { ttlSecondsAfterFinished: 60, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } } },
    })
    const created = Date.parse(cj.metadata.creationTimestamp!)
    const due = Math.floor(created / 300_000) * 300_000 + 300_000
    clock.set(due + 1000)
    await eventually(async () => (await pods.list({ namespace: 'default' })).items.length === 1, 'the Job\'s pod')
    const [pod] = (await pods.list({ namespace: 'default' })).items
    assert.equal(pod!.metadata.labels!['job-name'], `report-${due / 60_000}`)
    await finishPod(t.registry, pod!, 0)
    await eventually(async () => ((await cronJobs.get('default', 'report')).status as Obj).lastSuccessfulTime !== undefined, 'lastSuccessfulTime')
    assert.equal(((await cronJobs.get('default', 'report')).status as Obj).active, undefined)
    clock.advance(61_000)
    await eventually(async () => (await jobs.list({ namespace: 'default' })).items.length === 0, 'the Job deleted after its TTL', 10_000)
    await eventually(async () => (await pods.list({ namespace: 'default' })).items.length === 0, 'its pod collected', 10_000)
  })
})
