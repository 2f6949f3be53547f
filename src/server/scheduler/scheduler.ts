/**
 * kube-scheduler with the default profile (`default-scheduler`), in process: it follows the
 * registry's Nodes, Pods and the objects its plugins read into its cache; queues the pods that
 * name it (spec.schedulerName) and have no node; and for each, in priority order, runs the
 * Filter plugins over the nodes (as many as the reference's adaptive percentage asks for, from
 * where the last pod stopped), scores the feasible ones, picks the best (ties at random),
 * assumes the pod there and binds it through `pods/binding`, recording `Scheduled`. A pod no
 * node takes gets the reference's FitError message in its PodScheduled=False condition
 * (reason Unschedulable) and a `FailedScheduling` event, and waits for a change in the cluster.
 */
import type { ObjectChange } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { toApiError } from '../api/status-errors.js'
import { bindPod, SCHEDULER_USER } from './binder.js'
import { type AuxResource, SchedulerCache } from './cache.js'
import type { Clock } from './clock.js'
import { EventWriter } from './event-writer.js'
import type { CycleState } from './framework.js'
import { NodeInfo, podInfoOf } from './node-info.js'
import { type Node, type Pod, nodeSpec, nodeStatus, podKey, podPhase, podSpec, priorityOf } from './objects.js'
import { preempt } from './preemption.js'
import { DEFAULT_SCHEDULER_NAME, FILTER_PLUGINS, SCORE_PLUGINS } from './profile.js'
import { SchedulingQueue } from './queue.js'
import { type Diagnosis, type Status, fitErrorMessage, messageOf } from './status.js'
import { SELECTED_NODE_ANNOTATION, delayedClaims } from './plugins/volume-binding.js'

/** ErrNoNodesAvailable. */
export const ERR_NO_NODES_AVAILABLE = 'no nodes available to schedule pods'

const SYSTEM_CLOCK: Clock = { now: () => Date.now() }

export interface SchedulerOptions {
  /** Event and condition times. */
  readonly clock?: Clock
  /** Back-off and the unschedulable flush: wall time by default, so that a frozen fake clock does not freeze retries. */
  readonly queueClock?: Clock
  /** Ties between the best nodes (selectHost's reservoir sampling); Math.random by default, seeded in tests. */
  readonly random?: () => number
  /** How long PreBind waits for a WaitForFirstConsumer claim to be bound (the reference's bindTimeoutSeconds, 600). */
  readonly bindTimeoutMs?: number
  /** The host name in the events' reportingInstance. */
  readonly host?: string
  log?(level: number, message: string): void
}

const AUX: Record<string, AuxResource> = {
  '/namespaces': 'namespaces',
  '/services': 'services',
  'apps/replicasets': 'replicasets',
  'apps/statefulsets': 'statefulsets',
  '/replicationcontrollers': 'replicationcontrollers',
  '/persistentvolumeclaims': 'persistentvolumeclaims',
  '/persistentvolumes': 'persistentvolumes',
  'storage.k8s.io/storageclasses': 'storageclasses',
  'policy/poddisruptionbudgets': 'poddisruptionbudgets',
}
/** Changes of these may make a parked pod schedulable (the plugins' EventsToRegister). */
const MOVES_PODS = new Set<AuxResource>(['namespaces', 'services', 'persistentvolumeclaims', 'persistentvolumes', 'storageclasses'])

const AUX_VERSIONS: Record<AuxResource, [string, string, string]> = {
  namespaces: ['', 'v1', 'namespaces'],
  services: ['', 'v1', 'services'],
  replicasets: ['apps', 'v1', 'replicasets'],
  statefulsets: ['apps', 'v1', 'statefulsets'],
  replicationcontrollers: ['', 'v1', 'replicationcontrollers'],
  persistentvolumeclaims: ['', 'v1', 'persistentvolumeclaims'],
  persistentvolumes: ['', 'v1', 'persistentvolumes'],
  storageclasses: ['storage.k8s.io', 'v1', 'storageclasses'],
  poddisruptionbudgets: ['policy', 'v1', 'poddisruptionbudgets'],
}

