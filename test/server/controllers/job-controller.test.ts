/**
 * The Job controller over a registry, the test playing the nodes (pods finished with an exit
 * code). Expected reasons, messages and labels are the reference's (pkg/controller/job/
 * job_controller.go: "Job has reached the specified backoff limit", "Job was active longer than
 * specified deadline", "Reached expected number of succeeded pods", the pod failure policy's
 * "Container %s for pod %s/%s failed with exit code %v matching %v rule at index %d"; the
 * PodControl events "Created pod: %v"; k8s.io/api/batch/v1's label and annotation keys).
 */
import assert from 'node:assert/strict'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { FakeClock } from '../../../src/server/controllers/clock.js'
import { JobController } from '../../../src/server/controllers/job-controller.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'
import { finishPod, runPod } from './pod-lifecycle.js'

type Obj = Record<string, any>

describe('controllers: job-controller', function () {
  this.timeout(20_000)
  let t: TestRegistry
  let manager: ControllerManager
  let clock: FakeClock
  const jobs = (): GenericStore => t.registry.lookup('batch', 'v1', 'jobs')!
  const pods = (): GenericStore => t.registry.lookup('', 'v1', 'pods')!
  const podsOf = async (job: string): Promise<KubeObject[]> => (await pods().list({ namespace: 'default' })).items.filter((p) => p.metadata.labels?.['job-name'] === job)
  const activePods = async (job: string) => (await podsOf(job)).filter((p) => !['Succeeded', 'Failed'].includes((p.status as Obj | undefined)?.phase) && !p.metadata.deletionTimestamp)
  const status = async (job: string): Promise<Obj> => ((await jobs().get('default', job)).status ?? {}) as Obj
  const condition = async (job: string, type: string): Promise<Obj | undefined> => ((await status(job)).conditions ?? []).find((c: Obj) => c.type === type)
  const events = async (name: string) => (await t.registry.lookup('', 'v1', 'events')!.list({ namespace: 'default' })).items.filter((e) => (e.involvedObject as Obj).name === name) as Obj[]
  const createJob = (name: string, spec: Obj) =>
    jobs().create({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name, namespace: 'default' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } }, ...spec },
    })

  beforeEach(async () => {
    t = await openTestRegistry('job-controller-')
    clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'))
    manager = new ControllerManager([new JobController({ clock, recheckMs: 20 })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  })
  afterEach(async () => {
    await manager.stop()
    await t.close()
  })

  it('creates pods from the template with the reference labels, owner and tracking finalizer, and completes', async () => {
    const job = await createJob('pi', { completions: 2, parallelism: 1 })
    await eventually(async () => (await podsOf('pi')).length === 1, 'the first pod')
    const [pod] = await podsOf('pi')
    assert.equal(pod!.metadata.labels!['batch.kubernetes.io/controller-uid'], job.metadata.uid)
    assert.equal(pod!.metadata.labels!['batch.kubernetes.io/job-name'], 'pi')
    assert.equal(pod!.metadata.labels!['controller-uid'], job.metadata.uid)
    assert.equal(pod!.metadata.labels!['job-name'], 'pi')
    assert.deepEqual(pod!.metadata.finalizers, ['batch.kubernetes.io/job-tracking'])
    assert.deepEqual(pod!.metadata.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid: job.metadata.uid, controller: true, blockOwnerDeletion: true }])
    assert.ok(pod!.metadata.name!.startsWith('pi-'))
    await eventually(async () => (await status('pi')).active === 1 && (await status('pi')).startTime !== undefined, 'active 1 and the start time')

    await finishPod(t.registry, pod!, 0)
    await eventually(async () => (await podsOf('pi')).length === 2, 'the second pod')
    const second = (await activePods('pi'))[0]!
    await finishPod(t.registry, second, 0)
    await eventually(async () => (await condition('pi', 'Complete'))?.status === 'True', 'the Complete condition')
    const s = await status('pi')
    assert.equal(s.succeeded, 2)
    assert.equal(s.failed, undefined)
    assert.equal(s.active, undefined)
    assert.deepEqual(s.uncountedTerminatedPods, {})
    assert.ok(s.completionTime)
    const criteria = await condition('pi', 'SuccessCriteriaMet')
    assert.equal(criteria?.reason, 'CompletionsReached')
    assert.equal((await condition('pi', 'Complete'))!.reason, 'CompletionsReached')
    assert.equal((await condition('pi', 'Complete'))!.message, 'Reached expected number of succeeded pods')
    for (const p of await podsOf('pi')) assert.deepEqual(p.metadata.finalizers ?? [], [], 'finalizer removed once counted')
    await eventually(async () => (await events('pi')).some((e) => e.reason === 'Completed' && e.message === 'Job completed'), 'the Completed event')
    const created = (await events('pi')).filter((e) => e.reason === 'SuccessfulCreate').map((e) => e.message)
    assert.ok(created.includes(`Created pod: ${pod!.metadata.name}`))
    assert.equal((await events('pi'))[0]!.source.component, 'job-controller')
  })

  it('runs a work queue (parallelism without completions): after a success the others finish, none start', async () => {
    await jobs().create({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'queue', namespace: 'default' },
      spec: { parallelism: 2, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
    })
    await eventually(async () => (await podsOf('queue')).length === 2, 'two pods')
    const [first, second] = await podsOf('queue')
    await finishPod(t.registry, first!, 0)
    await eventually(async () => (await status('queue')).succeeded === 1, 'succeeded 1')
    await new Promise((r) => setTimeout(r, 100))
    assert.equal((await podsOf('queue')).length, 2, 'no new pod after a success')
    assert.equal((await activePods('queue')).length, 1, 'the other left running')
    assert.equal(await condition('queue', 'Complete'), undefined)
    await finishPod(t.registry, second!, 0)
    await eventually(async () => (await condition('queue', 'Complete'))?.status === 'True', 'complete once none is active')
    assert.equal((await status('queue')).succeeded, 2)
  })

  it('waits the back-off before replacing a failed pod, then fails with BackoffLimitExceeded', async () => {
    await createJob('flaky', { backoffLimit: 1 })
    await eventually(async () => (await podsOf('flaky')).length === 1, 'the first pod')
    await finishPod(t.registry, (await podsOf('flaky'))[0]!, 1)
    await eventually(async () => (await status('flaky')).failed === 1, 'failed 1')
    await new Promise((r) => setTimeout(r, 200))
    assert.equal((await podsOf('flaky')).length, 1, 'no replacement within the 10 s back-off')
    clock.advance(10_000)
    await eventually(async () => (await activePods('flaky')).length === 1, 'the replacement after the back-off')
    await finishPod(t.registry, (await activePods('flaky'))[0]!, 1)
    await eventually(async () => (await condition('flaky', 'Failed'))?.status === 'True', 'the Failed condition')
    const failed = (await condition('flaky', 'Failed'))!
    assert.equal(failed.reason, 'BackoffLimitExceeded')
    assert.equal(failed.message, 'Job has reached the specified backoff limit')
    assert.equal((await condition('flaky', 'FailureTarget'))?.reason, 'BackoffLimitExceeded')
    assert.equal((await status('flaky')).failed, 2)
    assert.equal((await status('flaky')).completionTime, undefined)
    await eventually(async () => (await events('flaky')).some((e) => e.type === 'Warning' && e.reason === 'BackoffLimitExceeded' && e.message === 'Job has reached the specified backoff limit'), 'the warning event')
  })

  it('fails at once on a podFailurePolicy FailJob rule, and ignores failures an Ignore rule matches', async () => {
    await createJob('policy', {
      backoffLimit: 6,
      podFailurePolicy: {
        rules: [
          { action: 'Ignore', onExitCodes: { operator: 'In', values: [3] } },
          { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
        ],
      },
    })
    await eventually(async () => (await podsOf('policy')).length === 1, 'the first pod')
    await finishPod(t.registry, (await podsOf('policy'))[0]!, 3)
    await eventually(async () => (await activePods('policy')).length === 1, 'an ignored failure replaced without back-off')
    assert.equal((await status('policy')).failed, undefined)
    const pod = (await activePods('policy'))[0]!
    await finishPod(t.registry, pod, 42)
    await eventually(async () => (await condition('policy', 'Failed'))?.status === 'True', 'the Failed condition')
    const failed = (await condition('policy', 'Failed'))!
    assert.equal(failed.reason, 'PodFailurePolicy')
    assert.equal(failed.message, `Container main for pod default/${pod.metadata.name} failed with exit code 42 matching FailJob rule at index 1`)
  })

  it('runs an Indexed Job: one pod per index with its annotation, label and hostname, completedIndexes', async () => {
    await createJob('idx', { completions: 3, parallelism: 3, completionMode: 'Indexed' })
    await eventually(async () => (await podsOf('idx')).length === 3, 'three pods')
    const byIndex = new Map((await podsOf('idx')).map((p) => [p.metadata.annotations!['batch.kubernetes.io/job-completion-index'], p]))
    assert.deepEqual([...byIndex.keys()].sort(), ['0', '1', '2'])
    const one = byIndex.get('1')!
    assert.equal(one.metadata.labels!['batch.kubernetes.io/job-completion-index'], '1')
    assert.equal((one.spec as Obj).hostname, 'idx-1')
    assert.ok(one.metadata.name!.startsWith('idx-1-'))
    await finishPod(t.registry, byIndex.get('0')!, 0)
    await finishPod(t.registry, byIndex.get('2')!, 0)
    await eventually(async () => (await status('idx')).completedIndexes === '0,2', 'completedIndexes 0,2')
    await finishPod(t.registry, one, 0)
    await eventually(async () => (await condition('idx', 'Complete'))?.status === 'True', 'complete')
    assert.equal((await status('idx')).completedIndexes, '0-2')
    assert.equal((await status('idx')).succeeded, 3)
  })

  it('fails an index past backoffLimitPerIndex, keeps the others running, and ends with FailedIndexes', async () => {
    await createJob('perindex', { completions: 2, parallelism: 2, completionMode: 'Indexed', backoffLimitPerIndex: 0 })
    await eventually(async () => (await podsOf('perindex')).length === 2, 'two pods')
    const byIndex = new Map((await podsOf('perindex')).map((p) => [p.metadata.annotations!['batch.kubernetes.io/job-completion-index'], p]))
    assert.equal(byIndex.get('1')!.metadata.annotations!['batch.kubernetes.io/job-index-failure-count'], '0')
    await finishPod(t.registry, byIndex.get('1')!, 1)
    await eventually(async () => (await status('perindex')).failedIndexes === '1', 'failedIndexes 1')
    assert.equal((await podsOf('perindex')).length, 2, 'no replacement for a failed index')
    assert.equal(await condition('perindex', 'Failed'), undefined, 'still running its other index')
    await finishPod(t.registry, byIndex.get('0')!, 0)
    await eventually(async () => (await condition('perindex', 'Failed'))?.status === 'True', 'the Failed condition')
    assert.equal((await condition('perindex', 'Failed'))!.reason, 'FailedIndexes')
    assert.equal((await condition('perindex', 'Failed'))!.message, 'Job has failed indexes')
    assert.equal((await status('perindex')).completedIndexes, '0')
  })

  it('ends an Indexed Job early by its successPolicy', async () => {
    await createJob('leader', { completions: 3, parallelism: 3, completionMode: 'Indexed', successPolicy: { rules: [{ succeededIndexes: '0' }] } })
    await eventually(async () => (await podsOf('leader')).length === 3, 'three pods')
    const zero = (await podsOf('leader')).find((p) => p.metadata.annotations!['batch.kubernetes.io/job-completion-index'] === '0')!
    await finishPod(t.registry, zero, 0)
    await eventually(async () => (await condition('leader', 'Complete'))?.status === 'True', 'complete by the success policy')
    assert.equal((await condition('leader', 'SuccessCriteriaMet'))?.reason, 'SuccessPolicy')
    assert.equal((await condition('leader', 'Complete'))?.message, 'Matched rules at index 0')
  })

  it('fails a Job past activeDeadlineSeconds and deletes its pods', async () => {
    await createJob('slow', { activeDeadlineSeconds: 30 })
    await eventually(async () => (await activePods('slow')).length === 1, 'the pod')
    await runPod(t.registry, (await activePods('slow'))[0]!)
    await eventually(async () => (await status('slow')).ready === 1, 'ready 1')
    clock.advance(31_000)
    await eventually(async () => (await condition('slow', 'Failed'))?.status === 'True', 'the Failed condition', 8000)
    assert.equal((await condition('slow', 'Failed'))!.reason, 'DeadlineExceeded')
    assert.equal((await condition('slow', 'Failed'))!.message, 'Job was active longer than specified deadline')
    assert.equal((await activePods('slow')).length, 0)
  })

  it('suspends: no pods, the Suspended condition, and resumes', async () => {
    await createJob('later', { suspend: true })
    await eventually(async () => (await condition('later', 'Suspended'))?.status === 'True', 'the Suspended condition')
    const suspended = (await condition('later', 'Suspended'))!
    assert.equal(suspended.reason, 'JobSuspended')
    assert.equal(suspended.message, 'Job suspended')
    assert.equal((await podsOf('later')).length, 0)
    assert.equal((await status('later')).startTime, undefined)
    await jobs().update('default', 'later', (j) => ({ ...j, spec: { ...(j.spec as Obj), suspend: false } }))
    await eventually(async () => (await podsOf('later')).length === 1, 'a pod once resumed')
    await eventually(async () => (await condition('later', 'Suspended'))?.status === 'False', 'Suspended False')
    assert.equal((await condition('later', 'Suspended'))!.reason, 'JobResumed')
  })
})

describe('controllers: job-controller with the garbage collector', function () {
  this.timeout(20_000)
  let t: TestRegistry
  let manager: ControllerManager

  beforeEach(async () => {
    t = await openTestRegistry('job-controller-gc-', ['default'], { garbageCollector: true })
    manager = new ControllerManager([new JobController({ recheckMs: 20 })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  })
  afterEach(async () => {
    await manager.stop()
    await t.close()
  })

  it('releases the pods of a deleted Job so that they go with it', async () => {
    const jobs = t.registry.lookup('batch', 'v1', 'jobs')!
    const pods = t.registry.lookup('', 'v1', 'pods')!
    await jobs.create({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'bye', namespace: 'default' }, spec: { parallelism: 2, completions: 2, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } })
    await eventually(async () => (await pods.list({ namespace: 'default' })).items.length === 2, 'two pods')
    await jobs.delete('default', 'bye', { propagationPolicy: 'Background' })
    await eventually(async () => (await pods.list({ namespace: 'default' })).items.length === 0, 'the pods gone with the Job', 10_000)
  })
})
