/**
 * The Job controller (the reference's pkg/controller/job, kube-controller-manager's
 * `job-controller`): pods from the template up to the parallelism and the completions
 * (NonIndexed, or Indexed with one pod per pending index), each with the job tracking
 * finalizer; a finished pod is first recorded in status.uncountedTerminatedPods, then its
 * finalizer removed, then counted in succeeded/failed (and completedIndexes), as the
 * reference's trackJobStatusAndRemoveFinalizers does, so that no pod is counted twice or lost.
 *
 * The Job fails when failures pass backoffLimit (or restarts of OnFailure pods reach it), a
 * podFailurePolicy FailJob rule matches, activeDeadlineSeconds passes, or failed indexes
 * (backoffLimitPerIndex) end it; it succeeds with its completions or a successPolicy rule. As
 * the reference since 1.31, the interim FailureTarget / SuccessCriteriaMet condition comes
 * first, the remaining pods are deleted, and Failed / Complete follows once none is
 * terminating. New pods after failures wait the reference's exponential back-off (10 s doubling,
 * at most 10 min: DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff). Suspending deletes
 * the active pods (not counted as failures) and sets the Suspended condition.
 */
import { labelSelectorRequirements } from '../http/selectors.js'
import type { GenericStore } from '../api/registry/generic-store.js'
import { type KubeObject, nowTimestamp } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { EventRecorder } from './event-recorder.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { KeyedQueue, keyOf, splitKey } from './kit/keyed-queue.js'
import { controllerOf } from './kit/owners.js'
import { containerStatuses, initContainerStatuses, isDeleting, isPodActive, isPodReady, isTerminal, podPhase } from './kit/pod-state.js'
import { type JobCondition, MESSAGE, REASON, ensureCondition, findCondition, hasTrueCondition, isFinished, newCondition } from './job/job-conditions.js'
import { INDEX_FAILURE_COUNT_ANNOTATION, JOB_TRACKING_FINALIZER, completionIndexOf, hasTrackingFinalizer, podForJob } from './job/job-pod.js'
import { formatIndexes, parseIndexes, toSet } from './job/indexes.js'
import { matchPodFailurePolicy } from './job/pod-failure-policy.js'
import { matchSuccessPolicy } from './job/success-policy.js'

const COMPONENT = 'job-controller'
const ADMISSION = asControllerServiceAccount('job-controller')

export interface JobControllerOptions {
  readonly clock?: Clock
  /** DefaultJobPodFailureBackOff (10 s). */
  readonly backoffBaseMs?: number
  /** MaxJobPodFailureBackOff (10 min). */
  readonly backoffMaxMs?: number
  /** How often the clock is looked at for back-offs and deadlines (real ms). */
  readonly recheckMs?: number
  readonly onError?: (err: Error) => void
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})
const int = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined)

interface Uncounted {
  succeeded: string[]
  failed: string[]
}

/** The finished pods of one sync (see JobSync.finishedPods). */
interface FinishedPods {
  newSucceeded: KubeObject[]
  newFailed: KubeObject[]
  release: KubeObject[]
  failJobMessage?: string
  failedIndexes: Set<number>
}

interface Counts {
  failed: number
  succeeded: number
  succeededIndexes: Set<number>
}

/** The failures since the last success, and when the last one was seen (the reference's backoffRecord). */
interface BackoffRecord {
  failures: number
  lastFailureAt: number
}

export class JobController implements Controller {
  readonly name = 'job-controller'
  private queue: KeyedQueue | undefined
  private unsubscribe: (() => void) | undefined
  private jobs!: GenericStore
  private pods!: GenericStore
  private recorder!: EventRecorder
  private readonly clock: Clock
  private readonly backoff = new Map<string, BackoffRecord>()

  constructor(private readonly options: JobControllerOptions = {}) {
    this.clock = options.clock ?? SYSTEM_CLOCK
  }

