/**
 * The Deployment controller (the reference's pkg/controller/deployment, kube-controller-manager's
 * `deployment-controller`): each Deployment owns ReplicaSets named
 * `<deployment>-<pod-template-hash>`; a template change makes a new one (or finds the old one
 * with the same template, as `kubectl rollout undo` relies on) with the next
 * `deployment.kubernetes.io/revision`; RollingUpdate moves replicas within maxSurge and
 * maxUnavailable, Recreate scales the old ones to zero first; a scaling event or a paused
 * deployment scales proportionally; old ReplicaSets beyond revisionHistoryLimit are deleted;
 * status and the Available / Progressing conditions follow the reference (sync.go,
 * rolling.go, recreate.go, progress.go, util/deployment_util.go).
 */
import type { ObjectChange } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { deepEqual } from '../../core/patch/values.js'
import { matchesLabelSelector } from '../http/selectors.js'
import { isoSeconds } from './replicaset.js'
import { controllerOf, controllerRef } from './workloads/controller-ref.js'
import * as cond from './workloads/deployment-conditions.js'
import { podPhase } from './workloads/pod-state.js'
import { type DeploymentStrategy, isRollingUpdate, maxSurge, maxUnavailable, newRSNewReplicas } from './workloads/rollout-math.js'
import { DESIRED_REPLICAS, MAX_REPLICAS, REVISION, revisionOf, setNewReplicaSetAnnotations, setReplicasAnnotations } from './workloads/revision-annotations.js'
import { computeHash } from './workloads/template-hash.js'
import { PODS, type Resource, WorkloadController } from './workloads/workload-controller.js'

const REPLICA_SETS: Resource = { group: 'apps', version: 'v1', resource: 'replicasets' }
/** DefaultDeploymentUniqueLabelKey. */
export const POD_TEMPLATE_HASH = 'pod-template-hash'

interface DeploymentSpec {
  replicas?: number
  selector?: Record<string, unknown>
  template?: { metadata?: { labels?: Record<string, string> }; [k: string]: unknown }
  strategy?: DeploymentStrategy
  minReadySeconds?: number
  revisionHistoryLimit?: number
  paused?: boolean
  progressDeadlineSeconds?: number
}

interface DeploymentStatus {
  observedGeneration?: number
  replicas?: number
  updatedReplicas?: number
  readyReplicas?: number
  availableReplicas?: number
  unavailableReplicas?: number
  conditions?: cond.DeploymentCondition[]
  collisionCount?: number
}

const specOf = (d: KubeObject) => (d.spec ?? {}) as DeploymentSpec
const statusOf = (d: KubeObject) => (d.status ?? {}) as DeploymentStatus
const replicasOf = (obj: KubeObject) => ((obj.spec as { replicas?: number } | undefined)?.replicas ?? 1)
const rsStatus = (rs: KubeObject) => (rs.status ?? {}) as { replicas?: number; readyReplicas?: number; availableReplicas?: number; observedGeneration?: number; conditions?: cond.DeploymentCondition[] }
const sum = (rss: readonly (KubeObject | undefined)[], f: (rs: KubeObject) => number) => rss.reduce((n, rs) => n + (rs ? f(rs) : 0), 0)
const byCreation = (a: KubeObject, b: KubeObject) => String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? '')) || a.metadata.name!.localeCompare(b.metadata.name!)

/** EqualIgnoreHash: two pod templates equal but for the pod-template-hash label. */
export function equalIgnoreHash(a: unknown, b: unknown): boolean {
  const strip = (t: unknown) => {
    const copy = structuredClone((t ?? {}) as { metadata?: { labels?: Record<string, string> } })
    if (copy.metadata?.labels) {
      delete copy.metadata.labels[POD_TEMPLATE_HASH]
      if (Object.keys(copy.metadata.labels).length === 0) delete copy.metadata.labels
    }
    return copy
  }
  return deepEqual(strip(a), strip(b))
}

export class DeploymentController extends WorkloadController {
  readonly name = 'deployment-controller'
  protected readonly owner: Resource = { group: 'apps', version: 'v1', resource: 'deployments' }
  // pkg/controller/deployment/deployment_controller.go: EventSource{Component: "deployment-controller"}.
  protected readonly component = 'deployment-controller'
  protected readonly serviceAccount = 'deployment-controller'

