/**
 * The TTL-after-finished controller (the reference's pkg/controller/ttlafterfinished,
 * kube-controller-manager's `ttl-after-finished-controller`): a Job with
 * spec.ttlSecondsAfterFinished is deleted that long after it finished (the lastTransitionTime
 * of its Complete or Failed condition), with foreground propagation and its UID as a
 * precondition, as processTTL does after reading the Job again. Time is the controllers' clock:
 * a Job not yet expired is looked at again when it will be.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { KeyedQueue, keyOf, splitKey } from './kit/keyed-queue.js'

const ADMISSION = asControllerServiceAccount('ttl-after-finished-controller')

export interface TTLAfterFinishedOptions {
  readonly clock?: Clock
  readonly recheckMs?: number
  readonly onError?: (err: Error) => void
}

/** The finish time of a finished Job (jobFinishTime), or undefined while it runs. */
function finishTime(job: KubeObject): number | undefined {
  const conditions = ((job.status as { conditions?: unknown } | undefined)?.conditions ?? []) as Array<{ type: string; status: string; lastTransitionTime?: string }>
  const finished = conditions.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')
  return finished?.lastTransitionTime ? Date.parse(finished.lastTransitionTime) : undefined
}

const ttlOf = (job: KubeObject): number | undefined => {
  const ttl = (job.spec as { ttlSecondsAfterFinished?: unknown } | undefined)?.ttlSecondsAfterFinished
  return typeof ttl === 'number' ? ttl : undefined
}

export class TTLAfterFinishedController implements Controller {
  readonly name = 'ttl-after-finished-controller'
  private queue: KeyedQueue | undefined
  private unsubscribe: (() => void) | undefined
  private jobs!: GenericStore
  private readonly clock: Clock

  constructor(private readonly options: TTLAfterFinishedOptions = {}) {
    this.clock = options.clock ?? SYSTEM_CLOCK
  }

  async start(ctx: ControllerContext): Promise<void> {
    const jobs = ctx.registry.lookup('batch', 'v1', 'jobs')
    if (!jobs) return
    this.jobs = jobs
    const onError = (err: unknown) => (this.options.onError ?? ((e: Error) => ctx.log(2, `ttl-after-finished controller: ${e.message}`)))(err as Error)
    this.queue = new KeyedQueue((key) => this.sync(key), { clock: this.clock, recheckMs: this.options.recheckMs ?? 1000, onError })
    this.unsubscribe = ctx.registry.onChange(({ type, object, strategy }) => {
      // needsCleanup: a TTL, finished, not being deleted.
      if (strategy.group === 'batch' && strategy.resource === 'jobs' && type !== 'deleted' && needsCleanup(object)) this.queue?.add(keyOf(object.metadata.namespace, object.metadata.name))
    })
    this.queue.start()
    for (const job of (await jobs.list()).items) if (needsCleanup(job)) this.queue.add(keyOf(job.metadata.namespace, job.metadata.name))
  }

  stop(): void {
    this.unsubscribe?.()
    this.queue?.stop()
  }

  private async sync(key: string): Promise<void> {
    const [namespace, name] = splitKey(key)
    let job: KubeObject
    try {
      job = await this.jobs.get(namespace, name)
    } catch (err) {
      if (toApiError(err).status.code === 404) return
      throw err
    }
    if (!needsCleanup(job)) return
    const expireAt = finishTime(job)! + ttlOf(job)! * 1000
    const remaining = expireAt - this.clock.now()
    if (remaining > 0) {
      this.queue?.addAfter(key, remaining)
      return
    }
    try {
      await this.jobs.delete(namespace, name, { propagationPolicy: 'Foreground', preconditions: { uid: job.metadata.uid! }, admission: ADMISSION })
    } catch (err) {
      const code = toApiError(err).status.code
      if (code !== 404 && code !== 409) throw err
    }
  }
}

function needsCleanup(job: KubeObject): boolean {
  return ttlOf(job) !== undefined && !job.metadata.deletionTimestamp && finishTime(job) !== undefined
}
