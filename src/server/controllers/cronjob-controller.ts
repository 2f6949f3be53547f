/**
 * The CronJob controller (the reference's pkg/controller/cronjob, kube-controller-manager's
 * `cronjob-controller`, its v2 syncCronJob): the Jobs a CronJob controls are reconciled with
 * status.active (finished ones leave it with SawCompletedJob, vanished ones with MissingJob,
 * lastSuccessfulTime follows the newest completion); then, unless suspended, the most recent
 * unmet schedule time up to now (mostRecentScheduleTime, with startingDeadlineSeconds and the
 * TooManyMissedTimes warning past 100 missed starts) gets its Job `<cronjob>-<minutes since the
 * epoch>` with the batch.kubernetes.io/cronjob-scheduled-timestamp annotation, as the
 * concurrencyPolicy allows (Forbid skips while one runs, Replace deletes the running ones), and
 * the finished Jobs beyond the history limits are deleted, oldest first.
 *
 * Time is the controllers' clock: each CronJob is looked at again at its next schedule time
 * (plus the reference's 100 ms), found by looking at the clock on a short interval, so a fake
 * clock moved by a test or `--clock` starts the Jobs due.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import { type KubeObject, nowTimestamp } from '../api/registry/object.js'
import { loadLocationError } from '../api/validation/cron.js'
import { toApiError } from '../api/status-errors.js'
import { type Clock, SYSTEM_CLOCK, fromSystemTime } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { type Schedule, parseSchedule, rfc1123z, rfc3339In } from './cronjob/cron-schedule.js'
import { EventRecorder } from './event-recorder.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { KeyedQueue, keyOf, splitKey } from './kit/keyed-queue.js'
import { controllerOf, controllerRef } from './kit/owners.js'

const COMPONENT = 'cronjob-controller'
const ADMISSION = asControllerServiceAccount('cronjob-controller')
export const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp'
/** nextScheduleDelta: the padding past the schedule time against clock skew. */
const NEXT_SCHEDULE_DELTA_MS = 100

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})

interface JobRef {
  kind: string
  namespace: string
  name: string
  uid: string
  apiVersion: string
  resourceVersion?: string
}

export interface CronJobControllerOptions {
  readonly clock?: Clock
  readonly recheckMs?: number
  readonly onError?: (err: Error) => void
}

/** IsJobFinished and its condition (FinishedCondition). */
function finishedCondition(job: KubeObject): 'Complete' | 'Failed' | undefined {
  const conditions = (obj(job.status).conditions ?? []) as Array<{ type: string; status: string }>
  return conditions.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type as 'Complete' | 'Failed' | undefined
}

const timeOf = (text: unknown): number | undefined => (typeof text === 'string' ? Date.parse(text) : undefined)

export class CronJobController implements Controller {
  readonly name = 'cronjob-controller'
  private queue: KeyedQueue | undefined
  private unsubscribe: (() => void) | undefined
  private cronJobs!: GenericStore
  private jobs!: GenericStore
  private recorder!: EventRecorder
  private readonly clock: Clock

  constructor(private readonly options: CronJobControllerOptions = {}) {
    this.clock = options.clock ?? SYSTEM_CLOCK
  }

  async start(ctx: ControllerContext): Promise<void> {
    const cronJobs = ctx.registry.lookup('batch', 'v1', 'cronjobs')
    const jobs = ctx.registry.lookup('batch', 'v1', 'jobs')
    if (!cronJobs || !jobs) return
    this.cronJobs = cronJobs
    this.jobs = jobs
    const onError = (err: unknown) => (this.options.onError ?? ((e: Error) => ctx.log(2, `cronjob controller: ${e.message}`)))(err as Error)
    this.recorder = new EventRecorder(ctx.registry, COMPONENT, { clock: this.clock, onError })
    this.queue = new KeyedQueue((key) => this.sync(key), { clock: this.clock, recheckMs: this.options.recheckMs ?? 1000, onError })
    this.unsubscribe = ctx.registry.onChange(({ object, strategy }) => {
      if (strategy.group !== 'batch') return
      if (strategy.resource === 'cronjobs') this.queue?.add(keyOf(object.metadata.namespace, object.metadata.name))
      else if (strategy.resource === 'jobs') {
        const owner = controllerOf(object)
        if (owner?.kind === 'CronJob') this.queue?.add(keyOf(object.metadata.namespace, owner.name))
      }
    })
    this.queue.start()
    for (const cj of (await cronJobs.list()).items) this.queue.add(keyOf(cj.metadata.namespace, cj.metadata.name))
  }

  stop(): void {
    this.unsubscribe?.()
    this.queue?.stop()
  }