  protected changed(change: ObjectChange): void {
    const obj = change.object
    if (this.is(change, REPLICA_SETS)) {
      const ref = controllerOf(obj)
      if (ref) return this.enqueueRef(obj.metadata.namespace, ref)
      if (change.type !== 'deleted') void this.enqueueMatching(obj.metadata.namespace, (d) => selects(d, obj))
    } else if (this.is(change, PODS) && change.type === 'deleted') {
      // A Recreate rollout waits for the old pods to be gone (deletePod in the reference).
      const ref = controllerOf(obj)
      if (ref?.kind === 'ReplicaSet') void this.enqueueOwnerOfReplicaSet(obj.metadata.namespace!, ref.name)
    }
  }

  private async enqueueOwnerOfReplicaSet(namespace: string, name: string): Promise<void> {
    try {
      this.enqueueRef(namespace, controllerOf(await this.store(REPLICA_SETS).get(namespace, name)))
    } catch {
      // Gone: nothing to wake.
    }
  }

  protected async sync(d: KubeObject): Promise<void> {
    const namespace = d.metadata.namespace!
    const candidates = (await this.store(REPLICA_SETS).list({ namespace })).items
    const rsList = await this.claim(REPLICA_SETS, candidates, d, (rs) => selects(d, rs), controllerRef(d, 'apps/v1', 'Deployment'))
    if (d.metadata.deletionTimestamp) return this.syncStatusOnly(d, rsList)
    d = await this.checkPausedConditions(d)
    if (specOf(d).paused) return this.syncScale(d, rsList)
    if (this.isScalingEvent(d, rsList)) return this.syncScale(d, rsList)
    if (isRollingUpdate(specOf(d).strategy)) return this.rolloutRolling(d, rsList)
    return this.rolloutRecreate(d, rsList)
  }

  // --- ReplicaSets and revisions (sync.go) ---

  private findNewReplicaSet(d: KubeObject, rsList: KubeObject[]): KubeObject | undefined {
    return [...rsList].sort(byCreation).find((rs) => equalIgnoreHash((rs.spec as DeploymentSpec).template, specOf(d).template))
  }

  /** getAllReplicaSetsAndSyncRevision: the new ReplicaSet (made when `create`) and the old ones. */
  private async allReplicaSets(d: KubeObject, rsList: KubeObject[], create: boolean): Promise<{ d: KubeObject; newRS?: KubeObject; oldRSs: KubeObject[] }> {
    const existing = this.findNewReplicaSet(d, rsList)
    const oldRSs = rsList.filter((rs) => rs !== existing)
    const { d: next, newRS } = await this.getNewReplicaSet(d, existing, oldRSs, create)
    return { d: next, newRS, oldRSs }
  }