/** A cycle that placed nothing: the FitError (or other) message, and what preemption chose. */
export interface SchedulingFailure {
  readonly message: string
  readonly preemption?: { readonly node: string; readonly victims: readonly Pod[] }
}

/** numFeasibleNodesToFind's constants. */
const MIN_FEASIBLE_NODES = 100
const MIN_FEASIBLE_PERCENTAGE = 5

export function numFeasibleNodesToFind(all: number): number {
  if (all < MIN_FEASIBLE_NODES) return all
  const percentage = Math.max(MIN_FEASIBLE_PERCENTAGE, 50 - Math.trunc(all / 125))
  return Math.max(MIN_FEASIBLE_NODES, Math.trunc((all * percentage) / 100))
}

export class Scheduler {
  readonly cache = new SchedulerCache()
  private readonly queue: SchedulingQueue
  private readonly clock: Clock
  private readonly random: () => number
  private registry: Registry | undefined
  private events: EventWriter | undefined
  private unsubscribe: (() => void) | undefined
  private timer: NodeJS.Timeout | undefined
  private running = false
  private stopped = false
  private kicked = false
  private nextStartNodeIndex = 0
  /** Pods nominated to a node by preemption, by key, until they are bound or gone (the nominator). */
  private readonly nominated = new Map<string, { pod: Pod; node: string }>()
  /** Bindings in flight, so that stop() can wait for them. */
  private readonly binding = new Set<Promise<void>>()
  /** Counts for the measurement in docs/scheduler.md. */
  scheduledCount = 0

  constructor(private readonly options: SchedulerOptions = {}) {
    this.clock = options.clock ?? SYSTEM_CLOCK
    this.queue = new SchedulingQueue(options.queueClock ?? SYSTEM_CLOCK)
    this.random = options.random ?? Math.random
  }

  async start(registry: Registry): Promise<void> {
    if (!registry.lookup('', 'v1', 'pods') || !registry.lookup('', 'v1', 'nodes')) return
    this.registry = registry
    this.stopped = false
    this.events = new EventWriter(registry, DEFAULT_SCHEDULER_NAME, this.clock, (err) => this.log(2, `event: ${err.message}`), this.options.host)
    // Changes made while the lists run are replayed after them, so the last write of each object wins.
    let buffered: ObjectChange[] | undefined = []
    this.unsubscribe = registry.onChange((change) => (buffered ? buffered.push(change) : this.onChange(change)))
    for (const [resource, [group, version, plural]] of Object.entries(AUX_VERSIONS) as [AuxResource, [string, string, string]][]) {
      const store = registry.lookup(group, version, plural)
      if (!store) continue
      for (const o of (await store.list()).items) this.cache.setAux(resource, o, false)
    }
    for (const node of (await registry.lookup('', 'v1', 'nodes')!.list()).items) this.cache.upsertNode(node)
    for (const pod of (await registry.lookup('', 'v1', 'pods')!.list()).items) this.onPod('created', pod)
    const replay = buffered
    buffered = undefined
    for (const change of replay) this.onChange(change)
    this.timer = setInterval(() => {
      this.queue.flush()
      this.kick()
    }, 1000)
    this.timer.unref()
    this.kick()
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.unsubscribe?.()
    this.unsubscribe = undefined
    if (this.timer) clearInterval(this.timer)
    await Promise.allSettled([...this.binding])
  }

  private log(level: number, message: string): void {
    this.options.log?.(level, message)
  }