  private async sync(key: string): Promise<void> {
    const [namespace, name] = splitKey(key)
    let cronJob: KubeObject
    try {
      cronJob = await this.cronJobs.get(namespace, name)
    } catch (err) {
      if (toApiError(err).status.code === 404) return
      throw err
    }
    const children = (await this.jobs.list({ namespace })).items.filter((j) => controllerOf(j)?.uid === cronJob.metadata.uid)
    const status = structuredClone(obj(cronJob.status))
    const before = JSON.stringify(status)
    const requeueIn = await this.syncCronJob(cronJob, status, children)
    await this.cleanupFinishedJobs(cronJob, status, children)
    if (JSON.stringify(status) !== before) {
      if (Array.isArray(status.active) && status.active.length === 0) delete status.active
      // The status alone, over whatever spec write came meanwhile: a Job just created must not
      // be left out of status.active by a conflict.
      await this.cronJobs.update(namespace, name, (current) => (current.metadata.uid === cronJob.metadata.uid ? { ...current, status } : current), {
        subresource: 'status',
        retryOnConflict: true,
        admission: ADMISSION,
      })
    }
    if (requeueIn !== undefined) this.queue?.addAfter(key, requeueIn)
  }

  private event(cronJob: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    return this.recorder.record(cronJob, type, reason, message)
  }

