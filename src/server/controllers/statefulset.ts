/**
 * The StatefulSet controller (the reference's pkg/controller/statefulset,
 * kube-controller-manager's `statefulset-controller`): pods `<set>-<ordinal>` with stable
 * identity and their claims from volumeClaimTemplates; OrderedReady creates them one at a time,
 * each waiting for the one before to be Running and Ready, and removes the highest first;
 * Parallel does both at once; the template's history is kept as ControllerRevisions, and a
 * RollingUpdate replaces pods from the highest ordinal down to the partition, one at a time;
 * status as the reference counts it (stateful_set_control.go).
 */
import type { ObjectChange } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { deepEqual } from '../../core/patch/values.js'
import { matchesLabelSelector } from '../http/selectors.js'
import { controllerOf, controllerRef } from './workloads/controller-ref.js'
import { POD_REVISION_LABEL, REVISION_HASH_LABEL, newControllerRevision, nextRevision, rawOf, revisionName, revisionNumber, revisionPatch } from './workloads/controller-revision.js'
import { type PodTemplate, templateOf } from './workloads/pod-from-template.js'
import { isPodAvailable, isPodReady, podPhase } from './workloads/pod-state.js'
import { claimOwners, ordinalOf, retentionPolicy, statefulClaims, statefulPod } from './workloads/stateful-pod.js'
import type { OwnerReference } from './workloads/controller-ref.js'
import { hashControllerRevision } from './workloads/template-hash.js'
import { PODS, type Resource, WorkloadController } from './workloads/workload-controller.js'

const REVISIONS: Resource = { group: 'apps', version: 'v1', resource: 'controllerrevisions' }

interface StatefulSetSpec {
  replicas?: number
  selector?: Record<string, unknown>
  podManagementPolicy?: string
  minReadySeconds?: number
  revisionHistoryLimit?: number
  ordinals?: { start?: number }
  updateStrategy?: { type?: string; rollingUpdate?: { partition?: number } }
}

const specOf = (set: KubeObject) => (set.spec ?? {}) as StatefulSetSpec
const revisionOfPod = (pod: KubeObject) => (pod.metadata.labels as Record<string, string> | undefined)?.[POD_REVISION_LABEL] ?? ''
/** isRunningAndReady. */
const healthy = (pod: KubeObject) => podPhase(pod) === 'Running' && isPodReady(pod) && !pod.metadata.deletionTimestamp

export class StatefulSetController extends WorkloadController {
  readonly name = 'statefulset-controller'
  protected readonly owner: Resource = { group: 'apps', version: 'v1', resource: 'statefulsets' }
  // pkg/controller/statefulset/stateful_set.go: EventSource{Component: "statefulset-controller"}.
  protected readonly component = 'statefulset-controller'
  protected readonly serviceAccount = 'statefulset-controller'

  protected changed(change: ObjectChange): void {
    if (!this.is(change, PODS) && !this.is(change, REVISIONS)) return
    const obj = change.object
    const ref = controllerOf(obj)
    if (ref) return this.enqueueRef(obj.metadata.namespace, ref)
    if (change.type !== 'deleted') void this.enqueueMatching(obj.metadata.namespace, (set) => selects(set, obj))
  }

  protected async sync(set: KubeObject): Promise<void> {
    const ref = controllerRef(set, 'apps/v1', 'StatefulSet')
    const { current, update, revisions } = await this.revisions(set)
    const all = await this.podCandidates(set)
    const pods = await this.claim(PODS, all, set, (pod) => selects(set, pod), ref)
    if (!set.metadata.deletionTimestamp) await this.updateStatefulSet(set, pods, current, update)
    const latest = await this.ownedPods(set.metadata.uid!)
    await this.updateStatus(set, latest, current, update)
    await this.truncateHistory(set, latest, revisions, current, update)
  }