  private onChange({ type, object, strategy }: ObjectChange): void {
    const id = `${strategy.group}/${strategy.resource}`
    if (id === '/pods') {
      this.onPod(type, object)
    } else if (id === '/nodes') {
      if (type === 'deleted') this.cache.removeNode(object.metadata.name ?? '')
      else {
        // Heartbeats (conditions, times) change nothing the filters read: only a new node, or new labels, taints or allocatable, may help.
        const before = this.cache.nodeInfo(object.metadata.name ?? '')?.node
        this.cache.upsertNode(object)
        if (!before || schedulingView(before) !== schedulingView(object)) this.queue.moveAllToActiveOrBackoff()
      }
    } else {
      const aux = AUX[id]
      if (!aux) return
      this.cache.setAux(aux, object, type === 'deleted')
      if (MOVES_PODS.has(aux) && type !== 'deleted') this.queue.moveAllToActiveOrBackoff()
    }
    this.kick()
  }

  private onPod(type: ObjectChange['type'], pod: Pod): void {
    const key = podKey(pod)
    const spec = podSpec(pod)
    if (spec.nodeName || type === 'deleted') this.nominated.delete(key)
    if (spec.nodeName) {
      this.queue.delete(key)
      const before = this.cache.placedPod(key)
      if (type === 'deleted') this.cache.removePod(key)
      else this.cache.upsertAssignedPod(pod)
      // A pod that comes to a node, leaves it, finishes or is relabelled may free room or change affinity
      // and spreading; its status moving through its stages does not.
      const phase = podPhase(pod)
      if (!before || type === 'deleted' || phase === 'Succeeded' || phase === 'Failed' || JSON.stringify(before.metadata.labels ?? {}) !== JSON.stringify(pod.metadata.labels ?? {})) {
        this.queue.moveAllToActiveOrBackoff()
      }
      return
    }
    if (type === 'deleted' || pod.metadata.deletionTimestamp) {
      this.queue.delete(key)
      this.cache.forget(key)
      return
    }
    if ((spec.schedulerName ?? DEFAULT_SCHEDULER_NAME) !== DEFAULT_SCHEDULER_NAME) return
    // Pods that ended without a node (the reference's informer leaves Succeeded and Failed pods out).
    const phase = podPhase(pod)
    if (phase === 'Succeeded' || phase === 'Failed') {
      this.queue.delete(key)
      return
    }
    if ((spec.schedulingGates ?? []).length > 0) return
    // An assumed pod whose binding is on its way stays out of the queue.
    if (this.cache.isPlaced(key)) return
    this.queue.add(pod)
  }

  /** Runs the loop on the next turn, once. */
  private kick(): void {
    if (this.kicked || this.running || this.stopped) return
    this.kicked = true
    setImmediate(() => {
      this.kicked = false
      this.runLoop()
    })
  }

  /** Schedules queued pods a few at a time, yielding between batches so bindings and requests proceed. */
  private runLoop(): void {
    if (this.stopped || !this.registry) return
    this.running = true
    try {
      const started = performance.now()
      while (performance.now() - started < 20) {
        const pod = this.queue.pop()
        if (!pod) break
        this.scheduleOne(pod)
      }
    } finally {
      this.running = false
    }
    if (this.queue.activeCount > 0) this.kick()
  }

  /** scheduleOne: one pod's cycle, up to the binding (which runs on its own). */
  scheduleOne(pod: Pod): void {
    const result = this.schedulePod(pod)
    if ('message' in result) {
      if (result.preemption) {
        this.nominate(pod, result.preemption.node)
        void this.evict(pod, result.preemption.node, result.preemption.victims)
      }
      this.fail(pod, result.message, result.preemption?.node)
      return
    }
    this.cache.assume(pod, result.node.name)
    const binding = this.bind(pod, result.node.name, result.state.data).finally(() => this.binding.delete(binding))
    this.binding.add(binding)
  }