  /** syncCronJob: status brought up to date and the due Job created; answers when to look again (ms). */
  private async syncCronJob(cronJob: KubeObject, status: Obj, children: KubeObject[]): Promise<number | undefined> {
    const spec = obj(cronJob.spec)
    let active = (Array.isArray(status.active) ? status.active : []) as JobRef[]
    const inActive = (uid: string | undefined) => active.some((r) => r.uid === uid)
    for (const job of children) {
      const finished = finishedCondition(job)
      if (!inActive(job.metadata.uid) && !finished) {
        await this.event(cronJob, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata.name}`)
      } else if (inActive(job.metadata.uid) && finished) {
        active = active.filter((r) => r.uid !== job.metadata.uid)
        await this.event(cronJob, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name}, condition: ${finished}`)
      }
      if (finished === 'Complete') {
        // A Job need not be active to count: its completion time moves lastSuccessfulTime on.
        const completed = obj(job.status).completionTime
        const last = timeOf(status.lastSuccessfulTime)
        if (typeof completed === 'string' && (last === undefined || Date.parse(completed) > last)) status.lastSuccessfulTime = completed
      }
    }
    for (const ref of [...active]) {
      if (children.some((j) => j.metadata.uid === ref.uid)) continue
      await this.event(cronJob, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`)
      active = active.filter((r) => r.uid !== ref.uid)
    }
    status.active = active
    if (cronJob.metadata.deletionTimestamp) return undefined

    const timeZone = typeof spec.timeZone === 'string' ? spec.timeZone : undefined
    if (timeZone !== undefined) {
      const err = loadLocationError(timeZone)
      if (err) {
        await this.event(cronJob, 'Warning', 'UnknownTimeZone', `invalid timeZone: ${JSON.stringify(timeZone)}: ${err}`)
        return undefined
      }
    }
    if (spec.suspend === true) return undefined
    let schedule: Schedule
    try {
      schedule = parseSchedule(String(spec.schedule ?? ''), timeZone ?? 'UTC')
    } catch (err) {
      await this.event(cronJob, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${JSON.stringify(spec.schedule)} : ${(err as Error).message}`)
      return undefined
    }
    const now = this.clock.now()
    const { scheduled, many } = mostRecentScheduleTime(cronJob, status, now, schedule, true, this.clock)
    if (scheduled !== undefined && many) {
      await this.event(cronJob, 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew')
    }
    const requeue = () => nextScheduleDelay(cronJob, status, now, schedule, this.clock)
    if (scheduled === undefined) return requeue()
    const deadline = typeof spec.startingDeadlineSeconds === 'number' ? spec.startingDeadlineSeconds : undefined
    if (deadline !== undefined && scheduled + deadline * 1000 < now) {
      await this.event(cronJob, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`)
      return requeue()
    }
    const jobName = `${cronJob.metadata.name}-${Math.floor(scheduled / 60_000)}`
    if (active.some((r) => r.name === jobName) || timeOf(status.lastScheduleTime) === scheduled) return requeue()
    if (spec.concurrencyPolicy === 'Forbid' && active.length > 0) {
      await this.event(cronJob, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid')
      return requeue()
    }
    if (spec.concurrencyPolicy === 'Replace') {
      for (const ref of [...active]) {
        const job = children.find((j) => j.metadata.uid === ref.uid)
        if (!job) continue
        if (!(await this.deleteJob(cronJob, job))) return undefined
        active = active.filter((r) => r.uid !== ref.uid)
        status.active = active
      }
    }
    const template = obj(spec.jobTemplate)
    const templateMeta = obj(template.metadata)
    const annotations = { ...(obj(templateMeta.annotations) as Record<string, string>), [SCHEDULED_TIMESTAMP_ANNOTATION]: rfc3339In(scheduled, timeZone ?? 'UTC') }
    let created: KubeObject
    try {
      created = await this.jobs.create(
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: {
            name: jobName,
            namespace: cronJob.metadata.namespace,
            labels: { ...(obj(templateMeta.labels) as Record<string, string>) },
            annotations,
            ownerReferences: [controllerRef(cronJob, 'batch/v1', 'CronJob')],
          },
          spec: structuredClone(obj(template.spec)),
        },
        { admission: ADMISSION },
      )
    } catch (err) {
      const apiErr = toApiError(err)
      if (apiErr.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return undefined
      // Created by another actor (or an earlier sync): it has brought the status along.
      if (apiErr.status.code === 409) return requeue()
      await this.event(cronJob, 'Warning', 'FailedCreate', `Error creating job: ${apiErr.status.message}`)
      throw err
    }
    await this.event(cronJob, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata.name}`)
    active.push({ kind: 'Job', namespace: created.metadata.namespace!, name: created.metadata.name!, uid: created.metadata.uid!, apiVersion: 'batch/v1', resourceVersion: created.metadata.resourceVersion! })
    status.active = active
    status.lastScheduleTime = nowTimestamp(new Date(scheduled))
    return nextScheduleDelay(cronJob, status, now, schedule, this.clock)
  }

  /** deleteJob: background propagation, out of the active list, SuccessfulDelete. */
  private async deleteJob(cronJob: KubeObject, job: KubeObject): Promise<boolean> {
    try {
      await this.jobs.delete(job.metadata.namespace, job.metadata.name!, { propagationPolicy: 'Background', admission: ADMISSION })
    } catch (err) {
      if (toApiError(err).status.code !== 404) {
        await this.event(cronJob, 'Warning', 'FailedDelete', `Deleted job: ${toApiError(err).status.message}`)
        return false
      }
    }
    await this.event(cronJob, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`)
    return true
  }

  /** cleanupFinishedJobs: the finished Jobs beyond each history limit, oldest start first. */
  private async cleanupFinishedJobs(cronJob: KubeObject, status: Obj, children: KubeObject[]): Promise<void> {
    const spec = obj(cronJob.spec)
    const limits = { Complete: spec.successfulJobsHistoryLimit, Failed: spec.failedJobsHistoryLimit } as const
    for (const type of ['Complete', 'Failed'] as const) {
      const limit = limits[type]
      if (typeof limit !== 'number') continue
      const finished = children.filter((j) => finishedCondition(j) === type && !j.metadata.deletionTimestamp).sort(byJobStartTime)
      for (const job of finished.slice(0, Math.max(0, finished.length - limit))) {
        if (await this.deleteJob(cronJob, job)) status.active = ((status.active ?? []) as JobRef[]).filter((r) => r.uid !== job.metadata.uid)
      }
    }
  }
}

/** byJobStartTime: started ones first, by start time, then by name. */
function byJobStartTime(a: KubeObject, b: KubeObject): number {
  const sa = timeOf(obj(a.status).startTime)
  const sb = timeOf(obj(b.status).startTime)
  if (sa === undefined && sb !== undefined) return 1
  if (sa !== undefined && sb === undefined) return -1
  if (sa === sb) return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1
  return sa! - sb!
}

/**
 * mostRecentScheduleTime: from the last schedule time (or the CronJob's creation), moved up to
 * now minus startingDeadlineSeconds when asked, the latest schedule time not after now, and
 * whether more than 100 were missed.
 */
function mostRecentScheduleTime(cronJob: KubeObject, status: Obj, now: number, schedule: Schedule, withDeadline: boolean, clock: Clock): { earliest: number; scheduled?: number; missed: boolean; many: boolean } {
  // The creation time is the API server's (the system clock); the schedule is on the cluster's.
  const created = timeOf(cronJob.metadata.creationTimestamp)
  let earliest = timeOf(status.lastScheduleTime) ?? (created !== undefined ? fromSystemTime(clock, created) : undefined) ?? now
  const deadline = obj(cronJob.spec).startingDeadlineSeconds
  if (withDeadline && typeof deadline === 'number') earliest = Math.max(earliest, now - deadline * 1000)
  const t1 = schedule.next(earliest)
  if (t1 === undefined || now < t1) return { earliest, missed: false, many: false }
  const t2 = schedule.next(t1)
  if (t2 === undefined || now < t2) return { earliest, scheduled: t1, missed: false, many: false }
  const between = Math.round((t2 - t1) / 1000)
  if (between < 1) return { earliest, missed: false, many: false }
  const missed = Math.floor(Math.floor((now - t1) / 1000) / between) + 1
  let scheduled: number | undefined
  for (let t = schedule.next(t1 + (missed - 2) * between * 1000); t !== undefined && t <= now; t = schedule.next(t)) scheduled = t
  return { earliest, ...(scheduled !== undefined ? { scheduled } : {}), missed: missed > 0, many: missed > 100 }
}

/** nextScheduleTimeDuration: how long until the next schedule time, plus the padding. */
function nextScheduleDelay(cronJob: KubeObject, status: Obj, now: number, schedule: Schedule, clock: Clock): number | undefined {
  const { earliest, scheduled, missed } = mostRecentScheduleTime(cronJob, status, now, schedule, false, clock)
  const from = scheduled ?? (missed ? now : earliest)
  const next = schedule.next(from)
  return next === undefined ? undefined : next + NEXT_SCHEDULE_DELTA_MS - now
}
