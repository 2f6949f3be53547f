/**
 * The disruption controller (the reference's pkg/controller/disruption, kube-controller-manager's
 * `disruption-controller`): each PodDisruptionBudget's status from the pods its selector picks
 * (an empty selector: every pod of the namespace; none: no pod): expectedPods (the pods, or
 * with maxUnavailable or a percentage the scale of their controllers: ReplicaSet, Deployment,
 * ReplicationController, StatefulSet), desiredHealthy, currentHealthy (Ready, not being deleted,
 * not just evicted), disruptionsAllowed, the evicted pods still expected to go
 * (disruptedPods, for DeletionTimeout: 2 min), observedGeneration and the DisruptionAllowed
 * condition (SufficientPods / InsufficientPods; SyncFailed when the scale cannot be found,
 * with no disruption allowed), so that the eviction subresource (../api/handlers/pod-eviction.ts)
 * answers by it. Events are the reference's (NoPods, UnmanagedPods,
 * CalculateExpectedPodCountFailed).
 */
import { labelSelectorRequirements } from '../http/selectors.js'
import type { GenericStore } from '../api/registry/generic-store.js'
import type { Registry } from '../api/registry/registry.js'
import { type KubeObject, nowTimestamp } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { EventRecorder } from './event-recorder.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { KeyedQueue, keyOf, splitKey } from './kit/keyed-queue.js'
import { type OwnerReference, controllerOf } from './kit/owners.js'
import { isDeleting, isPodReady } from './kit/pod-state.js'

const COMPONENT = 'controllermanager'
const ADMISSION = asControllerServiceAccount('disruption-controller')
/** DeletionTimeout: how long an evicted pod is expected to take to go. */
const DELETION_TIMEOUT_MS = 2 * 60_000
/** The kinds whose writes change a budget's expected pods. */
const SCALE_SOURCES = new Set(['apps/replicasets', 'apps/deployments', 'apps/statefulsets', '/replicationcontrollers'])

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})

export interface DisruptionControllerOptions {
  readonly clock?: Clock
  readonly recheckMs?: number
  readonly onError?: (err: Error) => void
}

/** GetScaledValueFromIntOrPercent, rounding up. */
function scaled(value: unknown, total: number): number {
  if (typeof value === 'number') return value
  const text = String(value)
  if (text.endsWith('%')) return Math.ceil((Number(text.slice(0, -1)) * total) / 100)
  return Number(text)
}

export class DisruptionController implements Controller {
  readonly name = 'disruption-controller'
  private queue: KeyedQueue | undefined
  private unsubscribe: (() => void) | undefined
  private registry!: Registry
  private budgets!: GenericStore
  private pods!: GenericStore
  private recorder!: EventRecorder
  private readonly clock: Clock
  /** The budgets of each namespace, to mark when its pods or controllers change. */
  private readonly byNamespace = new Map<string, Set<string>>()

  constructor(private readonly options: DisruptionControllerOptions = {}) {
    this.clock = options.clock ?? SYSTEM_CLOCK
  }

  async start(ctx: ControllerContext): Promise<void> {
    const budgets = ctx.registry.lookup('policy', 'v1', 'poddisruptionbudgets')
    const pods = ctx.registry.lookup('', 'v1', 'pods')
    if (!budgets || !pods) return
    this.registry = ctx.registry
    this.budgets = budgets
    this.pods = pods
    const onError = (err: unknown) => (this.options.onError ?? ((e: Error) => ctx.log(2, `disruption controller: ${e.message}`)))(err as Error)
    this.recorder = new EventRecorder(ctx.registry, COMPONENT, { clock: this.clock, onError })
    this.queue = new KeyedQueue((key) => this.sync(key), { clock: this.clock, recheckMs: this.options.recheckMs ?? 1000, onError })
    this.unsubscribe = ctx.registry.onChange(({ type, object, strategy }) => {
      const namespace = object.metadata.namespace ?? ''
      if (strategy.group === 'policy' && strategy.resource === 'poddisruptionbudgets') {
        const names = this.byNamespace.get(namespace) ?? new Set<string>()
        if (type === 'deleted') names.delete(object.metadata.name!)
        else names.add(object.metadata.name!)
        this.byNamespace.set(namespace, names)
        if (type !== 'deleted') this.queue?.add(keyOf(namespace, object.metadata.name))
      } else if ((strategy.group === '' && strategy.resource === 'pods') || SCALE_SOURCES.has(`${strategy.group}/${strategy.resource}`)) {
        for (const name of this.byNamespace.get(namespace) ?? []) this.queue?.add(keyOf(namespace, name))
      }
    })
    this.queue.start()
    for (const pdb of (await budgets.list()).items) {
      const namespace = pdb.metadata.namespace ?? ''
      this.byNamespace.set(namespace, (this.byNamespace.get(namespace) ?? new Set()).add(pdb.metadata.name!))
      this.queue.add(keyOf(namespace, pdb.metadata.name))
    }
  }