  /**
   * schedulePod: the chosen node and the cycle's state; or the failure's message, with the node
   * nominated and the victims to evict when preemption found room. Writes nothing.
   */
  schedulePod(pod: Pod): { node: NodeInfo; state: CycleState } | SchedulingFailure {
    const nodes = this.cache.nodeInfos()
    if (nodes.length === 0) return { message: ERR_NO_NODES_AVAILABLE }
    const state: CycleState = { pod, cache: this.cache, nodes, data: new Map() }
    const diagnosis: Diagnosis = { nodeToStatus: new Map() }
    for (const plugin of FILTER_PLUGINS) {
      const status = plugin.preFilter?.(state)
      if (status && status.code !== 'Success') {
        diagnosis.preFilterMsg = messageOf(status)
        return this.fitError(state, diagnosis)
      }
    }
    const feasible = this.findFeasible(state, diagnosis)
    if (feasible.length === 0) return this.fitError(state, diagnosis)
    return { node: feasible.length === 1 ? feasible[0]! : this.selectHost(state, feasible), state }
  }

  /** findNodesThatPassFilters: from where the last pod stopped, until enough nodes fit. */
  private findFeasible(state: CycleState, diagnosis: Diagnosis): NodeInfo[] {
    const nodes = state.nodes
    const wanted = numFeasibleNodesToFind(nodes.length)
    const feasible: NodeInfo[] = []
    let processed = 0
    for (let i = 0; i < nodes.length && feasible.length < wanted; i++) {
      const node = nodes[(this.nextStartNodeIndex + i) % nodes.length]!
      processed++
      const status = runFilters(state, this.withNominated(state.pod, node))
      if (status) diagnosis.nodeToStatus.set(node.name, status)
      else feasible.push(node)
    }
    this.nextStartNodeIndex = (this.nextStartNodeIndex + processed) % nodes.length
    return feasible
  }

  /** The pod waits for room on `node` (AddNominatedPod): pods of no higher priority see it there. */
  nominate(pod: Pod, node: string): void {
    this.nominated.set(podKey(pod), { pod, node })
  }

  /**
   * RunFilterPluginsWithNominatedPods: the pods nominated to the node with at least this pod's
   * priority count there, so that the room preemption made is kept for them.
   */
  private withNominated(pod: Pod, node: NodeInfo): NodeInfo {
    if (this.nominated.size === 0) return node
    const key = podKey(pod)
    const extra = [...this.nominated].filter(([k, n]) => k !== key && n.node === node.name && priorityOf(n.pod) >= priorityOf(pod) && !node.pods.has(k))
    if (extra.length === 0) return node
    const copy = new NodeInfo(node.node)
    for (const info of node.pods.values()) copy.addPod(info)
    for (const [, n] of extra) copy.addPod(podInfoOf(n.pod))
    return copy
  }

  /** prioritizeNodes and selectHost: the weighted sum of the score plugins; ties broken at random. */
  private selectHost(state: CycleState, feasible: NodeInfo[]): NodeInfo {
    state.data.set('feasible', feasible)
    const totals = new Array<number>(feasible.length).fill(0)
    for (const plugin of SCORE_PLUGINS) {
      if (plugin.preScore?.(state, feasible) === false) continue
      const scores = feasible.map((node) => plugin.score(state, node))
      plugin.normalize?.(state, scores)
      for (let i = 0; i < scores.length; i++) totals[i]! += scores[i]! * plugin.weight
    }
    let best = 0
    let ties = 1
    for (let i = 1; i < feasible.length; i++) {
      if (totals[i]! > totals[best]!) {
        best = i
        ties = 1
      } else if (totals[i] === totals[best]) {
        ties++
        if (Math.floor(this.random() * ties) === 0) best = i
      }
    }
    return feasible[best]!
  }

  /**
   * The FitError's message after the PostFilter plugins: with their message when preemption
   * found no room; without it (PostFilter succeeded) when it nominated a node.
   */
  private fitError(state: CycleState, diagnosis: Diagnosis): SchedulingFailure {
    const outcome = preempt(state.pod, state.nodes, diagnosis, (node, removed) => runFilters(state, node, removed), [...this.cache.auxObjects('poddisruptionbudgets')])
    if ('message' in outcome) {
      diagnosis.postFilterMsg = outcome.message
      return { message: fitErrorMessage(state.nodes.length, diagnosis) }
    }
    return { message: fitErrorMessage(state.nodes.length, diagnosis), preemption: { node: outcome.node.name, victims: outcome.victims } }
  }

