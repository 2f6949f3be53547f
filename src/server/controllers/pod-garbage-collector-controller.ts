/**
 * The pod garbage collector (the reference's pkg/controller/podgc, kube-controller-manager's
 * `pod-garbage-collector-controller`), every gcCheckPeriod (20 s):
 * - gcTerminated: terminated pods (Succeeded or Failed) beyond --terminated-pod-gc-threshold
 *   (12500; 0 turns it off) are deleted, oldest first;
 * - gcTerminating: pods being deleted on a node that is not ready and has the
 *   `node.kubernetes.io/out-of-service` taint are force-deleted;
 * - gcOrphaned: pods bound to a node that does not exist, still absent after the quarantine
 *   (40 s on the controllers' clock), are marked Failed with the DisruptionTarget condition
 *   (DeletionByPodGC, "PodGC: node no longer exists") and force-deleted;
 * - gcUnscheduledTerminating: pods being deleted that were never bound are force-deleted.
 * Force deletion is the reference's: grace period 0 with the pod's UID as precondition.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import { type KubeObject, nowTimestamp } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { type PodCondition, isDeleting, isTerminal, nodeNameOf, podConditions } from './kit/pod-state.js'
import { RetryTimer } from './retry-timer.js'

const ADMISSION = asControllerServiceAccount('pod-garbage-collector')
export const DEFAULT_TERMINATED_POD_GC_THRESHOLD = 12500
const GC_CHECK_PERIOD_MS = 20_000
const QUARANTINE_MS = 40_000
const OUT_OF_SERVICE_TAINT = 'node.kubernetes.io/out-of-service'

export interface PodGCOptions {
  readonly clock?: Clock
  /** --terminated-pod-gc-threshold. */
  readonly terminatedPodThreshold?: number
  /** gcCheckPeriod (real ms). */
  readonly periodMs?: number
  /** quarantineTime, on the clock. */
  readonly quarantineMs?: number
  readonly onError?: (err: Error) => void
}

export class PodGarbageCollector implements Controller {
  readonly name = 'pod-garbage-collector-controller'
  private pods!: GenericStore
  private nodes!: GenericStore
  private interval: NodeJS.Timeout | undefined
  private timer: RetryTimer | undefined
  private readonly clock: Clock
  /** Nodes found missing, and when first (the reference's nodeQueue with its quarantine). */
  private readonly missingSince = new Map<string, number>()

  constructor(private readonly options: PodGCOptions = {}) {
    this.clock = options.clock ?? SYSTEM_CLOCK
  }

  start(ctx: ControllerContext): void {
    const pods = ctx.registry.lookup('', 'v1', 'pods')
    const nodes = ctx.registry.lookup('', 'v1', 'nodes')
    if (!pods || !nodes) return
    this.pods = pods
    this.nodes = nodes
    const onError = (err: unknown) => (this.options.onError ?? ((e: Error) => ctx.log(2, `pod garbage collector: ${e.message}`)))(err as Error)
    this.timer = new RetryTimer(() => this.gc(), onError)
    this.interval = setInterval(() => this.timer?.schedule(0), this.options.periodMs ?? GC_CHECK_PERIOD_MS)
    this.interval.unref()
    this.timer.schedule(0)
  }

  stop(): void {
    if (this.interval) clearInterval(this.interval)
    this.timer?.stop()
  }

  private async gc(): Promise<void> {
    const pods = (await this.pods.list()).items
    const nodes = new Map((await this.nodes.list()).items.map((n) => [n.metadata.name!, n]))
    await this.gcTerminating(pods, nodes)
    await this.gcTerminated(pods)
    await this.gcOrphaned(pods, nodes)
    await this.gcUnscheduledTerminating(pods)
  }