  async start(ctx: ControllerContext): Promise<void> {
    const jobs = ctx.registry.lookup('batch', 'v1', 'jobs')
    const pods = ctx.registry.lookup('', 'v1', 'pods')
    if (!jobs || !pods) return
    this.jobs = jobs
    this.pods = pods
    const onError = (err: unknown) => (this.options.onError ?? ((e: Error) => ctx.log(2, `job controller: ${e.message}`)))(err as Error)
    this.recorder = new EventRecorder(ctx.registry, COMPONENT, { clock: this.clock, onError })
    this.queue = new KeyedQueue((key) => this.sync(key), { clock: this.clock, recheckMs: this.options.recheckMs ?? 1000, onError })
    this.unsubscribe = ctx.registry.onChange(({ object, strategy }) => {
      if (strategy.group === 'batch' && strategy.resource === 'jobs') this.queue?.add(keyOf(object.metadata.namespace, object.metadata.name))
      else if (strategy.group === '' && strategy.resource === 'pods') {
        const owner = controllerOf(object)
        if (owner?.kind === 'Job' && owner.apiVersion.startsWith('batch/')) this.queue?.add(keyOf(object.metadata.namespace, owner.name))
      }
    })
    this.queue.start()
    for (const job of (await jobs.list()).items) this.queue.add(keyOf(job.metadata.namespace, job.metadata.name))
  }

  stop(): void {
    this.unsubscribe?.()
    this.queue?.stop()
  }

  private now(): string {
    return nowTimestamp(new Date(this.clock.now()))
  }

  private async sync(key: string): Promise<void> {
    const [namespace, name] = splitKey(key)
    let job: KubeObject
    try {
      job = await this.jobs.get(namespace, name)
    } catch (err) {
      if (toApiError(err).status.code === 404) {
        this.backoff.delete(key)
        // Its pods, orphaned, keep no tracking finalizer (the reference's orphan pod handling).
        const orphans = (await this.pods.list({ namespace, labels: [{ key: 'batch.kubernetes.io/job-name', operator: '=', values: [name] }] })).items
        await this.removeFinalizers(orphans.filter((p) => hasTrackingFinalizer(p) && controllerOf(p)?.kind === 'Job' && controllerOf(p)?.name === name))
        return
      }
      throw err
    }
    const spec = obj(job.spec)
    const status = obj(job.status)
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as JobCondition[]
    const selector = labelSelectorRequirements(obj(spec.selector) as Parameters<typeof labelSelectorRequirements>[0])
    const pods = (await this.pods.list({ namespace, labels: selector })).items.filter((p) => controllerOf(p)?.uid === job.metadata.uid)
    if (isFinished(conditions)) {
      // A finished Job keeps no hold on its pods.
      await this.removeFinalizers(pods.filter(hasTrackingFinalizer))
      return
    }
    if (job.metadata.deletionTimestamp) {
      await this.removeFinalizers(pods.filter(hasTrackingFinalizer))
      return
    }
    await new JobSync(this, key, job, pods, structuredClone(conditions)).run()
  }

  // ---- what a JobSync uses of the controller

  backoffOf(key: string): BackoffRecord {
    let record = this.backoff.get(key)
    if (!record) this.backoff.set(key, (record = { failures: 0, lastFailureAt: 0 }))
    return record
  }

  /** getRemainingTime of the back-off: how long new pods still wait. */
  remainingBackoff(record: BackoffRecord): number {
    if (record.failures === 0) return 0
    const base = this.options.backoffBaseMs ?? 10_000
    const max = this.options.backoffMaxMs ?? 10 * 60_000
    const delay = Math.min(max, base * 2 ** Math.min(record.failures - 1, 30))
    return record.lastFailureAt + delay - this.clock.now()
  }

  nowMs(): number {
    return this.clock.now()
  }

  timestamp(): string {
    return this.now()
  }

