/**
 * The ReplicaSet controller (the reference's pkg/controller/replicaset, kube-controller-manager's
 * `replicaset-controller`): each ReplicaSet keeps `spec.replicas` active pods made from its
 * template, adopting matching orphans and releasing pods its selector no longer matches;
 * extra pods go in the reference's deletion order; status counts replicas, fully labelled,
 * ready and available (minReadySeconds) pods, with the ReplicaFailure condition when creating
 * or deleting failed. The same engine runs ReplicationControllers (replication-controller.ts).
 */
import type { ObjectChange } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { deepEqual } from '../../core/patch/values.js'
import { matchesLabelSelector } from '../http/selectors.js'
import type { Clock } from './clock.js'
import { controllerOf, controllerRef } from './workloads/controller-ref.js'
import { rankForDeletion } from './workloads/deletion-ranking.js'
import { podFromTemplate, templateOf } from './workloads/pod-from-template.js'
import { isPodActive, isPodAvailable, isPodReady, nodeNameOf } from './workloads/pod-state.js'
import { PODS, type Resource, WorkloadController } from './workloads/workload-controller.js'

/** What differs between the kinds the engine runs. */
export interface ReplicatedKind {
  readonly name: string
  readonly resource: Resource
  readonly apiVersion: string
  readonly kind: string
  readonly component: string
  readonly serviceAccount: string
  /** The owner's selector over a pod's labels. */
  selects(owner: KubeObject, labels: Record<string, string> | undefined): boolean
}

export const REPLICA_SETS: ReplicatedKind = {
  name: 'replicaset-controller',
  resource: { group: 'apps', version: 'v1', resource: 'replicasets' },
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  // pkg/controller/replicaset/replica_set.go NewReplicaSetController: EventSource{Component: "replicaset-controller"}.
  component: 'replicaset-controller',
  serviceAccount: 'replicaset-controller',
  selects: (owner, labels) => {
    const selector = (owner.spec as { selector?: Record<string, unknown> } | undefined)?.selector
    // An absent or empty selector selects nothing here (validation requires one).
    return selector !== undefined && Object.keys(selector).length > 0 && matchesLabelSelector(selector, labels)
  },
}

/** The ReplicaFailure reasons (replica_set_utils.go: FailedCreate / FailedDelete). */
const FAILED_CREATE = 'FailedCreate'
const FAILED_DELETE = 'FailedDelete'

interface ManageError {
  reason: string
  message: string
}

export class ReplicaSetController extends WorkloadController {
  readonly name: string
  protected readonly owner: Resource
  protected readonly component: string
  protected readonly serviceAccount: string

  constructor(
    private readonly kind: ReplicatedKind = REPLICA_SETS,
    clock?: Clock,
  ) {
    super(clock)
    this.name = kind.name
    this.owner = kind.resource
    this.component = kind.component
    this.serviceAccount = kind.serviceAccount
  }

  protected changed(change: ObjectChange): void {
    if (!this.is(change, PODS)) return
    const pod = change.object
    const ref = controllerOf(pod)
    if (ref) return this.enqueueRef(pod.metadata.namespace, ref)
    if (change.type !== 'deleted' && !pod.metadata.deletionTimestamp) void this.enqueueMatching(pod.metadata.namespace, (owner) => this.kind.selects(owner, pod.metadata.labels as Record<string, string>))
  }

  protected async sync(rs: KubeObject): Promise<void> {
    const all = await this.podCandidates(rs)
    const ref = controllerRef(rs, this.kind.apiVersion, this.kind.kind)
    const pods = await this.claim(PODS, all.filter(isPodActive), rs, (pod) => this.kind.selects(rs, pod.metadata.labels as Record<string, string>), ref)
    const failure = rs.metadata.deletionTimestamp ? undefined : await this.manageReplicas(rs, pods)
    const status = this.calculateStatus(rs, pods, failure)
    if (!deepEqual(status, rs.status ?? {})) await this.writeStatus(this.owner, rs, status)
    const minReadySeconds = minReadySecondsOf(rs)
    // As the reference: pods ready but not yet available are looked at again once they may be.
    if (minReadySeconds > 0 && status.readyReplicas !== status.availableReplicas) this.enqueue(rs, minReadySeconds * 1000)
    // As syncReplicaSet returning manageReplicas' error: the queue retries with its back-off.
    if (failure) throw new Error(failure.message)
  }

