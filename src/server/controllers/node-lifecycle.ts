/**
 * kube-controller-manager's node lifecycle controller (pkg/controller/nodelifecycle), as far as
 * a simulated cluster needs it: every monitor period (5 s) each Node's health is read as the
 * reference reads it: the controller notes, on its own clock, when it last saw the node's Ready
 * condition's lastHeartbeatTime or its Lease's renewTime in kube-node-lease change (first seen:
 * then), so that the node's clock and the controller's need not agree; a node not heard from
 * within the grace period (--node-monitor-grace-period; the startup grace
 * period, 60 s, for a node that never posted its status) gets its Ready, MemoryPressure,
 * DiskPressure and PIDPressure conditions set to Unknown with the reference's reasons and
 * messages, the `NodeNotReady` event, its pods' Ready conditions set to False, and the taints of
 * its Ready condition: `node.kubernetes.io/unreachable` (Unknown) or `node.kubernetes.io/not-ready`
 * (False), NoSchedule and NoExecute (with timeAdded); a Ready node loses them. Evicting the pods
 * that do not tolerate the NoExecute taints is the taint eviction controller's (taint-eviction.ts).
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { EventRecorder } from './event-recorder.js'

export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable'
export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready'
const UNKNOWN_REASON = 'NodeStatusUnknown'
const UNKNOWN_MESSAGE = 'Kubelet stopped posting node status.'
const NEVER_REASON = 'NodeStatusNeverUpdated'
const NEVER_MESSAGE = 'Kubelet never posted node status.'
/** The conditions set to Unknown with Ready (NetworkUnavailable is the control plane's). */
const REMAINING = ['MemoryPressure', 'DiskPressure', 'PIDPressure']

interface Condition {
  type: string
  status: string
  reason?: string
  message?: string
  lastHeartbeatTime?: string
  lastTransitionTime?: string
}
interface Taint {
  key: string
  value?: string
  effect: string
  timeAdded?: string
}

export interface NodeLifecycleOptions {
  readonly gracePeriodMs: number
  readonly startupGracePeriodMs?: number
  readonly monitorPeriodMs?: number
  readonly clock?: Clock
}

const seconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')

export class NodeLifecycleController implements Controller {
  readonly name = 'node-lifecycle-controller'
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  private events: EventRecorder | undefined
  /** Per node: the heartbeat and lease renewal last seen, and when (the reference's nodeHealthData.probeTimestamp). */
  private readonly health = new Map<string, { heartbeat: string; renew: string; probe: number }>()

  constructor(private readonly options: NodeLifecycleOptions) {}

  private get clock(): Clock {
    return this.options.clock ?? SYSTEM_CLOCK
  }

  start(ctx: ControllerContext): void {
    this.stopped = false
    this.events = new EventRecorder(ctx.registry, 'node-controller', { clock: this.clock, onError: (err) => ctx.log(2, `node-controller event: ${err.message}`) })
    const tick = () => {
      if (this.stopped) return
      void this.monitor(ctx.registry)
        .catch((err: Error) => ctx.log(2, `node lifecycle: ${err.message}`))
        .finally(() => {
          if (this.stopped) return
          this.timer = setTimeout(tick, this.options.monitorPeriodMs ?? 5_000)
          this.timer.unref()
        })
    }
    tick()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
  }

  /** One pass of monitorNodeHealth over every node. */
  async monitor(registry: Registry): Promise<void> {
    const nodes = registry.lookup('', 'v1', 'nodes')!
    const leases = registry.lookup('coordination.k8s.io', 'v1', 'leases')!
    const renewals = new Map<string, string>()
    for (const lease of (await leases.list({ namespace: 'kube-node-lease' })).items) {
      const at = (lease.spec as { renewTime?: string } | undefined)?.renewTime
      if (at !== undefined) renewals.set(lease.metadata.name ?? '', at)
    }
    for (const node of (await nodes.list()).items) await this.check(registry, nodes, node, renewals.get(node.metadata.name ?? ''))
  }