  requeueAfter(key: string, ms: number): void {
    this.queue?.addAfter(key, ms)
  }

  event(job: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    return this.recorder.record(job, type, reason, message)
  }

  async createPod(job: KubeObject, index: number | undefined, indexFailures: number): Promise<void> {
    try {
      const pod = await this.pods.create(podForJob(job, index, indexFailures), { admission: ADMISSION })
      await this.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`)
    } catch (err) {
      const apiErr = toApiError(err)
      // The namespace going away: nothing to create pods in (as the reference ignores NamespaceTerminating).
      if (apiErr.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return
      await this.event(job, 'Warning', 'FailedCreate', `Error creating: ${apiErr.status.message}`)
      throw err
    }
  }

  async deletePod(job: KubeObject, pod: KubeObject): Promise<void> {
    try {
      await this.pods.delete(pod.metadata.namespace, pod.metadata.name!, { admission: ADMISSION, preconditions: { uid: pod.metadata.uid! } })
      await this.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`)
    } catch (err) {
      const code = toApiError(err).status.code
      if (code === 404 || code === 409) return
      await this.event(job, 'Warning', 'FailedDelete', `Error deleting: ${toApiError(err).status.message}`)
      throw err
    }
  }

  async removeFinalizers(pods: readonly KubeObject[]): Promise<void> {
    for (const pod of pods) {
      try {
        await this.pods.update(
          pod.metadata.namespace,
          pod.metadata.name!,
          (current) => {
            if (current.metadata.uid !== pod.metadata.uid) return current
            const finalizers = ((current.metadata.finalizers as string[] | undefined) ?? []).filter((f) => f !== JOB_TRACKING_FINALIZER)
            return { ...current, metadata: { ...current.metadata, finalizers } }
          },
          { retryOnConflict: true, admission: ADMISSION },
        )
      } catch (err) {
        if (toApiError(err).status.code !== 404) throw err
      }
    }
  }

  async writeStatus(job: KubeObject, status: Obj): Promise<KubeObject> {
    return this.jobs.update(job.metadata.namespace, job.metadata.name!, (current) => ({ ...current, metadata: { ...current.metadata, resourceVersion: job.metadata.resourceVersion }, status }), {
      subresource: 'status',
      admission: ADMISSION,
    })
  }
}

/** One sync of one Job (the reference's syncJob), over the pods it controls. */
class JobSync {
  private readonly spec: Obj
  private readonly status: Obj
  private readonly indexed: boolean
  private readonly completions: number | undefined
  private readonly parallelism: number
  private readonly suspended: boolean

  constructor(
    private readonly c: JobController,
    private readonly key: string,
    private job: KubeObject,
    private readonly pods: KubeObject[],
    private readonly conditions: JobCondition[],
  ) {
    this.spec = obj(job.spec)
    this.status = structuredClone(obj(job.status))
    this.indexed = this.spec.completionMode === 'Indexed'
    this.completions = int(this.spec.completions)
    this.parallelism = int(this.spec.parallelism) ?? 1
    this.suspended = this.spec.suspend === true
  }

  /** isPodFailed: Failed, or (without a failure policy) being deleted before it succeeded. */
  private isPodFailed(pod: KubeObject): boolean {
    if (podPhase(pod) === 'Failed') return true
    if (this.spec.podFailurePolicy || this.spec.podReplacementPolicy === 'Failed') return false
    // Pods deleted because the Job was suspended are not failures.
    return isDeleting(pod) && podPhase(pod) !== 'Succeeded' && !this.suspended
  }

