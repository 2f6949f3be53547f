/**
 * The CronJob controller over a registry with a fake clock: Jobs appear when the clock passes
 * a schedule time, named and annotated as the reference's getJobFromTemplate2 names them
 * (`<cronjob>-<scheduled time in minutes since the epoch>`, the scheduled time in RFC 3339 in
 * the CronJob's zone); events and messages are the reference's
 * (pkg/controller/cronjob/cronjob_controllerv2.go and utils.go).
 */
import assert from 'node:assert/strict'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { FakeClock } from '../../../src/server/controllers/clock.js'
import { CronJobController } from '../../../src/server/controllers/cronjob-controller.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

type Obj = Record<string, any>
const MINUTE = 60_000

describe('controllers: cronjob-controller', function () {
  this.timeout(20_000)
  let t: TestRegistry
  let manager: ControllerManager
  let clock: FakeClock
  const cronJobs = (): GenericStore => t.registry.lookup('batch', 'v1', 'cronjobs')!
  const jobs = (): GenericStore => t.registry.lookup('batch', 'v1', 'jobs')!
  const jobsOf = async (cj: string): Promise<KubeObject[]> =>
    (await jobs().list({ namespace: 'default' })).items.filter((j) => (j.metadata.ownerReferences as Obj[] | undefined)?.[0]?.name === cj).sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1))
  const status = async (cj: string): Promise<Obj> => ((await cronJobs().get('default', cj)).status ?? {}) as Obj
  const events = async (name: string) => (await t.registry.lookup('', 'v1', 'events')!.list({ namespace: 'default' })).items.filter((e) => (e.involvedObject as Obj).name === name) as Obj[]
  const createCronJob = (name: string, spec: Obj) =>
    cronJobs().create({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name, namespace: 'default' },
      spec: { jobTemplate: { metadata: { labels: { app: name } }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } } }, ...spec },
    })
  const finishJob = (job: KubeObject, type: 'Complete' | 'Failed', at: string) =>
    jobs().update(
      'default',
      job.metadata.name!,
      (j) => ({
        ...j,
        status: {
          startTime: at,
          ...(type === 'Complete' ? { completionTime: at, succeeded: 1 } : { failed: 1 }),
          conditions: [{ type, status: 'True', lastProbeTime: at, lastTransitionTime: at }],
        },
      }),
      { subresource: 'status' },
    )
  /** The first whole minute after the CronJob's creation: its first schedule time for `* * * * *`. */
  const firstMinuteAfter = (cj: KubeObject) => Math.floor(Date.parse(cj.metadata.creationTimestamp!) / MINUTE) * MINUTE + MINUTE

  beforeEach(async () => {
    t = await openTestRegistry('cronjob-controller-')
    clock = new FakeClock(Date.now())
    manager = new ControllerManager([new CronJobController({ clock, recheckMs: 20 })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  })
  afterEach(async () => {
    await manager.stop()
    await t.close()
  })

  it('creates the Job of a schedule time once the clock passes it, with the reference name, annotation, labels and owner', async () => {
    const cj = await createCronJob('tick', { schedule: '*/1 * * * *' })
    const due = firstMinuteAfter(cj)
    clock.set(due - 1000)
    await new Promise((r) => setTimeout(r, 150))
    assert.equal((await jobsOf('tick')).length, 0, 'nothing before the schedule time')
    clock.set(due + 5000)
    await eventually(async () => (await jobsOf('tick')).length === 1, 'the Job of the schedule time')
    const [job] = await jobsOf('tick')
    assert.equal(job!.metadata.name, `tick-${due / MINUTE}`)
    assert.equal(job!.metadata.annotations!['batch.kubernetes.io/cronjob-scheduled-timestamp'], new Date(due).toISOString().replace('.000Z', 'Z'))
    assert.equal(job!.metadata.labels!.app, 'tick')
    assert.deepEqual(job!.metadata.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: cj.metadata.uid, controller: true, blockOwnerDeletion: true }])
    await eventually(async () => (await status('tick')).lastScheduleTime === new Date(due).toISOString().replace('.000Z', 'Z'), 'lastScheduleTime')
    assert.deepEqual(
      (await status('tick')).active.map((r: Obj) => [r.kind, r.name, r.uid]),
      [['Job', job!.metadata.name, job!.metadata.uid]],
    )
    await eventually(async () => (await events('tick')).some((e) => e.reason === 'SuccessfulCreate' && e.message === `Created job ${job!.metadata.name}`), 'the SuccessfulCreate event')

    await finishJob(job!, 'Complete', '2026-01-01T00:00:10Z')
    await eventually(async () => (await status('tick')).active === undefined, 'the finished Job out of active')
    assert.equal((await status('tick')).lastSuccessfulTime, '2026-01-01T00:00:10Z')
    assert.ok((await events('tick')).some((e) => e.reason === 'SawCompletedJob' && e.message === `Saw completed job: ${job!.metadata.name}, condition: Complete`))

    clock.set(due + MINUTE + 5000)
    await eventually(async () => (await jobsOf('tick')).length === 2, 'the next minute\'s Job')
  })

  it('Forbid skips a start while one runs; Replace deletes the running one', async () => {
    const forbid = await createCronJob('forbid', { schedule: '* * * * *', concurrencyPolicy: 'Forbid' })
    const replace = await createCronJob('replace', { schedule: '* * * * *', concurrencyPolicy: 'Replace' })
    const due = Math.max(firstMinuteAfter(forbid), firstMinuteAfter(replace))
    clock.set(due + 1000)
    await eventually(async () => (await jobsOf('forbid')).length === 1 && (await jobsOf('replace')).length === 1, 'the first Jobs')
    const replaced = (await jobsOf('replace'))[0]!
    clock.set(due + MINUTE + 1000)
    await eventually(async () => (await events('forbid')).some((e) => e.reason === 'JobAlreadyActive' && e.message === 'Not starting job because prior execution is running and concurrency policy is Forbid'), 'JobAlreadyActive')
    assert.equal((await jobsOf('forbid')).length, 1)
    await eventually(async () => (await jobsOf('replace')).map((j) => j.metadata.name).join() === `replace-${(due + MINUTE) / MINUTE}`, 'the running Job replaced')
    assert.ok((await events('replace')).some((e) => e.reason === 'SuccessfulDelete' && e.message === `Deleted job ${replaced.metadata.name}`))
  })

  it('keeps successfulJobsHistoryLimit finished Jobs, deleting the oldest', async () => {
    const cj = await createCronJob('hist', { schedule: '* * * * *', successfulJobsHistoryLimit: 1 })
    const due = firstMinuteAfter(cj)
    for (let i = 0; i < 2; i++) {
      clock.set(due + i * MINUTE + 1000)
      await eventually(async () => (await jobsOf('hist')).some((j) => j.metadata.name === `hist-${(due + i * MINUTE) / MINUTE}`), `Job ${i}`)
      const job = (await jobsOf('hist')).find((j) => j.metadata.name === `hist-${(due + i * MINUTE) / MINUTE}`)!
      await finishJob(job, 'Complete', `2026-01-01T00:0${i}:00Z`)
    }
    await eventually(async () => (await jobsOf('hist')).map((j) => j.metadata.name).join() === `hist-${(due + MINUTE) / MINUTE}`, 'only the newest finished Job kept')
  })

  it('schedules in spec.timeZone and writes the scheduled time in that zone', async () => {
    const cj = await createCronJob('tokyo', { schedule: '0 9 * * *', timeZone: 'Asia/Tokyo' })
    // 09:00 in Tokyo is 00:00 UTC: the first midnight UTC after the creation.
    const created = Date.parse(cj.metadata.creationTimestamp!)
    const due = Math.floor(created / (24 * 60 * MINUTE)) * 24 * 60 * MINUTE + 24 * 60 * MINUTE
    clock.set(due + 1000)
    await eventually(async () => (await jobsOf('tokyo')).length === 1, 'the Job at 09:00 Tokyo')
    const job = (await jobsOf('tokyo'))[0]!
    assert.equal(job.metadata.name, `tokyo-${due / MINUTE}`)
    assert.equal(job.metadata.annotations!['batch.kubernetes.io/cronjob-scheduled-timestamp'], `${new Date(due).toISOString().slice(0, 10)}T09:00:00+09:00`)
  })

  it('warns of too many missed start times and starts only the most recent', async () => {
    const cj = await createCronJob('late', { schedule: '* * * * *' })
    const due = firstMinuteAfter(cj)
    clock.set(due + 150 * MINUTE + 1000)
    await eventually(async () => (await jobsOf('late')).length === 1, 'one Job')
    assert.equal((await jobsOf('late'))[0]!.metadata.name, `late-${due / MINUTE + 150}`)
    await eventually(
      async () => (await events('late')).some((e) => e.type === 'Warning' && e.reason === 'TooManyMissedTimes' && e.message === 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew'),
      'the TooManyMissedTimes warning',
    )
  })

  it('skips a start missed by more than startingDeadlineSeconds, and starts the next one on time', async () => {
    const cj = await createCronJob('strict', { schedule: '* * * * *', startingDeadlineSeconds: 10 })
    const due = firstMinuteAfter(cj)
    clock.set(due + 30_000)
    await new Promise((r) => setTimeout(r, 150))
    assert.equal((await jobsOf('strict')).length, 0, 'too late for the missed start')
    clock.set(due + MINUTE + 5000)
    await eventually(async () => (await jobsOf('strict')).length === 1, 'the next start within its deadline')
    assert.equal((await jobsOf('strict'))[0]!.metadata.name, `strict-${due / MINUTE + 1}`)
  })

  it('starts nothing while suspended', async () => {
    const cj = await createCronJob('paused', { schedule: '* * * * *', suspend: true })
    clock.set(firstMinuteAfter(cj) + 5 * MINUTE)
    await new Promise((r) => setTimeout(r, 200))
    assert.equal((await jobsOf('paused')).length, 0)
  })
})
