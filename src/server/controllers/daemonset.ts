/**
 * The DaemonSet controller (the reference's pkg/controller/daemon, kube-controller-manager's
 * `daemonset-controller`): one pod per node that the template's node selector, required node
 * affinity and the node's taints admit (with the DaemonSet tolerations), pinned to its node by
 * node affinity on `metadata.name` for the scheduler to bind; pods on nodes that no longer
 * qualify, extra pods and failed pods are deleted; the template's history is kept as
 * ControllerRevisions `<ds>-<hash>` and pods carry `controller-revision-hash`; RollingUpdate
 * replaces old pods within maxUnavailable, or beside them within maxSurge; status counts as
 * updateDaemonSetStatus does.
 */
import type { ObjectChange } from '../api/registry/generic-store.js'
import type { ControllerContext } from './controller.js'
import type { KubeObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { deepEqual } from '../../core/patch/values.js'
import { matchesLabelSelector } from '../http/selectors.js'
import { controllerOf, controllerRef } from './workloads/controller-ref.js'
import { POD_REVISION_LABEL, newControllerRevision, nextRevision, rawOf, revisionName, revisionNumber, revisionPatch } from './workloads/controller-revision.js'
import { ObjectCache } from './workloads/object-cache.js'
import { canonicalJson } from './workloads/template-hash.js'
import { daemonPodTemplate, pinnedToNode, targetNodeName } from './workloads/daemon-pod.js'
import { fitsNodeAffinity, fitsNodeName, toleratesNodeTaints } from './workloads/node-eligibility.js'
import { podFromTemplate, templateOf } from './workloads/pod-from-template.js'
import { isPodAvailable, isPodReady, podPhase } from './workloads/pod-state.js'
import { scaledValue } from './workloads/rollout-math.js'
import { computeHash } from './workloads/template-hash.js'
import { PODS, type Resource, WorkloadController } from './workloads/workload-controller.js'

const NODES: Resource = { group: '', version: 'v1', resource: 'nodes' }
const REVISIONS: Resource = { group: 'apps', version: 'v1', resource: 'controllerrevisions' }

interface DaemonSetSpec {
  selector?: Record<string, unknown>
  minReadySeconds?: number
  revisionHistoryLimit?: number
  updateStrategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string } }
}

const specOf = (ds: KubeObject) => (ds.spec ?? {}) as DaemonSetSpec
const byCreation = (a: KubeObject, b: KubeObject) => String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? '')) || a.metadata.name!.localeCompare(b.metadata.name!)

export class DaemonSetController extends WorkloadController {
  readonly name = 'daemonset-controller'
  protected readonly owner: Resource = { group: 'apps', version: 'v1', resource: 'daemonsets' }
  // pkg/controller/daemon/daemon_controller.go: EventSource{Component: "daemonset-controller"}.
  protected readonly component = 'daemonset-controller'
  protected readonly serviceAccount = 'daemon-set-controller'

  /** The nodes, as the reference's node informer holds them. */
  private readonly nodeCache = new ObjectCache()
  private nodesListed: Promise<void> = Promise.resolve()

  override start(ctx: ControllerContext): void {
    super.start(ctx)
    if (!this.registry || !this.registry.lookup('', 'v1', 'nodes')) return
    this.nodesListed = this.nodeCache.fill(this.store(NODES))
    this.nodesListed.catch((err: Error) => this.log(1, `${this.name}: listing nodes: ${err.message}`))
  }

  protected changed(change: ObjectChange): void {
    const obj = change.object
    if (this.is(change, NODES)) {
      const before = this.nodeCache.get('', obj.metadata.name!)
      this.nodeCache.apply(change)
      // A node added, relabelled, tainted, changing condition or gone: every DaemonSet looks
      // again; heartbeats alone do not (shouldIgnoreNodeUpdate).
      if (change.type !== 'updated' || !before || placementOf(before) !== placementOf(obj)) void this.enqueueMatching(undefined, () => true)
    } else if (this.is(change, PODS) || this.is(change, REVISIONS)) {
      const ref = controllerOf(obj)
      if (ref) return this.enqueueRef(obj.metadata.namespace, ref)
      if (change.type !== 'deleted') void this.enqueueMatching(obj.metadata.namespace, (ds) => selects(ds, obj))
    }
  }

