/**
 * kube-controller-manager's taint eviction controller (pkg/controller/tainteviction): a pod on
 * a node with NoExecute taints is deleted at once when it does not tolerate them all, or, when
 * it does, once the shortest tolerationSeconds of the tolerations matching them has passed since
 * the taint was added (no tolerationSeconds: never). Before the deletion the pod gets the
 * `TaintManagerEviction` event and the DisruptionTarget condition (DeletionByTaintManager), as
 * the reference's. The DefaultTolerationSeconds admission plugin gives every pod 300 s for
 * `not-ready` and `unreachable`, so a pod goes five minutes after its node stops answering.
 * Pods are looked at every second, against the cluster's clock.
 */
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { ApiError } from '../api/status-errors.js'
import { timeOf } from '../peers/lease-times.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { EventRecorder } from './event-recorder.js'
import { toleratesTaint as tolerates } from '../scheduler/plugins/tolerations.js'

interface Taint {
  key: string
  value?: string
  effect: string
  timeAdded?: string
}
interface Toleration {
  key?: string
  operator?: string
  value?: string
  effect?: string
  tolerationSeconds?: number
}

const seconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')

export class TaintEvictionController implements Controller {
  readonly name = 'taint-eviction-controller'
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  private events: EventRecorder | undefined
  private readonly marked = new Set<string>()

  constructor(private readonly options: { clock?: Clock; periodMs?: number } = {}) {}

  private get clock(): Clock {
    return this.options.clock ?? SYSTEM_CLOCK
  }

  start(ctx: ControllerContext): void {
    this.stopped = false
    this.events = new EventRecorder(ctx.registry, 'taint-eviction-controller', { clock: this.clock, onError: (err) => ctx.log(2, `taint eviction event: ${err.message}`) })
    const tick = () => {
      if (this.stopped) return
      void this.pass(ctx.registry)
        .catch((err: Error) => ctx.log(2, `taint eviction: ${err.message}`))
        .finally(() => {
          if (this.stopped) return
          this.timer = setTimeout(tick, this.options.periodMs ?? 1_000)
          this.timer.unref()
        })
    }
    tick()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
  }

  async pass(registry: Registry): Promise<void> {
    const nodes = registry.lookup('', 'v1', 'nodes')!
    const tainted = new Map<string, Taint[]>()
    for (const node of (await nodes.list()).items) {
      const taints = ((node.spec as { taints?: Taint[] } | undefined)?.taints ?? []).filter((t) => t.effect === 'NoExecute')
      if (taints.length > 0) tainted.set(node.metadata.name ?? '', taints)
    }
    if (tainted.size === 0) return
    const pods = registry.lookup('', 'v1', 'pods')!
    const now = this.clock.now()
    for (const pod of (await pods.list()).items) {
      const taints = tainted.get((pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '')
      if (!taints || pod.metadata.deletionTimestamp) continue
      const due = evictionTime(pod, taints)
      if (due !== undefined && now >= due) await this.evict(registry, pod)
    }
  }

  private async evict(registry: Registry, pod: KubeObject): Promise<void> {
    const pods = registry.lookup('', 'v1', 'pods')!
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`
    if (!this.marked.has(key)) {
      this.marked.add(key)
      await this.events?.record(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`)
    }
    try {
      const now = seconds(this.clock.now())
      await pods.update(
        pod.metadata.namespace,
        pod.metadata.name ?? '',
        (cur) => {
          const conditions = ((cur.status as { conditions?: Array<{ type: string }> } | undefined)?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget')
          conditions.push({ type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint', lastTransitionTime: now } as { type: string })
          return { ...cur, status: { ...(cur.status as object), conditions } }
        },
        { subresource: 'status', retryOnConflict: true, admission: false },
      )
      await pods.delete(pod.metadata.namespace, pod.metadata.name ?? '', { admission: false })
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err
    } finally {
      this.marked.delete(key)
    }
  }
}

/** When the pod must go (ms), or undefined when it tolerates the taints for ever. */
export function evictionTime(pod: KubeObject, taints: readonly Taint[]): number | undefined {
  const tolerations = ((pod.spec as { tolerations?: Toleration[] } | undefined)?.tolerations ?? []) as Toleration[]
  let due: number | undefined
  for (const taint of taints) {
    const matching = tolerations.filter((t) => tolerates(t, taint))
    const added = timeOf(taint.timeAdded) ?? 0
    if (matching.length === 0) return added
    const limits = matching.filter((t) => typeof t.tolerationSeconds === 'number').map((t) => Math.max(0, t.tolerationSeconds!) * 1000)
    if (limits.length === 0) continue
    const at = added + Math.min(...limits)
    due = due === undefined ? at : Math.min(due, at)
  }
  return due
}