  private async gcTerminated(pods: KubeObject[]): Promise<void> {
    const threshold = this.options.terminatedPodThreshold ?? DEFAULT_TERMINATED_POD_GC_THRESHOLD
    if (threshold <= 0) return
    const terminated = pods.filter((p) => isTerminal(p) && !isDeleting(p))
    const excess = terminated.length - threshold
    if (excess <= 0) return
    // byEvictionAndCreationTimestamp: evicted pods first, then the oldest.
    const evicted = (p: KubeObject) => (p.status as { reason?: string } | undefined)?.reason === 'Evicted'
    terminated.sort((a, b) => Number(evicted(b)) - Number(evicted(a)) || Date.parse(a.metadata.creationTimestamp ?? '') - Date.parse(b.metadata.creationTimestamp ?? '') || (a.metadata.name! < b.metadata.name! ? -1 : 1))
    for (const pod of terminated.slice(0, excess)) await this.markFailedAndDelete(pod)
  }

  private async gcTerminating(pods: KubeObject[], nodes: Map<string, KubeObject>): Promise<void> {
    for (const pod of pods) {
      if (!isDeleting(pod) || isTerminal(pod)) continue
      const node = nodes.get(nodeNameOf(pod))
      if (!node || nodeReady(node)) continue
      const taints = ((node.spec as { taints?: Array<{ key: string; effect: string }> } | undefined)?.taints ?? [])
      if (taints.some((t) => t.key === OUT_OF_SERVICE_TAINT && t.effect === 'NoExecute')) await this.markFailedAndDelete(pod)
    }
  }

  private async gcOrphaned(pods: KubeObject[], nodes: Map<string, KubeObject>): Promise<void> {
    const now = this.clock.now()
    const missing = new Set<string>()
    for (const pod of pods) {
      const node = nodeNameOf(pod)
      if (node !== '' && !nodes.has(node)) missing.add(node)
    }
    for (const node of [...this.missingSince.keys()]) if (!missing.has(node)) this.missingSince.delete(node)
    const deleted = new Set<string>()
    for (const node of missing) {
      const since = this.missingSince.get(node)
      if (since === undefined) this.missingSince.set(node, now)
      else if (now - since >= (this.options.quarantineMs ?? QUARANTINE_MS)) {
        // discoverDeletedNodes: asked again before acting.
        try {
          await this.nodes.get(undefined, node)
          this.missingSince.delete(node)
        } catch (err) {
          if (toApiError(err).status.code !== 404) throw err
          deleted.add(node)
        }
      }
    }
    for (const pod of pods) {
      if (!deleted.has(nodeNameOf(pod))) continue
      await this.markFailedAndDelete(pod, { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' })
    }
  }

  private async gcUnscheduledTerminating(pods: KubeObject[]): Promise<void> {
    for (const pod of pods) if (isDeleting(pod) && nodeNameOf(pod) === '') await this.markFailedAndDelete(pod)
  }

  /** markFailedAndDeletePodWithCondition: a pod not yet terminal becomes Failed (with the condition), then is force-deleted. */
  private async markFailedAndDelete(pod: KubeObject, condition?: PodCondition): Promise<void> {
    try {
      if (!isTerminal(pod)) {
        await this.pods.update(
          pod.metadata.namespace,
          pod.metadata.name!,
          (current) => {
            const status = { ...(current.status as object) } as Record<string, unknown>
            status.phase = 'Failed'
            if (condition) {
              const conditions = podConditions(current).filter((c) => c.type !== condition.type)
              status.conditions = [...conditions, { ...condition, lastProbeTime: null, lastTransitionTime: nowTimestamp(new Date(this.clock.now())) }]
            }
            return { ...current, metadata: { ...current.metadata, uid: pod.metadata.uid }, status }
          },
          { subresource: 'status', retryOnConflict: true, admission: ADMISSION },
        )
      }
      await this.pods.delete(pod.metadata.namespace, pod.metadata.name!, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid! }, admission: ADMISSION })
    } catch (err) {
      const code = toApiError(err).status.code
      if (code !== 404 && code !== 409) throw err
    }
  }
}

function nodeReady(node: KubeObject): boolean {
  const conditions = ((node.status as { conditions?: unknown } | undefined)?.conditions ?? []) as Array<{ type: string; status: string }>
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True')
}