  private async check(registry: Registry, nodes: GenericStore, node: KubeObject, leaseRenewed: string | undefined): Promise<void> {
    const now = this.clock.now()
    const name = node.metadata.name ?? ''
    const conditions = ((node.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).map((c) => ({ ...c }))
    const ready = conditions.find((c) => c.type === 'Ready')
    const seen = { heartbeat: ready?.lastHeartbeatTime ?? '', renew: leaseRenewed ?? '' }
    const saved = this.health.get(name)
    const probe = saved && saved.heartbeat === seen.heartbeat && saved.renew === seen.renew ? saved.probe : now
    this.health.set(name, { ...seen, probe })
    const heard = probe
    const grace = ready ? this.options.gracePeriodMs : (this.options.startupGracePeriodMs ?? 60_000)
    let changedStatus = false
    if (now > heard + grace) {
      if (!ready) {
        conditions.push({ type: 'Ready', status: 'Unknown', reason: NEVER_REASON, message: NEVER_MESSAGE, lastHeartbeatTime: node.metadata.creationTimestamp as string, lastTransitionTime: seconds(now) })
        changedStatus = true
      }
      for (const c of conditions) {
        if ((c.type === 'Ready' || REMAINING.includes(c.type)) && c.status !== 'Unknown') {
          Object.assign(c, { status: 'Unknown', reason: UNKNOWN_REASON, message: UNKNOWN_MESSAGE, lastTransitionTime: seconds(now) })
          changedStatus = true
        }
      }
      for (const type of REMAINING) {
        if (!conditions.some((c) => c.type === type)) {
          conditions.push({ type, status: 'Unknown', reason: NEVER_REASON, message: NEVER_MESSAGE, lastHeartbeatTime: node.metadata.creationTimestamp as string, lastTransitionTime: seconds(now) })
          changedStatus = true
        }
      }
    }
    let current = node
    if (changedStatus) {
      current = await nodes.update(undefined, name, (cur) => ({ ...cur, status: { ...(cur.status as object), conditions } }), { subresource: 'status', retryOnConflict: true, admission: false })
      await this.events?.record(current, 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`)
      await this.markPodsNotReady(registry, name)
    }
    await this.taint(nodes, current, conditions.find((c) => c.type === 'Ready')?.status, now)
  }

  /** The taints of the Ready condition's status: added when it is False or Unknown, removed when True. */
  private async taint(nodes: GenericStore, node: KubeObject, readyStatus: string | undefined, now: number): Promise<void> {
    const wanted = readyStatus === 'Unknown' ? UNREACHABLE_TAINT : readyStatus === 'False' ? NOT_READY_TAINT : undefined
    const taints = ((node.spec as { taints?: Taint[] } | undefined)?.taints ?? []) as Taint[]
    const ours = (t: Taint) => (t.key === UNREACHABLE_TAINT || t.key === NOT_READY_TAINT) && (t.effect === 'NoSchedule' || t.effect === 'NoExecute')
    const kept = taints.filter((t) => !ours(t) || t.key === wanted)
    const next = [...kept]
    if (wanted) {
      if (!kept.some((t) => t.key === wanted && t.effect === 'NoSchedule')) next.push({ key: wanted, effect: 'NoSchedule' })
      if (!kept.some((t) => t.key === wanted && t.effect === 'NoExecute')) next.push({ key: wanted, effect: 'NoExecute', timeAdded: seconds(now) })
    }
    if (next.length === taints.length && next.every((t, i) => t === taints[i])) return
    await nodes.update(undefined, node.metadata.name ?? '', (cur) => ({ ...cur, spec: { ...(cur.spec as object), taints: next.length > 0 ? next : undefined } }), { retryOnConflict: true, admission: false })
  }

  /** MarkPodsNotReady: the Ready condition of each pod on the node set to False, with the event. */
  private async markPodsNotReady(registry: Registry, nodeName: string): Promise<void> {
    const pods = registry.lookup('', 'v1', 'pods')!
    for (const pod of (await pods.list()).items) {
      if ((pod.spec as { nodeName?: string } | undefined)?.nodeName !== nodeName) continue
      const conditions = (pod.status as { conditions?: Condition[] } | undefined)?.conditions ?? []
      const ready = conditions.find((c) => c.type === 'Ready')
      if (!ready || ready.status === 'False') continue
      const now = seconds(this.clock.now())
      const updated = await pods.update(
        pod.metadata.namespace,
        pod.metadata.name ?? '',
        (cur) => {
          const cs = ((cur.status as { conditions?: Condition[] }).conditions ?? []).map((c) => (c.type === 'Ready' ? { ...c, status: 'False', lastTransitionTime: now } : c))
          return { ...cur, status: { ...(cur.status as object), conditions: cs } }
        },
        { subresource: 'status', retryOnConflict: true, admission: false },
      )
      await this.events?.record(updated, 'Warning', 'NodeNotReady', 'Node is not ready')
    }
  }
}