  async run(): Promise<void> {
    const now = this.c.timestamp()
    const uncounted: Uncounted = { succeeded: [], failed: [], ...(obj(this.status.uncountedTerminatedPods) as Partial<Uncounted>) }
    const seen = this.finishedPods(uncounted)
    const counts = this.counts(uncounted, seen)
    this.noteBackoff(seen)
    let active = this.pods.filter(isPodActive)
    if (this.status.startTime === undefined && !this.suspended) this.status.startTime = now

    let { finished, interim } = this.finishing(now, active, seen, counts)
    let deleted = 0
    if (interim || finished) {
      // The Job is finishing: its remaining pods go (counted as failures unless it succeeded).
      for (const pod of active) await this.c.deletePod(this.job, pod)
      deleted = active.length
      active = []
    } else {
      active = await this.manage(active, counts.succeededIndexes, seen.failedIndexes, counts.succeeded)
      const complete = this.completions === undefined ? counts.succeeded > 0 && active.length === 0 : counts.succeeded >= this.completions && active.length === 0
      if (complete) interim = newCondition('SuccessCriteriaMet', 'True', REASON.completionsReached, MESSAGE.completionsReached, now)
      else await this.suspendCondition(now)
    }
    // The final condition of an interim one (newFailedConditionForFailureTarget, and Complete after SuccessCriteriaMet).
    if (interim) finished = newCondition(interim.type === 'FailureTarget' ? 'Failed' : 'Complete', 'True', interim.reason, interim.message, now)
    this.releaseUnfinished(uncounted, seen, finished)

    this.status.active = active.length
    this.status.ready = active.filter(isPodReady).length
    // The pods deleted by this sync are terminating too (the reference adds them).
    this.status.terminating = this.pods.filter((p) => isDeleting(p) && !isTerminal(p)).length + deleted
    if (interim && !findCondition(this.conditions, interim.type)) this.conditions.push(interim)
    if (this.conditions.length > 0) this.status.conditions = this.conditions
    await this.flush(now, uncounted, seen, counts, interim, finished)
  }

  /**
   * The finished pods still holding the finalizer: the ones to count (the failures a pod failure
   * policy does not ignore), the ones to release, a FailJob rule's message, the failed indexes.
   */
  private finishedPods(uncounted: Uncounted): FinishedPods {
    const completions = this.completions ?? 0
    const backoffLimitPerIndex = int(this.spec.backoffLimitPerIndex)
    const seen: FinishedPods = { newSucceeded: [], newFailed: [], release: [], failedIndexes: toSet(parseIndexes(this.status.failedIndexes as string | undefined, completions)) }
    for (const pod of this.pods) {
      if (!hasTrackingFinalizer(pod)) continue
      const uid = pod.metadata.uid!
      const index = completionIndexOf(pod)
      const validIndex = !this.indexed || (index !== undefined && index < completions)
      if (podPhase(pod) === 'Succeeded') {
        seen.release.push(pod)
        if (!uncounted.succeeded.includes(uid) && validIndex) seen.newSucceeded.push(pod)
      } else if (this.isPodFailed(pod)) {
        seen.release.push(pod)
        if (uncounted.failed.includes(uid) || !validIndex) continue
        const match = matchPodFailurePolicy(this.spec.podFailurePolicy as Parameters<typeof matchPodFailurePolicy>[0], pod)
        seen.failJobMessage ??= match.failJobMessage
        if (!match.countFailed) continue
        seen.newFailed.push(pod)
        if (backoffLimitPerIndex !== undefined && index !== undefined) {
          const failures = Number(pod.metadata.annotations?.[INDEX_FAILURE_COUNT_ANNOTATION] ?? '0') + 1
          if (match.action === 'FailIndex' || failures > backoffLimitPerIndex) seen.failedIndexes.add(index)
        }
      }
    }
    return seen
  }