  /**
   * prepareCandidate: each victim gets the DisruptionTarget condition and is deleted, with a
   * `Preempted` event; the preemptor waits, nominated to the node, until they are gone.
   */
  private async evict(preemptor: Pod, nodeName: string, victims: readonly Pod[]): Promise<void> {
    const pods = this.registry!.lookup('', 'v1', 'pods')!
    const now = new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z')
    for (const victim of victims) {
      try {
        await pods.update(
          victim.metadata.namespace,
          victim.metadata.name ?? '',
          (current) => {
            const status = { ...((current.status as Record<string, unknown> | undefined) ?? {}) }
            const conditions = ((status.conditions as Record<string, unknown>[] | undefined) ?? []).filter((c) => c.type !== 'DisruptionTarget')
            conditions.push({ type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: now, reason: 'PreemptionByScheduler', message: `${DEFAULT_SCHEDULER_NAME}: preempting to accommodate a higher priority pod` })
            return { ...current, status: { ...status, conditions } }
          },
          { subresource: 'status', retryOnConflict: true, admission: { userInfo: SCHEDULER_USER } },
        )
        await pods.delete(victim.metadata.namespace, victim.metadata.name ?? '', { admission: { userInfo: SCHEDULER_USER } })
        await this.events!.record(victim, 'Normal', 'Preempted', 'Preempting', `Preempted by pod ${preemptor.metadata.uid} on node ${nodeName}`)
      } catch (err) {
        if (toApiError(err).status.code !== 404) this.log(2, `preempting ${podKey(victim)}: ${(err as Error).message}`)
      }
    }
  }

  /** handleSchedulingFailure for a rejection: the event, the condition, and the pod parked. */
  private fail(pod: Pod, message: string, nominatedNodeName?: string): void {
    this.queue.failed(podKey(pod))
    void this.events!.record(pod, 'Warning', 'FailedScheduling', 'Scheduling', message)
    void this.setUnschedulable(pod, 'Unschedulable', message, nominatedNodeName).catch((err: unknown) => this.log(2, `updating pod ${podKey(pod)} condition: ${(err as Error).message}`))
  }

  /** updatePod: PodScheduled=False with the reason and message, written only when they change. */
  private async setUnschedulable(pod: Pod, reason: string, message: string, nominatedNodeName?: string): Promise<void> {
    const pods = this.registry!.lookup('', 'v1', 'pods')!
    const now = new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z')
    await pods
      .update(
        pod.metadata.namespace,
        pod.metadata.name ?? '',
        (current) => {
          if (podSpec(current).nodeName || current.metadata.deletionTimestamp) return current
          const status = { ...((current.status as Record<string, unknown> | undefined) ?? {}) }
          const conditions = Array.isArray(status.conditions) ? (status.conditions as Record<string, unknown>[]) : []
          const old = conditions.find((c) => c.type === 'PodScheduled')
          const nominationChanges = nominatedNodeName !== undefined && status.nominatedNodeName !== nominatedNodeName
          if (old && old.status === 'False' && old.reason === reason && old.message === message && !nominationChanges) return current
          if (nominatedNodeName !== undefined) status.nominatedNodeName = nominatedNodeName
          const generation = current.metadata.generation
          const condition = {
            type: 'PodScheduled',
            status: 'False',
            ...(generation !== undefined ? { observedGeneration: generation } : {}),
            lastProbeTime: null,
            lastTransitionTime: old && old.status === 'False' ? old.lastTransitionTime : now,
            reason,
            message,
          }
          status.conditions = old ? conditions.map((c) => (c === old ? condition : c)) : [...conditions, condition]
          return { ...current, status }
        },
        { subresource: 'status', retryOnConflict: true, admission: { userInfo: SCHEDULER_USER } },
      )
      .catch((err: unknown) => {
        if (toApiError(err).status.code !== 404) throw err
      })
  }