  /** getStatefulSetRevisions: the update revision found (raised to the newest) or made; the current one from status. */
  private async revisions(set: KubeObject): Promise<{ current: KubeObject; update: KubeObject; revisions: KubeObject[] }> {
    const ref = controllerRef(set, 'apps/v1', 'StatefulSet')
    const candidates = (await this.store(REVISIONS).list({ namespace: set.metadata.namespace })).items
    const revisions = (await this.claim(REVISIONS, candidates, set, (cr) => selects(set, cr), ref)).sort((a, b) => revisionNumber(a) - revisionNumber(b))
    const collisionCount = (set.status as { collisionCount?: number } | undefined)?.collisionCount ?? 0
    const template = templateOf(set)
    const raw = revisionPatch(template)
    const next = nextRevision(revisions)
    const equal = revisions.filter((cr) => rawOf(cr) === raw)
    let update: KubeObject
    if (equal.length > 0 && equal.at(-1) === revisions.at(-1)) update = equal.at(-1)!
    else if (equal.length > 0) update = (await this.write(REVISIONS, equal.at(-1)!, (cur) => ({ ...cur, revision: next }))) ?? equal.at(-1)!
    else {
      const hash = hashControllerRevision(raw, collisionCount)
      const name = revisionName(set.metadata.name!, hash)
      // The reference's newRevision copies the set's annotations (`kubectl apply --record`'s change-cause) onto the revision.
      const cr = newControllerRevision({ owner: set, ref, labels: { ...template.metadata?.labels, [REVISION_HASH_LABEL]: hash }, raw, revision: next, name, annotations: set.metadata.annotations as Record<string, string> | undefined })
      try {
        update = await this.store(REVISIONS).create(cr, { admission: this.admission })
      } catch (err) {
        if (toApiError(err).status.code !== 409) throw err
        const existing = await this.store(REVISIONS).get(set.metadata.namespace, name)
        if (controllerOf(existing)?.uid !== set.metadata.uid || rawOf(existing) !== raw) {
          await this.writeStatus(this.owner, set, { ...(set.status as object), collisionCount: collisionCount + 1 })
          throw new Error(`found a hash collision for StatefulSet ${JSON.stringify(set.metadata.name)} - bumping collisionCount`)
        }
        update = existing
      }
      revisions.push(update)
    }
    const currentName = (set.status as { currentRevision?: string } | undefined)?.currentRevision
    const current = revisions.find((cr) => cr.metadata.name === currentName) ?? update
    return { current, update, revisions }
  }

  /** The pod template a revision re-applies (ApplyRevision). */
  private templateOf(cr: KubeObject): PodTemplate {
    const template = structuredClone(((cr.data as { spec?: { template?: PodTemplate & { $patch?: string } } } | undefined)?.spec?.template ?? {}) as PodTemplate & { $patch?: string })
    delete template.$patch
    return template
  }