  /** The counts as they will be once everything uncounted is counted. */
  private counts(uncounted: Uncounted, seen: FinishedPods): Counts {
    const completions = this.completions ?? 0
    const failed = (int(this.status.failed) ?? 0) + uncounted.failed.length + seen.newFailed.length
    const succeededIndexes = toSet(parseIndexes(this.status.completedIndexes as string | undefined, completions))
    if (this.indexed) {
      for (const pod of this.pods) {
        const index = completionIndexOf(pod)
        if (podPhase(pod) === 'Succeeded' && index !== undefined && index < completions && (hasTrackingFinalizer(pod) || uncounted.succeeded.includes(pod.metadata.uid!))) succeededIndexes.add(index)
      }
    }
    const succeeded = this.indexed ? succeededIndexes.size : (int(this.status.succeeded) ?? 0) + uncounted.succeeded.length + seen.newSucceeded.length
    return { failed, succeeded, succeededIndexes }
  }

  /** The back-off record: a success resets it, failures lengthen it from now. */
  private noteBackoff(seen: FinishedPods): void {
    const record = this.c.backoffOf(this.key)
    if (seen.newSucceeded.length > 0) record.failures = 0
    if (seen.newFailed.length > 0) {
      record.failures += seen.newFailed.length
      record.lastFailureAt = this.c.nowMs()
    }
  }

  /**
   * The condition the Job is finishing with: the final one of an interim condition already
   * written, or a new interim one (FailureTarget, or SuccessCriteriaMet by a success policy),
   * in the reference's order of checks.
   */
  private finishing(now: string, active: KubeObject[], seen: FinishedPods, counts: Counts): { finished?: JobCondition; interim?: JobCondition } {
    const failureTarget = findCondition(this.conditions, 'FailureTarget')
    if (failureTarget?.status === 'True') return { finished: newCondition('Failed', 'True', failureTarget.reason, failureTarget.message, now) }
    const criteriaMet = findCondition(this.conditions, 'SuccessCriteriaMet')
    if (criteriaMet?.status === 'True') return { finished: newCondition('Complete', 'True', criteriaMet.reason, criteriaMet.message, now) }
    const fail = (reason: string, message: string) => ({ interim: newCondition('FailureTarget', 'True', reason, message, now) })
    const backoffLimit = int(this.spec.backoffLimit) ?? 6
    if (seen.failJobMessage) return fail(REASON.podFailurePolicy, seen.failJobMessage)
    if (counts.failed > backoffLimit || this.pastBackoffLimitOnFailure(active, backoffLimit)) return fail(REASON.backoffLimitExceeded, MESSAGE.backoffLimitExceeded)
    if (this.pastActiveDeadline()) return fail(REASON.deadlineExceeded, MESSAGE.deadlineExceeded)
    if (typeof this.spec.activeDeadlineSeconds === 'number' && !this.suspended && this.status.startTime) {
      this.c.requeueAfter(this.key, Date.parse(String(this.status.startTime)) + this.spec.activeDeadlineSeconds * 1000 - this.c.nowMs())
    }
    if (!this.indexed) return {}
    const completions = this.completions ?? 0
    if (int(this.spec.backoffLimitPerIndex) !== undefined) {
      const maxFailedIndexes = int(this.spec.maxFailedIndexes)
      if (maxFailedIndexes !== undefined && seen.failedIndexes.size > maxFailedIndexes) return fail(REASON.maxFailedIndexesExceeded, MESSAGE.maxFailedIndexesExceeded)
      if (seen.failedIndexes.size > 0 && seen.failedIndexes.size + counts.succeededIndexes.size >= completions) return fail(REASON.failedIndexes, MESSAGE.failedIndexes)
    }
    const message = matchSuccessPolicy(this.spec.successPolicy as Parameters<typeof matchSuccessPolicy>[0], completions, counts.succeededIndexes)
    return message ? { interim: newCondition('SuccessCriteriaMet', 'True', REASON.successPolicy, message, now) } : {}
  }