  /** manageReplicas: create the missing pods or delete the extra ones. */
  private async manageReplicas(rs: KubeObject, pods: KubeObject[]): Promise<ManageError | undefined> {
    const diff = pods.length - replicasOf(rs)
    const ref = controllerRef(rs, this.kind.apiVersion, this.kind.kind)
    if (diff < 0) {
      for (let i = 0; i < -diff; i++) {
        try {
          const pod = podFromTemplate(templateOf(rs), rs.metadata.namespace!, ref)
          const created = await this.store(PODS).create(pod, { admission: this.admission })
          // controller_utils.go RealPodControl.createPods: "Created pod: %v".
          void this.recorder.record(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`)
        } catch (err) {
          // "Error creating: %v" (FailedCreate); the slow-start batch stops at the first failure.
          const message = (err as Error).message
          void this.recorder.record(rs, 'Warning', FAILED_CREATE, `Error creating: ${message}`)
          return { reason: FAILED_CREATE, message }
        }
      }
    } else if (diff > 0) {
      // getPodsRankedByRelatedPodsOnSameNode: the related pods (of every ReplicaSet of the same
      // Deployment) counted per node.
      const perNode = new Map<string, number>()
      for (const pod of await this.relatedPods(rs, pods)) perNode.set(nodeNameOf(pod), (perNode.get(nodeNameOf(pod)) ?? 0) + 1)
      const victims = rankForDeletion(pods, (pod) => perNode.get(nodeNameOf(pod)) ?? 0, this.clock.now()).slice(0, diff)
      for (const pod of victims) {
        try {
          if (await this.remove(PODS, pod)) void this.recorder.record(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`)
        } catch (err) {
          const message = (err as Error).message
          void this.recorder.record(rs, 'Warning', FAILED_DELETE, `Error deleting: ${message}`)
          return { reason: FAILED_DELETE, message }
        }
      }
    }
    return undefined
  }

  /** getIndirectlyRelatedPods: the active pods of the ReplicaSets that share this one's controller (its own alone when it has none). */
  private async relatedPods(rs: KubeObject, own: KubeObject[]): Promise<KubeObject[]> {
    const owner = controllerOf(rs)
    if (!owner) return own
    const siblings = new Set(
      (await this.store(this.owner).list({ namespace: rs.metadata.namespace })).items.filter((other) => controllerOf(other)?.uid === owner.uid).map((other) => other.metadata.uid),
    )
    const related = await Promise.all([...siblings].map((uid) => this.ownedPods(uid!)))
    return related.flat().filter(isPodActive)
  }

  /** calculateStatus (replica_set_utils.go), zero fields left out as the reference's omitempty does. */
  private calculateStatus(rs: KubeObject, pods: KubeObject[], failure: ManageError | undefined): Record<string, unknown> {
    const templateLabels = templateOf(rs).metadata?.labels ?? {}
    const minReadySeconds = minReadySecondsOf(rs)
    const now = this.clock.now()
    const fullyLabeled = pods.filter((pod) => Object.entries(templateLabels).every(([k, v]) => (pod.metadata.labels as Record<string, string> | undefined)?.[k] === v)).length
    const ready = pods.filter(isPodReady).length
    const available = pods.filter((pod) => isPodAvailable(pod, minReadySeconds, now)).length
    const previous = ((rs.status as { conditions?: Array<Record<string, unknown>> } | undefined)?.conditions ?? []).filter((c) => c.type !== 'ReplicaFailure')
    const existingFailure = ((rs.status as { conditions?: Array<Record<string, unknown>> } | undefined)?.conditions ?? []).find((c) => c.type === 'ReplicaFailure')
    const conditions = [...previous]
    if (failure) {
      conditions.push(existingFailure ?? { type: 'ReplicaFailure', status: 'True', lastTransitionTime: isoSeconds(now), reason: failure.reason, message: failure.message })
    }
    const status: Record<string, unknown> = { replicas: pods.length }
    if (fullyLabeled) status.fullyLabeledReplicas = fullyLabeled
    if (ready) status.readyReplicas = ready
    if (available) status.availableReplicas = available
    if (rs.metadata.generation) status.observedGeneration = rs.metadata.generation
    if (conditions.length) status.conditions = conditions
    return status
  }
}

export function replicasOf(obj: KubeObject): number {
  const replicas = (obj.spec as { replicas?: unknown } | undefined)?.replicas
  return typeof replicas === 'number' ? replicas : 1
}

export function minReadySecondsOf(obj: KubeObject): number {
  const seconds = (obj.spec as { minReadySeconds?: unknown } | undefined)?.minReadySeconds
  return typeof seconds === 'number' ? seconds : 0
}

/** A metav1.Time as the API writes it (seconds, UTC). */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}