  /** updateStatefulSet (stateful_set_control.go), one step at a time under OrderedReady. */
  private async updateStatefulSet(set: KubeObject, pods: KubeObject[], current: KubeObject, update: KubeObject): Promise<void> {
    const spec = specOf(set)
    const replicas = spec.replicas ?? 1
    const start = spec.ordinals?.start ?? 0
    const monotonic = (spec.podManagementPolicy ?? 'OrderedReady') !== 'Parallel'
    const rolling = (spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate'
    const partition = spec.updateStrategy?.rollingUpdate?.partition ?? 0
    const slots = new Map<number, KubeObject>()
    const condemned: KubeObject[] = []
    for (const pod of pods) {
      const ordinal = ordinalOf(set, pod)
      if (ordinal < 0) continue
      if (ordinal >= start && ordinal < start + replicas) slots.set(ordinal, pod)
      else condemned.push(pod)
    }
    condemned.sort((a, b) => ordinalOf(set, b) - ordinalOf(set, a))
    for (let ordinal = start; ordinal < start + replicas; ordinal++) {
      let pod = slots.get(ordinal)
      if (pod && podPhase(pod) === 'Failed' && !pod.metadata.deletionTimestamp) {
        await this.deletePod(set, pod)
        pod = undefined
        slots.delete(ordinal)
        if (monotonic) return
      }
      if (!pod) {
        // newVersionedStatefulSetPod: ordinals below the partition keep the current revision.
        const useCurrent = rolling && ordinal - start < partition
        const revision = useCurrent ? current : update
        const created = await this.createPod(set, this.templateOf(revision), ordinal, revision.metadata.name!)
        slots.set(ordinal, created)
        if (monotonic) return
        continue
      }
      if (pod.metadata.deletionTimestamp && monotonic) return
      if (!healthy(pod) && monotonic) return
      await this.createMissingClaims(set, ordinal, pod)
    }
    for (const pod of condemned) {
      if (pod.metadata.deletionTimestamp) {
        if (monotonic) return
        continue
      }
      // Scale down waits for every other pod to be healthy under OrderedReady.
      if (monotonic && [...slots.values()].some((p) => !healthy(p))) return
      // whenScaled: Delete: the claims go with the pod (the garbage collector follows the reference).
      if (retentionPolicy(set).whenScaled === 'Delete') await this.ownClaims(set, ordinalOf(set, pod), claimOwners(set, controllerRef(set, 'apps/v1', 'StatefulSet'), pod, true))
      await this.deletePod(set, pod)
      if (monotonic) return
    }
    if (!rolling) return
    const ordered = [...slots.entries()].sort(([a], [b]) => b - a)
    for (const [ordinal, pod] of ordered) {
      if (ordinal - start < partition) break
      if (revisionOfPod(pod) !== update.metadata.name && !pod.metadata.deletionTimestamp) {
        if ([...slots.values()].some((p) => p !== pod && !healthy(p))) return
        await this.deletePod(set, pod)
        return
      }
      if (!healthy(pod)) return
    }
  }

  private async createPod(set: KubeObject, template: PodTemplate, ordinal: number, revision: string): Promise<KubeObject> {
    const pod = statefulPod(set, template, ordinal, revision, controllerRef(set, 'apps/v1', 'StatefulSet'))
    await this.createMissingClaims(set, ordinal, pod)
    try {
      const created = await this.store(PODS).create(pod, { admission: this.admission })
      // stateful_pod_control.go recordPodEvent: "%s Pod %s in StatefulSet %s successful".
      void this.recorder.record(set, 'Normal', 'SuccessfulCreate', `create Pod ${created.metadata.name} in StatefulSet ${set.metadata.name} successful`)
      return created
    } catch (err) {
      if (toApiError(err).status.code === 409) return this.store(PODS).get(set.metadata.namespace, pod.metadata.name!)
      void this.recorder.record(set, 'Warning', 'FailedCreate', `create Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${(err as Error).message}`)
      throw err
    }
  }

  private async deletePod(set: KubeObject, pod: KubeObject): Promise<void> {
    if (await this.remove(PODS, pod)) void this.recorder.record(set, 'Normal', 'SuccessfulDelete', `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`)
  }

  /** createPersistentVolumeClaims: the claims of the ordinal that do not exist yet. */
  private async createMissingClaims(set: KubeObject, ordinal: number, pod: KubeObject): Promise<void> {
    const store = this.registry.lookup('', 'v1', 'persistentvolumeclaims')
    if (!store) return
    for (const claim of statefulClaims(set, ordinal, claimOwners(set, controllerRef(set, 'apps/v1', 'StatefulSet'), pod, false))) {
      try {
        await store.get(claim.metadata.namespace, claim.metadata.name!)
        continue
      } catch (err) {
        if (toApiError(err).status.code !== 404) throw err
      }
      try {
        await store.create(claim, { admission: this.admission })
        // recordClaimEvent: "%s Claim %s Pod %s in StatefulSet %s success".
        void this.recorder.record(set, 'Normal', 'SuccessfulCreate', `create Claim ${claim.metadata.name} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} success`)
      } catch (err) {
        if (toApiError(err).status.code === 409) continue
        void this.recorder.record(set, 'Warning', 'FailedCreate', `create Claim ${claim.metadata.name} for Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${(err as Error).message}`)
        throw err
      }
    }
  }

  /** The ordinal's claims given `owners` in place of the set's and its pods' references. */
  private async ownClaims(set: KubeObject, ordinal: number, owners: OwnerReference[]): Promise<void> {
    const claims: Resource = { group: '', version: 'v1', resource: 'persistentvolumeclaims' }
    if (!this.registry.lookup('', 'v1', 'persistentvolumeclaims')) return
    for (const claim of statefulClaims(set, ordinal)) {
      const current = await this.store(claims).get(claim.metadata.namespace, claim.metadata.name!).catch(() => undefined)
      if (!current) continue
      await this.write(claims, current, (cur) => {
        const kept = ((cur.metadata.ownerReferences as OwnerReference[] | undefined) ?? []).filter((r) => r.uid !== set.metadata.uid && r.kind !== 'Pod')
        return { ...cur, metadata: { ...cur.metadata, ownerReferences: [...kept, ...owners] } }
      })
    }
  }

  /** The status as updateStatefulSet computes it, with completeRollingUpdate. */
  private async updateStatus(set: KubeObject, pods: KubeObject[], current: KubeObject, update: KubeObject): Promise<void> {
    const live = pods.filter((pod) => ordinalOf(set, pod) >= 0 && !pod.metadata.deletionTimestamp)
    const now = this.clock.now()
    const minReady = specOf(set).minReadySeconds ?? 0
    const replicas = live.length
    const ready = live.filter(healthy).length
    const available = live.filter((pod) => healthy(pod) && isPodAvailable(pod, minReady, now)).length
    let currentReplicas = live.filter((pod) => revisionOfPod(pod) === current.metadata.name).length
    const updatedReplicas = live.filter((pod) => revisionOfPod(pod) === update.metadata.name).length
    let currentRevision = current.metadata.name!
    if ((specOf(set).updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' && updatedReplicas === replicas && ready === replicas) {
      currentReplicas = updatedReplicas
      currentRevision = update.metadata.name!
    }
    const previous = (set.status ?? {}) as Record<string, unknown>
    // StatefulSetStatus: replicas and availableReplicas always written, the rest omitempty.
    const status: Record<string, unknown> = { replicas, availableReplicas: available }
    if (set.metadata.generation) status.observedGeneration = set.metadata.generation
    if (ready) status.readyReplicas = ready
    if (currentReplicas) status.currentReplicas = currentReplicas
    if (updatedReplicas) status.updatedReplicas = updatedReplicas
    status.currentRevision = currentRevision
    status.updateRevision = update.metadata.name
    if (previous.collisionCount !== undefined) status.collisionCount = previous.collisionCount
    else status.collisionCount = 0
    if (previous.conditions !== undefined) status.conditions = previous.conditions
    if (!deepEqual(status, previous)) await this.writeStatus(this.owner, set, status)
    if (minReady > 0 && ready !== available) this.enqueue(set, minReady * 1000)
  }

  /** truncateHistory: revisions no pod, current or update uses, beyond revisionHistoryLimit, oldest first. */
  private async truncateHistory(set: KubeObject, pods: KubeObject[], revisions: KubeObject[], current: KubeObject, update: KubeObject): Promise<void> {
    const live = new Set([current.metadata.name, update.metadata.name, ...pods.map(revisionOfPod)])
    const history = revisions.filter((cr) => !live.has(cr.metadata.name)).sort((a, b) => revisionNumber(a) - revisionNumber(b))
    const limit = specOf(set).revisionHistoryLimit ?? 10
    for (const cr of history.slice(0, Math.max(0, history.length - limit))) await this.remove(REVISIONS, cr)
  }
}

function selects(set: KubeObject, obj: KubeObject): boolean {
  const selector = specOf(set).selector
  return selector !== undefined && Object.keys(selector).length > 0 && matchesLabelSelector(selector, obj.metadata.labels as Record<string, string>)
}