  /**
   * The pods released beyond the finished ones: when the Job fails, every pod still holding
   * the finalizer (counted as failed); when it succeeds or is suspended, the ones being deleted.
   */
  private releaseUnfinished(uncounted: Uncounted, seen: FinishedPods, finished: JobCondition | undefined): void {
    for (const pod of this.pods) {
      if (!hasTrackingFinalizer(pod) || seen.release.includes(pod)) continue
      if (finished?.type === 'Failed' && !isTerminal(pod)) {
        seen.release.push(pod)
        if (!uncounted.failed.includes(pod.metadata.uid!)) seen.newFailed.push(pod)
      } else if ((finished || this.suspended) && isDeleting(pod)) seen.release.push(pod)
    }
  }

  /**
   * trackJobStatusAndRemoveFinalizers: the newly finished pods recorded as uncounted (with the
   * interim condition), their finalizers removed, then counted; the final condition once no pod
   * is terminating, with its event.
   */
  private async flush(now: string, uncounted: Uncounted, seen: FinishedPods, counts: Counts, interim: JobCondition | undefined, finished: JobCondition | undefined): Promise<void> {
    const pending: Uncounted = {
      succeeded: [...uncounted.succeeded, ...seen.newSucceeded.map((p) => p.metadata.uid!)],
      failed: [...uncounted.failed, ...seen.newFailed.filter((p) => !uncounted.failed.includes(p.metadata.uid!)).map((p) => p.metadata.uid!)],
    }
    if (pending.succeeded.length + pending.failed.length > 0 || interim) {
      this.status.uncountedTerminatedPods = pending
      await this.write()
    }
    await this.c.removeFinalizers(seen.release)
    if (this.indexed) {
      this.status.completedIndexes = formatIndexes(counts.succeededIndexes)
      this.status.succeeded = counts.succeededIndexes.size
      if (int(this.spec.backoffLimitPerIndex) !== undefined) this.status.failedIndexes = formatIndexes(seen.failedIndexes)
    } else this.status.succeeded = (int(this.status.succeeded) ?? 0) + pending.succeeded.length
    this.status.failed = (int(this.status.failed) ?? 0) + pending.failed.length
    this.status.uncountedTerminatedPods = {}
    const enacted = finished !== undefined && this.status.terminating === 0
    if (enacted) {
      ensureCondition(this.conditions, finished.type, 'True', finished.reason, finished.message, now)
      if (finished.type === 'Complete') this.status.completionTime = now
    } else if (finished) this.c.requeueAfter(this.key, 1000)
    await this.write()
    if (enacted) await this.recordFinished(finished)
  }

  /** recordJobFinished. */
  private async recordFinished(finished: JobCondition): Promise<void> {
    if (finished.type !== 'Complete') return this.c.event(this.job, 'Warning', finished.reason, finished.message)
    const succeeded = int(this.status.succeeded) ?? 0
    if (this.completions !== undefined && succeeded > this.completions) await this.c.event(this.job, 'Warning', 'TooManySucceededPods', 'Too many succeeded pods running after completion count reached')
    await this.c.event(this.job, 'Normal', 'Completed', 'Job completed')
  }

  private async write(): Promise<void> {
    // The reference's omitempty fields.
    for (const field of ['active', 'succeeded', 'failed', 'completedIndexes'] as const) if (this.status[field] === 0 || this.status[field] === '') delete this.status[field]
    const before = obj(this.job.status)
    if (JSON.stringify(before) === JSON.stringify(this.status)) return
    this.job = await this.c.writeStatus(this.job, structuredClone(this.status))
  }

  /** pastBackoffLimitOnFailure: the restarts of OnFailure pods reach the limit. */
  private pastBackoffLimitOnFailure(active: KubeObject[], backoffLimit: number): boolean {
    if (obj(obj(this.spec.template).spec).restartPolicy !== 'OnFailure') return false
    let restarts = 0
    for (const pod of active) {
      if (podPhase(pod) !== 'Running' && podPhase(pod) !== 'Pending') continue
      for (const s of [...initContainerStatuses(pod), ...containerStatuses(pod)]) restarts += s.restartCount ?? 0
    }
    return backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit
  }