  protected async sync(ds: KubeObject): Promise<void> {
    const ref = controllerRef(ds, 'apps/v1', 'DaemonSet')
    await this.nodesListed
    const nodes = this.nodeCache.list('')
    const { hash, old } = await this.constructHistory(ds)
    const all = await this.podCandidates(ds)
    const pods = (await this.claim(PODS, all, ds, (pod) => selects(ds, pod), ref)).filter((pod) => !pod.metadata.deletionTimestamp)
    if (!ds.metadata.deletionTimestamp) {
      await this.manage(ds, nodes, pods, hash)
      if ((specOf(ds).updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') await this.rollingUpdate(ds, nodes, pods, hash)
      await this.cleanupHistory(ds, old, pods)
    }
    await this.updateStatus(ds, nodes, hash)
  }

  /** nodeShouldRunDaemonPod: the template (with the DaemonSet tolerations) fits the node. */
  private shouldRun(ds: KubeObject, node: KubeObject, hash: string): boolean {
    const spec = daemonPodTemplate(ds, hash).spec ?? {}
    return fitsNodeName(spec, node) && fitsNodeAffinity(spec, node) && toleratesNodeTaints(spec, node)
  }

  private podsByNode(pods: KubeObject[]): Map<string, KubeObject[]> {
    const byNode = new Map<string, KubeObject[]>()
    for (const pod of pods) {
      const node = targetNodeName(pod) ?? ''
      byNode.set(node, [...(byNode.get(node) ?? []), pod])
    }
    return byNode
  }

  /** manage: the missing pods created, the extra, failed and misplaced ones deleted. */
  private async manage(ds: KubeObject, nodes: KubeObject[], pods: KubeObject[], hash: string): Promise<void> {
    const byNode = this.podsByNode(pods)
    const known = new Set(nodes.map((n) => n.metadata.name!))
    const toCreate: string[] = []
    const toDelete: KubeObject[] = []
    for (const node of nodes) {
      const onNode = (byNode.get(node.metadata.name!) ?? []).sort(byCreation)
      if (!this.shouldRun(ds, node, hash)) {
        toDelete.push(...onNode)
        continue
      }
      const failed = onNode.filter((pod) => podPhase(pod) === 'Failed')
      const running = onNode.filter((pod) => podPhase(pod) !== 'Failed')
      toDelete.push(...failed)
      if (running.length === 0) toCreate.push(node.metadata.name!)
      else if (this.surge(ds, 1) === 0) toDelete.push(...running.slice(1))
      else toDelete.push(...this.extraSurgePods(ds, running, hash))
    }
    for (const [node, onNode] of byNode) if (!known.has(node)) toDelete.push(...onNode)
    const template = daemonPodTemplate(ds, hash)
    const ref = controllerRef(ds, 'apps/v1', 'DaemonSet')
    for (const nodeName of toCreate) {
      try {
        const created = await this.store(PODS).create(podFromTemplate(pinnedToNode(template, nodeName), ds.metadata.namespace!, ref), { admission: this.admission })
        void this.recorder.record(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`)
      } catch (err) {
        void this.recorder.record(ds, 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`)
        throw err
      }
    }
    await this.deletePods(ds, toDelete)
  }

  private async deletePods(ds: KubeObject, pods: KubeObject[]): Promise<void> {
    for (const pod of pods) {
      if (await this.remove(PODS, pod)) void this.recorder.record(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`)
    }
  }

  /** maxSurge scaled to the desired nodes (rounded up), 0 unless a RollingUpdate allows it. */
  private surge(ds: KubeObject, desired: number): number {
    const strategy = specOf(ds).updateStrategy
    if ((strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return 0
    return scaledValue(strategy?.rollingUpdate?.maxSurge ?? 0, desired, true)
  }

  /**
   * podsShouldBeOnNode with surge: the oldest new and the oldest old pod may share a node while
   * the new one is not yet available and the old one is ready; every other pod goes.
   */
  private extraSurgePods(ds: KubeObject, running: KubeObject[], hash: string): KubeObject[] {
    const extra: KubeObject[] = []
    let oldestNew: KubeObject | undefined
    let oldestOld: KubeObject | undefined
    for (const pod of running) {
      if (pod.metadata.labels?.[POD_REVISION_LABEL] === hash && !oldestNew) oldestNew = pod
      else if (pod.metadata.labels?.[POD_REVISION_LABEL] !== hash && !oldestOld) oldestOld = pod
      else extra.push(pod)
    }
    if (oldestNew && oldestOld && (!isPodReady(oldestOld) || isPodAvailable(oldestNew, specOf(ds).minReadySeconds ?? 0, this.clock.now()))) extra.push(oldestOld)
    return extra
  }

  /**
   * rollingUpdate (update.go). Without surge: old pods that are not available go at once,
   * available old ones only while the unavailable nodes stay within maxUnavailable. With surge:
   * a new pod is made beside an available old one on up to maxSurge nodes, and the old one goes
   * once the new one is available.
   */
  private async rollingUpdate(ds: KubeObject, nodes: KubeObject[], pods: KubeObject[], hash: string): Promise<void> {
    const byNode = this.podsByNode(pods)
    const wanted = nodes.filter((node) => this.shouldRun(ds, node, hash))
    const maxSurge = this.surge(ds, wanted.length)
    let maxUnavailable = scaledValue(specOf(ds).updateStrategy?.rollingUpdate?.maxUnavailable ?? 1, wanted.length, true)
    if (maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1
    const now = this.clock.now()
    const minReady = specOf(ds).minReadySeconds ?? 0
    if (maxSurge > 0) return this.surgingUpdate(ds, wanted, byNode, hash, maxSurge)
    let unavailable = 0
    const replace: KubeObject[] = []
    const candidates: KubeObject[] = []
    for (const node of wanted) {
      const onNode = byNode.get(node.metadata.name!) ?? []
      const newPod = onNode.find((pod) => pod.metadata.labels?.[POD_REVISION_LABEL] === hash)
      const oldPod = onNode.find((pod) => pod.metadata.labels?.[POD_REVISION_LABEL] !== hash)
      if ((!oldPod && !newPod) || (newPod && !isPodAvailable(newPod, minReady, now))) unavailable++
      else if (oldPod && !newPod) {
        if (!isPodAvailable(oldPod, minReady, now)) {
          replace.push(oldPod)
          unavailable++
        } else candidates.push(oldPod)
      }
    }
    const remaining = Math.max(0, maxUnavailable - unavailable)
    await this.deletePods(ds, [...replace, ...candidates.slice(0, remaining)])
  }

  private async surgingUpdate(ds: KubeObject, wanted: KubeObject[], byNode: Map<string, KubeObject[]>, hash: string, maxSurge: number): Promise<void> {
    const now = this.clock.now()
    const minReady = specOf(ds).minReadySeconds ?? 0
    const oldToDelete: KubeObject[] = []
    const allowed: string[] = []
    const candidates: string[] = []
    let surging = 0
    for (const node of wanted) {
      const onNode = byNode.get(node.metadata.name!) ?? []
      const newPod = onNode.find((pod) => pod.metadata.labels?.[POD_REVISION_LABEL] === hash)
      const oldPod = onNode.find((pod) => pod.metadata.labels?.[POD_REVISION_LABEL] !== hash)
      if (!oldPod) continue
      if (!newPod) {
        // The old pod is not available: its replacement may come at once.
        if (!isPodAvailable(oldPod, minReady, now)) allowed.push(node.metadata.name!)
        else candidates.push(node.metadata.name!)
      } else if (!isPodAvailable(newPod, minReady, now)) surging++
      else oldToDelete.push(oldPod)
    }
    const toCreate = [...allowed, ...candidates.slice(0, Math.max(0, maxSurge - surging))]
    const template = daemonPodTemplate(ds, hash)
    const ref = controllerRef(ds, 'apps/v1', 'DaemonSet')
    for (const nodeName of toCreate) {
      const created = await this.store(PODS).create(podFromTemplate(pinnedToNode(template, nodeName), ds.metadata.namespace!, ref), { admission: this.admission })
      void this.recorder.record(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`)
    }
    await this.deletePods(ds, oldToDelete)
  }

  /** constructHistory: the current revision found (its number raised when older ones follow it) or made. */
  private async constructHistory(ds: KubeObject): Promise<{ hash: string; old: KubeObject[] }> {
    const ref = controllerRef(ds, 'apps/v1', 'DaemonSet')
    const candidates = (await this.store(REVISIONS).list({ namespace: ds.metadata.namespace })).items
    const revisions = await this.claim(REVISIONS, candidates, ds, (cr) => selects(ds, cr), ref)
    const collisionCount = (ds.status as { collisionCount?: number } | undefined)?.collisionCount
    const template = templateOf(ds)
    const hash = computeHash(template, collisionCount)
    const raw = revisionPatch(template)
    const current = revisions.filter((cr) => cr.metadata.labels?.[POD_REVISION_LABEL] === hash && rawOf(cr) === raw).sort((a, b) => revisionNumber(b) - revisionNumber(a))[0]
    const old = revisions.filter((cr) => cr !== current)
    const next = nextRevision(old)
    if (current) {
      if (revisionNumber(current) < next) await this.write(REVISIONS, current, (cur) => ({ ...cur, revision: next }))
      return { hash, old }
    }
    const name = revisionName(ds.metadata.name!, hash)
    const labels = { ...template.metadata?.labels, [POD_REVISION_LABEL]: hash }
    const cr = newControllerRevision({ owner: ds, ref, labels, raw, revision: next, name, annotations: ds.metadata.annotations as Record<string, string> | undefined })
    try {
      await this.store(REVISIONS).create(cr, { admission: this.admission })
    } catch (err) {
      if (toApiError(err).status.code !== 409) throw err
      const existing = await this.store(REVISIONS).get(ds.metadata.namespace, name)
      if (controllerOf(existing)?.uid === ds.metadata.uid && rawOf(existing) === raw) return { hash, old }
      // A hash collision: the next sync hashes with collisionCount + 1.
      await this.writeStatus(this.owner, ds, { ...(ds.status as object), collisionCount: (collisionCount ?? 0) + 1 })
      throw new Error(`found a hash collision for DaemonSet ${JSON.stringify(ds.metadata.name)} - bumping collisionCount`)
    }
    return { hash, old }
  }

  /** cleanupHistory: old revisions beyond revisionHistoryLimit that no live pod runs, oldest first. */
  private async cleanupHistory(ds: KubeObject, old: KubeObject[], pods: KubeObject[]): Promise<void> {
    const limit = specOf(ds).revisionHistoryLimit ?? 10
    const live = new Set(pods.map((pod) => pod.metadata.labels?.[POD_REVISION_LABEL]))
    const unused = old.filter((cr) => !live.has(cr.metadata.labels?.[POD_REVISION_LABEL])).sort((a, b) => revisionNumber(a) - revisionNumber(b))
    for (const cr of unused.slice(0, Math.max(0, old.length - limit))) await this.remove(REVISIONS, cr)
  }

  /** updateDaemonSetStatus, over the pods as they are after this sync. */
  private async updateStatus(ds: KubeObject, nodes: KubeObject[], hash: string): Promise<void> {
    const pods = (await this.ownedPods(ds.metadata.uid!)).filter((pod) => !pod.metadata.deletionTimestamp)
    const byNode = this.podsByNode(pods)
    const now = this.clock.now()
    const minReady = specOf(ds).minReadySeconds ?? 0
    let desired = 0
    let current = 0
    let misscheduled = 0
    let ready = 0
    let available = 0
    let updated = 0
    for (const node of nodes) {
      const onNode = (byNode.get(node.metadata.name!) ?? []).sort(byCreation)
      if (this.shouldRun(ds, node, hash)) {
        desired++
        if (onNode.length === 0) continue
        current++
        const pod = onNode[0]!
        if (isPodReady(pod)) {
          ready++
          if (isPodAvailable(pod, minReady, now)) available++
        }
        if (pod.metadata.labels?.[POD_REVISION_LABEL] === hash) updated++
      } else if (onNode.length > 0) misscheduled++
    }
    const previous = (ds.status ?? {}) as Record<string, unknown>
    // DaemonSetStatus: the first four always written, the rest omitempty.
    const status: Record<string, unknown> = { currentNumberScheduled: current, numberMisscheduled: misscheduled, desiredNumberScheduled: desired, numberReady: ready }
    if (ds.metadata.generation) status.observedGeneration = ds.metadata.generation
    if (updated) status.updatedNumberScheduled = updated
    if (available) status.numberAvailable = available
    if (desired - available > 0) status.numberUnavailable = desired - available
    if (previous.collisionCount !== undefined) status.collisionCount = previous.collisionCount
    if (previous.conditions !== undefined) status.conditions = previous.conditions
    if (!deepEqual(status, previous)) await this.writeStatus(this.owner, ds, status)
    if (minReady > 0 && ready !== available) this.enqueue(ds, minReady * 1000)
  }
}

/** What of a node decides placement: all but its resourceVersion and the heartbeat times of its conditions. */
function placementOf(node: KubeObject): string {
  const status = (node.status ?? {}) as { conditions?: Array<{ type?: string; status?: string }> }
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = node.metadata as Record<string, unknown>
  return canonicalJson({ metadata, spec: node.spec, conditions: (status.conditions ?? []).map((c) => [c.type, c.status]) })
}

function selects(ds: KubeObject, obj: KubeObject): boolean {
  const selector = specOf(ds).selector
  return selector !== undefined && Object.keys(selector).length > 0 && matchesLabelSelector(selector, obj.metadata.labels as Record<string, string>)
}