  /** PreBind (volumes) and Bind, then the Scheduled event; a failure takes the assumed pod back. */
  private async bind(pod: Pod, nodeName: string, data: Map<string, unknown>): Promise<void> {
    const key = podKey(pod)
    try {
      await this.bindVolumes(nodeName, delayedClaims(data))
      await bindPod(this.registry!, pod, nodeName)
      this.queue.done(key)
      this.scheduledCount++
      await this.events!.record(pod, 'Normal', 'Scheduled', 'Binding', `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${nodeName}`)
    } catch (err) {
      this.cache.forget(key)
      const status = toApiError(err).status
      // The pod is gone, or bound by someone else: nothing to retry.
      if (status.code === 404 || (status.code === 409 && /already assigned|being deleted/.test(status.message ?? ''))) {
        this.queue.done(key)
        return
      }
      this.log(2, `binding ${key} to ${nodeName}: ${(err as Error).message}`)
      this.queue.retry(key)
      void this.events!.record(pod, 'Warning', 'FailedScheduling', 'Scheduling', `running Bind plugin "DefaultBinder": ${(err as Error).message}`)
      this.kick()
    }
  }

  /**
   * The VolumeBinding PreBind of delayed claims: the chosen node written on each claim for the
   * provisioner (or the PV controller), then a wait until the claims are bound.
   */
  private async bindVolumes(nodeName: string, claims: readonly KubeObject[]): Promise<void> {
    if (claims.length === 0) return
    const pvcs = this.registry!.lookup('', 'v1', 'persistentvolumeclaims')!
    for (const claim of claims) {
      await pvcs.update(
        claim.metadata.namespace,
        claim.metadata.name ?? '',
        (current) => (current.metadata.annotations?.[SELECTED_NODE_ANNOTATION] === nodeName ? current : { ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [SELECTED_NODE_ANNOTATION]: nodeName } } }),
        { retryOnConflict: true, admission: { userInfo: SCHEDULER_USER } },
      )
    }
    const deadline = Date.now() + (this.options.bindTimeoutMs ?? 600_000)
    const bound = (c: KubeObject): boolean => Boolean((this.cache.auxObject('persistentvolumeclaims', c.metadata.namespace ?? '', c.metadata.name ?? '')?.spec as { volumeName?: string } | undefined)?.volumeName)
    while (!claims.every(bound)) {
      if (this.stopped) throw new Error('scheduler stopped')
      if (Date.now() > deadline) throw new Error(`binding volumes: timed out waiting for the condition`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

/** What of a Node the filters read: labels, taints, unschedulable, allocatable. */
function schedulingView(node: Node): string {
  return JSON.stringify([node.metadata.labels ?? {}, nodeSpec(node).taints ?? [], nodeSpec(node).unschedulable ?? false, nodeStatus(node).allocatable ?? {}])
}

/** RunFilterPlugins: the first plugin that rejects the node decides; `removed` pods are left out (the preemption check). */
function runFilters(state: CycleState, node: NodeInfo, removed?: Set<string>): Status | undefined {
  const target = removed && removed.size > 0 ? withoutPods(node, removed) : node
  for (const plugin of FILTER_PLUGINS) {
    const status = plugin.filter(state, target)
    if (status && status.code !== 'Success') return { ...status, plugin: plugin.name }
  }
  return undefined
}

/** A copy of `node` without the `removed` pods (their requests, ports and claims given back). */
function withoutPods(node: NodeInfo, removed: Set<string>): NodeInfo {
  const copy = new NodeInfo(node.node)
  for (const [key, info] of node.pods) if (!removed.has(key)) copy.addPod(info)
  return copy
}