  stop(): void {
    this.unsubscribe?.()
    this.queue?.stop()
  }

  private async sync(key: string): Promise<void> {
    const [namespace, name] = splitKey(key)
    let pdb: KubeObject
    try {
      pdb = await this.budgets.get(namespace, name)
    } catch (err) {
      if (toApiError(err).status.code === 404) return
      throw err
    }
    const pods = await this.podsFor(pdb)
    if (pods.length === 0) await this.recorder.record(pdb, 'Normal', 'NoPods', 'No matching pods found')
    let expected: number
    let desired: number
    try {
      ;({ expected, desired } = await this.expectedPodCount(pdb, pods))
    } catch (err) {
      await this.recorder.record(pdb, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${(err as Error).message}`)
      await this.writeStatus(pdb, { ...obj(pdb.status), disruptionsAllowed: 0 }, 'False', 'SyncFailed', (err as Error).message)
      return
    }
    const now = this.clock.now()
    const { disrupted, recheckAt } = this.disruptedPods(pdb, pods, now)
    const healthy = pods.filter((p) => !isDeleting(p) && !(p.metadata.name! in disrupted) && isPodReady(p)).length
    let allowed = healthy - desired
    if (expected <= 0 || allowed <= 0) allowed = 0
    const status: Obj = {
      ...obj(pdb.status),
      currentHealthy: healthy,
      desiredHealthy: desired,
      expectedPods: expected,
      disruptionsAllowed: allowed,
      observedGeneration: pdb.metadata.generation ?? 1,
    }
    if (Object.keys(disrupted).length > 0) status.disruptedPods = disrupted
    else delete status.disruptedPods
    await this.writeStatus(pdb, status, allowed > 0 ? 'True' : 'False', allowed > 0 ? 'SufficientPods' : 'InsufficientPods', '')
    if (recheckAt !== undefined) this.queue?.addAfter(key, recheckAt - now)
  }

  /** getPodsForPdb: a missing selector picks nothing, an empty one everything. */
  private async podsFor(pdb: KubeObject): Promise<KubeObject[]> {
    const selector = obj(pdb.spec).selector
    if (selector === undefined || selector === null) return []
    return (await this.pods.list({ namespace: pdb.metadata.namespace!, labels: labelSelectorRequirements(selector as Parameters<typeof labelSelectorRequirements>[0]) })).items
  }

  /** getExpectedPodCount. */
  private async expectedPodCount(pdb: KubeObject, pods: KubeObject[]): Promise<{ expected: number; desired: number }> {
    const spec = obj(pdb.spec)
    if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
      const expected = await this.expectedScale(pdb, pods)
      return { expected, desired: Math.max(0, expected - scaled(spec.maxUnavailable, expected)) }
    }
    if (typeof spec.minAvailable === 'number') return { expected: pods.length, desired: spec.minAvailable }
    if (typeof spec.minAvailable === 'string') {
      const expected = await this.expectedScale(pdb, pods)
      return { expected, desired: scaled(spec.minAvailable, expected) }
    }
    return { expected: pods.length, desired: 0 }
  }

  /** getExpectedScale: the sum of the scales of the pods' controllers; pods without one are reported. */
  private async expectedScale(pdb: KubeObject, pods: KubeObject[]): Promise<number> {
    const scales = new Map<string, number>()
    const seen = new Set<string>()
    const unmanaged: string[] = []
    for (const pod of pods) {
      const ref = controllerOf(pod)
      if (!ref) {
        unmanaged.push(pod.metadata.name!)
        continue
      }
      if (seen.has(ref.uid)) continue
      seen.add(ref.uid)
      const found = await this.controllerScale(ref, pod.metadata.namespace!)
      if (!found) throw new Error(`found no controllers for pod ${JSON.stringify(pod.metadata.name)}`)
      scales.set(found.uid, found.scale)
    }
    if (unmanaged.length > 0) {
      const matchLabels = obj(obj(obj(pdb.spec).selector).matchLabels) as Record<string, string>
      const selector = `&LabelSelector{MatchLabels:map[string]string{${Object.keys(matchLabels)
        .sort()
        .map((k) => `${k}: ${matchLabels[k]},`)
        .join('')}},MatchExpressions:[]LabelSelectorRequirement{},}`
      await this.recorder.record(
        pdb,
        'Warning',
        'UnmanagedPods',
        `Pods selected by this PodDisruptionBudget (selector: ${selector}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
      )
    }
    let total = 0
    for (const scale of scales.values()) total += scale
    return total
  }

  /** The finders: ReplicaSet (or the Deployment controlling it), ReplicationController, StatefulSet. */
  private async controllerScale(ref: OwnerReference, namespace: string): Promise<{ uid: string; scale: number } | undefined> {
    const read = async (group: string, resource: string, name: string, uid: string): Promise<KubeObject | undefined> => {
      const store = this.registry.lookup(group, 'v1', resource)
      if (!store) return undefined
      try {
        const found = await store.get(namespace, name)
        return found.metadata.uid === uid ? found : undefined
      } catch (err) {
        if (toApiError(err).status.code === 404) return undefined
        throw err
      }
    }
    const replicas = (o: KubeObject) => (typeof obj(o.spec).replicas === 'number' ? (obj(o.spec).replicas as number) : 1)
    const group = ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0]! : ''
    if (group === 'apps' && ref.kind === 'ReplicaSet') {
      const rs = await read('apps', 'replicasets', ref.name, ref.uid)
      if (!rs) return undefined
      const owner = controllerOf(rs)
      if (owner?.kind === 'Deployment') {
        const deployment = await read('apps', 'deployments', owner.name, owner.uid)
        return deployment ? { uid: deployment.metadata.uid!, scale: replicas(deployment) } : undefined
      }
      return { uid: rs.metadata.uid!, scale: replicas(rs) }
    }
    if (group === '' && ref.kind === 'ReplicationController') {
      const rc = await read('', 'replicationcontrollers', ref.name, ref.uid)
      return rc ? { uid: rc.metadata.uid!, scale: replicas(rc) } : undefined
    }
    if (group === 'apps' && ref.kind === 'StatefulSet') {
      const sts = await read('apps', 'statefulsets', ref.name, ref.uid)
      return sts ? { uid: sts.metadata.uid!, scale: replicas(sts) } : undefined
    }
    return undefined
  }