  /** pastActiveDeadline. */
  private pastActiveDeadline(): boolean {
    const seconds = int(this.spec.activeDeadlineSeconds)
    if (seconds === undefined || this.status.startTime === undefined || this.suspended) return false
    return this.c.nowMs() - Date.parse(String(this.status.startTime)) >= seconds * 1000
  }

  /** The Suspended condition as the reference's syncJob keeps it, with its events and the start time reset on resume. */
  private async suspendCondition(now: string): Promise<void> {
    if (this.suspended) {
      if (ensureCondition(this.conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now)) await this.c.event(this.job, 'Normal', 'Suspended', 'Job suspended')
    } else if (hasTrueCondition(this.conditions, 'Suspended')) {
      ensureCondition(this.conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed', now)
      await this.c.event(this.job, 'Normal', 'Resumed', 'Job resumed')
      this.status.startTime = now
    }
  }

  /** manageJob: pods created or deleted towards the wanted number of active ones; answers the active pods. */
  private async manage(active: KubeObject[], succeededIndexes: Set<number>, failedIndexes: Set<number>, succeeded: number): Promise<KubeObject[]> {
    const record = this.c.backoffOf(this.key)
    if (this.suspended) {
      for (const pod of active) await this.c.deletePod(this.job, pod)
      return []
    }
    const completions = this.completions ?? 0
    if (this.indexed) {
      // Pods of indexes already succeeded or failed, out of range, or duplicates go.
      const kept: KubeObject[] = []
      const seen = new Set<number>()
      for (const pod of active) {
        const index = completionIndexOf(pod)
        if (index === undefined || index >= completions || succeededIndexes.has(index) || failedIndexes.has(index) || seen.has(index)) await this.c.deletePod(this.job, pod)
        else {
          seen.add(index)
          kept.push(pod)
        }
      }
      const want = Math.min(this.parallelism, completions - succeededIndexes.size - failedIndexes.size) - kept.length
      if (want <= 0) return kept
      const remaining = this.c.remainingBackoff(record)
      if (remaining > 0) {
        this.c.requeueAfter(this.key, remaining)
        return kept
      }
      let created = 0
      for (let index = 0; index < completions && created < want; index++) {
        if (seen.has(index) || succeededIndexes.has(index) || failedIndexes.has(index)) continue
        await this.c.createPod(this.job, index, this.indexFailures(index))
        created++
      }
      return kept
    }
    let wantActive = this.parallelism
    if (this.completions === undefined) {
      // A work queue: after a first success, whatever runs is left running, nothing new starts.
      if (succeeded > 0) wantActive = active.length
    } else wantActive = Math.max(0, Math.min(this.parallelism, this.completions - succeeded))
    if (active.length > wantActive) {
      // The excess goes, not ready ones first (the reference's ActivePods ordering, roughly).
      const sorted = [...active].sort((a, b) => Number(isPodReady(a)) - Number(isPodReady(b)))
      const excess = sorted.slice(0, active.length - wantActive)
      for (const pod of excess) await this.c.deletePod(this.job, pod)
      return active.filter((p) => !excess.includes(p))
    }
    const diff = wantActive - active.length
    if (diff > 0) {
      const remaining = this.c.remainingBackoff(record)
      if (remaining > 0) {
        this.c.requeueAfter(this.key, remaining)
        return active
      }
      for (let i = 0; i < diff; i++) await this.c.createPod(this.job, undefined, 0)
    }
    return active
  }

  /** The failures of an index so far (the highest count among its failed pods, each one more). */
  private indexFailures(index: number): number {
    let failures = 0
    for (const pod of this.pods) {
      if (completionIndexOf(pod) !== index || podPhase(pod) !== 'Failed') continue
      failures = Math.max(failures, Number(pod.metadata.annotations?.[INDEX_FAILURE_COUNT_ANNOTATION] ?? '0') + 1)
    }
    return failures
  }
}