  private async getNewReplicaSet(d: KubeObject, existing: KubeObject | undefined, oldRSs: KubeObject[], create: boolean): Promise<{ d: KubeObject; newRS?: KubeObject }> {
    const spec = specOf(d)
    const replicas = spec.replicas ?? 1
    const newRevision = Math.max(0, ...oldRSs.map((rs) => revisionOf(rs.metadata.annotations as Record<string, string>))) + 1
    const surge = { desired: replicas, max: replicas + maxSurge(spec.strategy, replicas) }
    const now = isoSeconds(this.clock.now())
    if (existing) {
      let rs = existing
      const annotations = { ...(rs.metadata.annotations as Record<string, string> | undefined) }
      const annotationsUpdated = setNewReplicaSetAnnotations(d.metadata.annotations as Record<string, string>, annotations, newRevision, true, surge)
      if (annotationsUpdated || (rs.spec as DeploymentSpec).minReadySeconds !== spec.minReadySeconds) {
        rs =
          (await this.write(REPLICA_SETS, rs, (current) => ({
            ...current,
            metadata: { ...current.metadata, annotations },
            spec: { ...(current.spec as object), minReadySeconds: spec.minReadySeconds ?? 0 },
          }))) ?? rs
      }
      d = await this.setDeploymentRevision(d, rs.metadata.annotations?.[REVISION] as string | undefined)
      const status = statusOf(d)
      if (spec.progressDeadlineSeconds !== undefined && !cond.getCondition(status.conditions, cond.PROGRESSING)) {
        const conditions = cond.setCondition(status.conditions ?? [], cond.newCondition(cond.PROGRESSING, 'True', cond.FOUND_NEW_RS, cond.messages.found(rs.metadata.name!), now))
        d = (await this.writeStatus(this.owner, d, { ...status, conditions })) ?? d
      }
      return { d, newRS: rs }
    }
    if (!create) return { d }
    const hash = computeHash(spec.template, statusOf(d).collisionCount)
    const template = structuredClone(spec.template ?? {})
    template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, [POD_TEMPLATE_HASH]: hash } }
    const selector = structuredClone(spec.selector ?? {}) as { matchLabels?: Record<string, string> }
    selector.matchLabels = { ...selector.matchLabels, [POD_TEMPLATE_HASH]: hash }
    const newReplicas = newRSNewReplicas(spec.strategy, replicas, sum(oldRSs, replicasOf), 0)
    const annotations: Record<string, string> = {}
    setNewReplicaSetAnnotations(d.metadata.annotations as Record<string, string>, annotations, newRevision, false, surge)
    const rs: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: `${d.metadata.name}-${hash}`, namespace: d.metadata.namespace, labels: template.metadata.labels, annotations, ownerReferences: [controllerRef(d, 'apps/v1', 'Deployment')] },
      spec: { replicas: newReplicas, minReadySeconds: spec.minReadySeconds ?? 0, selector, template },
    }
    let created: KubeObject
    try {
      created = await this.store(REPLICA_SETS).create(rs, { admission: this.admission })
    } catch (err) {
      if (toApiError(err).status.code === 409) {
        // A ReplicaSet of that name with another template: a hash collision; the next hash is
        // tried with collisionCount + 1 (the reference's handling of AlreadyExists).
        const other = await this.store(REPLICA_SETS).get(d.metadata.namespace, rs.metadata.name!)
        if (controllerOf(other)?.uid === d.metadata.uid && equalIgnoreHash((other.spec as DeploymentSpec).template, spec.template)) return { d, newRS: other }
        const status = statusOf(d)
        await this.writeStatus(this.owner, d, { ...status, collisionCount: (status.collisionCount ?? 0) + 1 })
        throw new Error(`found a hash collision for deployment ${JSON.stringify(d.metadata.name)} - bumping collisionCount`)
      }
      const message = `Failed to create new replica set ${JSON.stringify(rs.metadata.name)}: ${(err as Error).message}`
      void this.recorder.record(d, 'Warning', 'ReplicaSetCreateError', message)
      if (spec.progressDeadlineSeconds !== undefined) {
        const status = statusOf(d)
        await this.writeStatus(this.owner, d, { ...status, conditions: cond.setCondition(status.conditions ?? [], cond.newCondition(cond.PROGRESSING, 'False', 'ReplicaSetCreateError', message, now)) })
      }
      throw err
    }
    // sync.go getNewReplicaSet: "Scaled up replica set %s to %d" on creation.
    if (newReplicas > 0) void this.recorder.record(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata.name} to ${newReplicas}`)
    d = await this.setDeploymentRevision(d, String(newRevision))
    if (spec.progressDeadlineSeconds !== undefined) {
      const status = statusOf(d)
      const conditions = cond.setCondition(status.conditions ?? [], cond.newCondition(cond.PROGRESSING, 'True', cond.NEW_RS_CREATED, cond.messages.created(created.metadata.name!), now))
      d = (await this.writeStatus(this.owner, d, { ...status, conditions })) ?? d
    }
    return { d, newRS: created }
  }

  /**
   * SetDeploymentRevision. The reference writes the annotation through UpdateStatus, whose
   * strategy keeps metadata; here the status subresource keeps only status, so it is a write
   * of the object (no spec change, so no new generation).
   */
  private async setDeploymentRevision(d: KubeObject, revision: string | undefined): Promise<KubeObject> {
    if (revision === undefined || d.metadata.annotations?.[REVISION] === revision) return d
    return (await this.write(this.owner, d, (current) => ({ ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [REVISION]: revision } } }))) ?? d
  }

  /** scaleReplicaSetAndRecordEvent / scaleReplicaSet: "Scaled %s replica set %s to %d from %d". */
  private async scaleReplicaSet(d: KubeObject, rs: KubeObject, newScale: number): Promise<{ scaled: boolean; rs: KubeObject }> {
    const oldScale = replicasOf(rs)
    const replicas = specOf(d).replicas ?? 1
    const annotations = { ...(rs.metadata.annotations as Record<string, string> | undefined) }
    const annotationsChanged = setReplicasAnnotations(annotations, replicas, replicas + maxSurge(specOf(d).strategy, replicas))
    if (oldScale === newScale && !annotationsChanged) return { scaled: false, rs }
    const written = await this.write(REPLICA_SETS, rs, (current) => ({ ...current, metadata: { ...current.metadata, annotations }, spec: { ...(current.spec as object), replicas: newScale } }))
    if (!written) return { scaled: false, rs }
    if (oldScale !== newScale) {
      void this.recorder.record(d, 'Normal', 'ScalingReplicaSet', `Scaled ${oldScale < newScale ? 'up' : 'down'} replica set ${rs.metadata.name} to ${newScale} from ${oldScale}`)
    }
    return { scaled: oldScale !== newScale, rs: written }
  }

  // --- rollouts (rolling.go, recreate.go) ---

  private async rolloutRolling(d0: KubeObject, rsList: KubeObject[]): Promise<void> {
    const { d, newRS, oldRSs } = await this.allReplicaSets(d0, rsList, true)
    let all = [...oldRSs, newRS!]
    const grown = await this.reconcileNewReplicaSet(d, all, newRS!)
    if (grown.scaled) return this.syncRolloutStatus(d, [...oldRSs, grown.rs], grown.rs)
    const shrunk = await this.reconcileOldReplicaSets(d, all, oldRSs.filter((rs) => replicasOf(rs) > 0), newRS!)
    all = [...shrunk.oldRSs, newRS!]
    if (shrunk.scaled) return this.syncRolloutStatus(d, all, newRS)
    if (this.deploymentComplete(d, this.calculateStatus(d, all, newRS))) await this.cleanupDeployment(d, shrunk.oldRSs)
    await this.syncRolloutStatus(d, all, newRS)
  }

  private async reconcileNewReplicaSet(d: KubeObject, all: KubeObject[], newRS: KubeObject): Promise<{ scaled: boolean; rs: KubeObject }> {
    const replicas = specOf(d).replicas ?? 1
    if (replicasOf(newRS) === replicas) return { scaled: false, rs: newRS }
    if (replicasOf(newRS) > replicas) return this.scaleReplicaSet(d, newRS, replicas)
    return this.scaleReplicaSet(d, newRS, newRSNewReplicas(specOf(d).strategy, replicas, sum(all, replicasOf), replicasOf(newRS)))
  }

  /** reconcileOldReplicaSets: unhealthy old replicas first, then old ones down while minAvailable holds. */
  private async reconcileOldReplicaSets(d: KubeObject, all: KubeObject[], active: KubeObject[], newRS: KubeObject): Promise<{ scaled: boolean; oldRSs: KubeObject[] }> {
    let oldRSs = all.filter((rs) => rs !== newRS)
    if (sum(oldRSs, replicasOf) === 0) return { scaled: false, oldRSs }
    const replicas = specOf(d).replicas ?? 1
    const minAvailable = replicas - maxUnavailable(specOf(d).strategy, replicas)
    const newUnavailable = replicasOf(newRS) - (rsStatus(newRS).availableReplicas ?? 0)
    const maxScaledDown = sum(all, replicasOf) - minAvailable - newUnavailable
    if (maxScaledDown <= 0) return { scaled: false, oldRSs }
    let changed = 0
    // cleanupUnhealthyReplicas.
    let cleaned = 0
    const replace = (from: KubeObject, to: KubeObject) => {
      oldRSs = oldRSs.map((rs) => (rs === from ? to : rs))
    }
    for (const rs of [...active].sort(byCreation)) {
      if (cleaned >= maxScaledDown) break
      const available = rsStatus(rs).availableReplicas ?? 0
      if (replicasOf(rs) === 0 || replicasOf(rs) === available) continue
      const down = Math.min(maxScaledDown - cleaned, replicasOf(rs) - available)
      const result = await this.scaleReplicaSet(d, rs, replicasOf(rs) - down)
      replace(rs, result.rs)
      cleaned += down
    }
    changed += cleaned
    // scaleDownOldReplicaSetsForRollingUpdate.
    const availableNow = sum([...oldRSs, newRS], (rs) => rsStatus(rs).availableReplicas ?? 0)
    if (availableNow > minAvailable) {
      const total = availableNow - minAvailable
      let done = 0
      for (const rs of oldRSs.filter((r) => replicasOf(r) > 0).sort(byCreation)) {
        if (done >= total) break
        const down = Math.min(replicasOf(rs), total - done)
        const result = await this.scaleReplicaSet(d, rs, replicasOf(rs) - down)
        replace(rs, result.rs)
        done += down
      }
      changed += done
    }
    return { scaled: changed > 0, oldRSs }
  }

  private async rolloutRecreate(d0: KubeObject, rsList: KubeObject[]): Promise<void> {
    let { d, newRS, oldRSs } = await this.allReplicaSets(d0, rsList, false)
    let scaledDown = false
    for (const [i, rs] of oldRSs.entries()) {
      if (replicasOf(rs) === 0) continue
      const result = await this.scaleReplicaSet(d, rs, 0)
      oldRSs[i] = result.rs
      scaledDown ||= result.scaled
    }
    if (scaledDown) return this.syncRolloutStatus(d, [...oldRSs, ...(newRS ? [newRS] : [])], newRS)
    if (await this.oldPodsRunning(oldRSs)) return this.syncRolloutStatus(d, [...oldRSs, ...(newRS ? [newRS] : [])], newRS)
    if (!newRS) ({ d, newRS } = await this.getNewReplicaSet(d, undefined, oldRSs, true))
    newRS = (await this.scaleReplicaSet(d, newRS!, specOf(d).replicas ?? 1)).rs
    const all = [...oldRSs, newRS]
    if (this.deploymentComplete(d, this.calculateStatus(d, all, newRS))) await this.cleanupDeployment(d, oldRSs)
    await this.syncRolloutStatus(d, all, newRS)
  }

  /** oldPodsRunning: old ReplicaSets still count replicas, or any of their pods has not finished. */
  private async oldPodsRunning(oldRSs: KubeObject[]): Promise<boolean> {
    if (sum(oldRSs, (rs) => rsStatus(rs).replicas ?? 0) > 0) return true
    if (oldRSs.length === 0) return false
    for (const rs of oldRSs) {
      if ((await this.ownedPods(rs.metadata.uid!)).some((pod) => !['Failed', 'Succeeded'].includes(podPhase(pod)))) return true
    }
    return false
  }

  // --- scaling and pausing (sync.go) ---

  /** isScalingEvent: an active ReplicaSet's desired-replicas annotation differs from spec.replicas. */
  private isScalingEvent(d: KubeObject, rsList: KubeObject[]): boolean {
    const replicas = specOf(d).replicas ?? 1
    return rsList.some((rs) => replicasOf(rs) > 0 && rs.metadata.annotations?.[DESIRED_REPLICAS] !== undefined && rs.metadata.annotations[DESIRED_REPLICAS] !== String(replicas))
  }

  /** sync: scale (proportionally), clean up when paused, and write the status. */
  private async syncScale(d0: KubeObject, rsList: KubeObject[]): Promise<void> {
    const { d, newRS, oldRSs } = await this.allReplicaSets(d0, rsList, false)
    const all = await this.scale(d, newRS, oldRSs)
    const next = all.find((rs) => rs.metadata.uid === newRS?.metadata.uid)
    if (specOf(d).paused) await this.cleanupDeployment(d, all.filter((rs) => rs !== next))
    await this.syncDeploymentStatus(d, all, next)
  }

  /** scale: the only active ReplicaSet takes the new size; several share it in proportion to their size. */
  private async scale(d: KubeObject, newRS: KubeObject | undefined, oldRSs: KubeObject[]): Promise<KubeObject[]> {
    let all = [...oldRSs, ...(newRS ? [newRS] : [])]
    const replicas = specOf(d).replicas ?? 1
    const active = all.filter((rs) => replicasOf(rs) > 0)
    const only = active.length === 1 ? active[0] : active.length === 0 ? (newRS ?? [...oldRSs].sort(byCreation).at(-1)) : undefined
    const replace = (from: KubeObject, to: KubeObject) => {
      all = all.map((rs) => (rs === from ? to : rs))
    }
    if (only) {
      if (replicasOf(only) !== replicas) replace(only, (await this.scaleReplicaSet(d, only, replicas)).rs)
      return all
    }
    // IsSaturated: the new ReplicaSet has all the replicas, available; the old ones go to zero.
    if (newRS && replicasOf(newRS) === replicas && (rsStatus(newRS).availableReplicas ?? 0) === replicas) {
      for (const rs of oldRSs) if (replicasOf(rs) > 0) replace(rs, (await this.scaleReplicaSet(d, rs, 0)).rs)
      return all
    }
    if (!isRollingUpdate(specOf(d).strategy)) return all
    const allowed = replicas + maxSurge(specOf(d).strategy, replicas)
    const toAdd = allowed - sum(active, replicasOf)
    if (toAdd === 0) return all
    // Larger first (newer first when adding, older first when removing), the leftover to the largest.
    const ordered = [...active].sort((a, b) => replicasOf(b) - replicasOf(a) || (toAdd > 0 ? byCreation(b, a) : byCreation(a, b)))
    const sizes = new Map<KubeObject, number>()
    let added = 0
    for (const rs of ordered) {
      const annotated = Number.parseInt(rs.metadata.annotations?.[MAX_REPLICAS] ?? '', 10)
      const base = Number.isNaN(annotated) ? (statusOf(d).replicas ?? 0) : annotated
      let proportion = 0
      if (added !== toAdd) {
        const fraction = replicas === 0 ? -replicasOf(rs) : Math.round((replicasOf(rs) * allowed) / (base || 1)) - replicasOf(rs)
        proportion = toAdd > 0 ? Math.min(fraction, toAdd - added) : Math.max(fraction, toAdd - added)
      }
      sizes.set(rs, replicasOf(rs) + proportion)
      added += proportion
    }
    if (ordered[0] && added !== toAdd) sizes.set(ordered[0], Math.max(0, sizes.get(ordered[0])! + toAdd - added))
    for (const rs of ordered) replace(rs, (await this.scaleReplicaSet(d, rs, Math.max(0, sizes.get(rs)!))).rs)
    return all
  }

  /** checkPausedConditions: Progressing Unknown with DeploymentPaused / DeploymentResumed. */
  private async checkPausedConditions(d: KubeObject): Promise<KubeObject> {
    const spec = specOf(d)
    if (spec.progressDeadlineSeconds === undefined) return d
    const status = statusOf(d)
    const current = cond.getCondition(status.conditions, cond.PROGRESSING)
    if (current?.reason === cond.TIMED_OUT) return d
    const pausedSet = current?.reason === cond.PAUSED
    const now = isoSeconds(this.clock.now())
    let conditions: cond.DeploymentCondition[] | undefined
    if (spec.paused && !pausedSet) conditions = cond.setCondition(status.conditions ?? [], cond.newCondition(cond.PROGRESSING, 'Unknown', cond.PAUSED, cond.messages.paused, now))
    else if (!spec.paused && pausedSet) conditions = cond.setCondition(status.conditions ?? [], cond.newCondition(cond.PROGRESSING, 'Unknown', cond.RESUMED, cond.messages.resumed, now))
    if (!conditions) return d
    return (await this.writeStatus(this.owner, d, { ...status, conditions })) ?? d
  }

  /** cleanupDeployment: old ReplicaSets beyond revisionHistoryLimit, oldest revision first, once empty. */
  private async cleanupDeployment(d: KubeObject, oldRSs: KubeObject[]): Promise<void> {
    const limit = specOf(d).revisionHistoryLimit
    if (limit === undefined) return
    const cleanable = oldRSs.filter((rs) => !rs.metadata.deletionTimestamp)
    const diff = cleanable.length - limit
    if (diff <= 0) return
    const byRevision = [...cleanable].sort((a, b) => revisionOf(a.metadata.annotations as Record<string, string>) - revisionOf(b.metadata.annotations as Record<string, string>) || byCreation(a, b))
    for (const rs of byRevision.slice(0, diff)) {
      if ((rsStatus(rs).replicas ?? 0) !== 0 || replicasOf(rs) !== 0 || (rs.metadata.generation ?? 0) > (rsStatus(rs).observedGeneration ?? 0)) continue
      await this.remove(REPLICA_SETS, rs)
    }
  }

  // --- status (sync.go calculateStatus, progress.go) ---

  private calculateStatus(d: KubeObject, all: KubeObject[], newRS: KubeObject | undefined): DeploymentStatus {
    const replicas = specOf(d).replicas ?? 1
    const available = sum(all, (rs) => rsStatus(rs).availableReplicas ?? 0)
    const previous = statusOf(d)
    const status: DeploymentStatus = {
      observedGeneration: d.metadata.generation,
      replicas: sum(all, (rs) => rsStatus(rs).replicas ?? 0),
      updatedReplicas: newRS ? (rsStatus(newRS).replicas ?? 0) : 0,
      readyReplicas: sum(all, (rs) => rsStatus(rs).readyReplicas ?? 0),
      availableReplicas: available,
      unavailableReplicas: Math.max(0, sum(all, replicasOf) - available),
      conditions: [...(previous.conditions ?? [])],
      ...(previous.collisionCount !== undefined ? { collisionCount: previous.collisionCount } : {}),
    }
    const now = isoSeconds(this.clock.now())
    status.conditions =
      available >= replicas - maxUnavailable(specOf(d).strategy, replicas)
        ? cond.setCondition(status.conditions!, cond.newCondition(cond.AVAILABLE, 'True', cond.MINIMUM_AVAILABLE, cond.messages.minimumAvailable, now))
        : cond.setCondition(status.conditions!, cond.newCondition(cond.AVAILABLE, 'False', cond.MINIMUM_UNAVAILABLE, cond.messages.minimumUnavailable, now))
    return status
  }

  /** DeploymentComplete. */
  private deploymentComplete(d: KubeObject, status: DeploymentStatus): boolean {
    const replicas = specOf(d).replicas ?? 1
    return status.updatedReplicas === replicas && status.replicas === replicas && status.availableReplicas === replicas && (status.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
  }

  /** syncDeploymentStatus: the status alone (scaling, paused). */
  private async syncDeploymentStatus(d: KubeObject, all: KubeObject[], newRS: KubeObject | undefined): Promise<void> {
    const status = this.calculateStatus(d, all, newRS)
    if (!deepEqual(compact(status), d.status ?? {})) await this.writeStatus(this.owner, d, compact(status))
  }

  private async syncStatusOnly(d0: KubeObject, rsList: KubeObject[]): Promise<void> {
    const { d, newRS, oldRSs } = await this.allReplicaSets(d0, rsList, false)
    await this.syncDeploymentStatus(d, [...oldRSs, ...(newRS ? [newRS] : [])], newRS)
  }

  /** syncRolloutStatus: the status with the Progressing condition (progress.go). */
  private async syncRolloutStatus(d: KubeObject, all: KubeObject[], newRS: KubeObject | undefined): Promise<void> {
    const spec = specOf(d)
    const status = this.calculateStatus(d, all, newRS)
    const now = this.clock.now()
    const nowText = isoSeconds(now)
    const hasDeadline = spec.progressDeadlineSeconds !== undefined && spec.progressDeadlineSeconds !== 2147483647
    if (!hasDeadline) status.conditions = cond.removeCondition(status.conditions!, cond.PROGRESSING)
    const current = cond.getCondition(status.conditions, cond.PROGRESSING)
    const complete = status.replicas === status.updatedReplicas && current?.reason === cond.NEW_RS_AVAILABLE
    if (hasDeadline && !complete) {
      const name = newRS?.metadata.name
      if (this.deploymentComplete(d, status)) {
        const message = name ? cond.messages.progressed(name) : cond.messages.deploymentProgressed(d.metadata.name!)
        status.conditions = cond.setCondition(status.conditions!, cond.newCondition(cond.PROGRESSING, 'True', cond.NEW_RS_AVAILABLE, message, nowText))
      } else if (this.deploymentProgressing(d, status)) {
        const message = name ? cond.messages.progressing(name) : cond.messages.deploymentProgressing(d.metadata.name!)
        const next = cond.newCondition(cond.PROGRESSING, 'True', cond.RS_UPDATED, message, nowText)
        // Progress moves lastUpdateTime on, keeping lastTransitionTime while it stays True.
        if (current?.status === 'True') next.lastTransitionTime = current.lastTransitionTime
        status.conditions = [...cond.removeCondition(status.conditions!, cond.PROGRESSING), next]
      } else if (this.timedOut(d, current, now)) {
        const message = name ? cond.messages.timedOut(name) : cond.messages.deploymentTimedOut(d.metadata.name!)
        status.conditions = cond.setCondition(status.conditions!, cond.newCondition(cond.PROGRESSING, 'False', cond.TIMED_OUT, message, nowText))
      }
    }
    // The ReplicaSets' ReplicaFailure condition is carried over (getReplicaFailures).
    const failure = all.map((rs) => cond.getCondition(rsStatus(rs).conditions, cond.REPLICA_FAILURE)).find((c) => c !== undefined)
    if (failure) status.conditions = cond.setCondition(status.conditions!, cond.newCondition(cond.REPLICA_FAILURE, failure.status, failure.reason ?? '', failure.message ?? '', nowText))
    else status.conditions = cond.removeCondition(status.conditions!, cond.REPLICA_FAILURE)
    const written = compact(status)
    if (!deepEqual(written, d.status ?? {})) await this.writeStatus(this.owner, d, written)
    // requeueStuckDeployment: look again when the deadline would pass.
    const progressing = cond.getCondition(status.conditions, cond.PROGRESSING)
    if (hasDeadline && progressing && progressing.reason !== cond.TIMED_OUT && !this.deploymentComplete(d, status)) {
      const due = Date.parse(progressing.lastUpdateTime ?? '') + spec.progressDeadlineSeconds! * 1000 - now
      if (!Number.isNaN(due)) this.enqueue(d, Math.max(1000, due + 1000))
    }
  }

  /** DeploymentProgressing: more updated, fewer old, more ready or more available replicas than recorded. */
  private deploymentProgressing(d: KubeObject, next: DeploymentStatus): boolean {
    const old = statusOf(d)
    const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0)
    const newOld = (next.replicas ?? 0) - (next.updatedReplicas ?? 0)
    return (
      (next.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
      newOld < oldOld ||
      (next.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
      (next.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
    )
  }

  /** DeploymentTimedOut: no progress since the Progressing condition's lastUpdateTime plus the deadline. */
  private timedOut(d: KubeObject, current: cond.DeploymentCondition | undefined, now: number): boolean {
    if (!current) return false
    if (current.reason === cond.TIMED_OUT) return true
    if (current.reason === cond.NEW_RS_AVAILABLE) return false
    const from = Date.parse(current.lastUpdateTime ?? '')
    return !Number.isNaN(from) && from + specOf(d).progressDeadlineSeconds! * 1000 < now
  }
}

function selects(d: KubeObject, obj: KubeObject): boolean {
  const selector = specOf(d).selector
  return selector !== undefined && Object.keys(selector).length > 0 && matchesLabelSelector(selector, obj.metadata.labels as Record<string, string>)
}

/** The status as the reference serializes it: zero counts left out (every DeploymentStatus field is omitempty). */
function compact(status: DeploymentStatus): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(status)) {
    if (v === undefined || (v === 0 && k !== 'collisionCount') || (Array.isArray(v) && v.length === 0)) continue
    out[k] = v
  }
  return out
}