  /** buildDisruptedPodMap: the evicted pods still expected to go, and when to look again. */
  private disruptedPods(pdb: KubeObject, pods: KubeObject[], now: number): { disrupted: Record<string, string>; recheckAt?: number } {
    const listed = obj(obj(pdb.status).disruptedPods) as Record<string, string>
    const disrupted: Record<string, string> = {}
    let recheckAt: number | undefined
    for (const pod of pods) {
      if (isDeleting(pod)) continue
      const at = listed[pod.metadata.name!]
      if (at === undefined) continue
      const expectedDeletion = Date.parse(at) + DELETION_TIMEOUT_MS
      if (expectedDeletion < now) {
        void this.recorder.record(pod, 'Warning', 'NotDeleted', `Pod was expected by PDB ${pdb.metadata.namespace}/${pdb.metadata.name} to be deleted but it wasn't`)
        continue
      }
      disrupted[pod.metadata.name!] = at
      recheckAt = recheckAt === undefined ? expectedDeletion : Math.min(recheckAt, expectedDeletion)
    }
    return recheckAt === undefined ? { disrupted } : { disrupted, recheckAt }
  }

  /** The status with the DisruptionAllowed condition (apimeta.SetStatusCondition), written when it changed. */
  private async writeStatus(pdb: KubeObject, status: Obj, conditionStatus: 'True' | 'False', reason: string, message: string): Promise<void> {
    const observedGeneration = (status.observedGeneration as number | undefined) ?? pdb.metadata.generation ?? 1
    const conditions = (Array.isArray(status.conditions) ? structuredClone(status.conditions) : []) as Obj[]
    const current = conditions.find((c) => c.type === 'DisruptionAllowed')
    const next: Obj = {
      type: 'DisruptionAllowed',
      status: conditionStatus,
      observedGeneration,
      lastTransitionTime: current && current.status === conditionStatus ? current.lastTransitionTime : nowTimestamp(new Date(this.clock.now())),
      reason,
      message,
    }
    status.conditions = current ? conditions.map((c) => (c === current ? next : c)) : [...conditions, next]
    if (JSON.stringify(status) === JSON.stringify(pdb.status ?? {})) return
    try {
      await this.budgets.update(pdb.metadata.namespace, pdb.metadata.name!, (latest) => ({ ...latest, metadata: { ...latest.metadata, resourceVersion: pdb.metadata.resourceVersion }, status }), {
        subresource: 'status',
        admission: ADMISSION,
      })
    } catch (err) {
      // A newer budget (an eviction took a disruption): synced again from its write.
      if (toApiError(err).status.code !== 409 && toApiError(err).status.code !== 404) throw err
    }
  }
}
