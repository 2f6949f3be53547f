/**
 * What the workload controllers (replicaset, replicationcontroller, deployment, daemonset,
 * statefulset) share, as the reference's share an informer-fed work queue: they follow the
 * registry's writes, turn each into the keys of the objects to sync, sync one key at a time,
 * and write as their own ServiceAccount. Time is the cluster's clock.
 */
import type { AdmissionRequest } from '../../api/registry/admission-hook.js'
import type { GenericStore, ObjectChange } from '../../api/registry/generic-store.js'
import type { KubeObject } from '../../api/registry/object.js'
import type { Registry } from '../../api/registry/registry.js'
import { toApiError } from '../../api/status-errors.js'
import { type Clock, SYSTEM_CLOCK } from '../clock.js'
import type { Controller, ControllerContext } from '../controller.js'
import { EventRecorder } from '../event-recorder.js'
import { type Claim, type OwnerReference, claimOf, withOwner, withoutOwner } from './controller-ref.js'
import { controllerAdmission } from './controller-identity.js'
import { ObjectCache } from './object-cache.js'
import { SyncQueue, keyOf, splitKey } from './sync-queue.js'

export interface Resource {
  readonly group: string
  readonly version: string
  readonly resource: string
}

export const PODS: Resource = { group: '', version: 'v1', resource: 'pods' }

export abstract class WorkloadController implements Controller {
  abstract readonly name: string
  /** The kind this controller syncs. */
  protected abstract readonly owner: Resource
  /** The reference's event source component and ServiceAccount. */
  protected abstract readonly component: string
  protected abstract readonly serviceAccount: string

  protected registry!: Registry
  protected recorder!: EventRecorder
  protected log: ControllerContext['log'] = () => {}
  protected admission!: AdmissionRequest
  private unsubscribe: (() => void) | undefined
  /** The pods, as the reference's pod informer holds them. */
  private readonly podCache = new ObjectCache()
  private podsListed: Promise<void> = Promise.resolve()
  protected readonly queue = new SyncQueue(
    (key) => this.syncKey(key),
    (key, err) => this.log(2, `${this.name}: error syncing ${key}: ${(err as Error).message}`),
  )

  constructor(protected readonly clock: Clock = SYSTEM_CLOCK) {}

  start(ctx: ControllerContext): void {
    const { group, version, resource } = this.owner
    if (!ctx.registry.lookup(group, version, resource) || !ctx.registry.lookup('', 'v1', 'pods')) return
    this.registry = ctx.registry
    this.log = ctx.log
    this.admission = controllerAdmission(this.serviceAccount)
    this.recorder = new EventRecorder(ctx.registry, this.component, { clock: this.clock, onError: (err) => this.log(4, `${this.name}: event: ${err.message}`) })
    this.unsubscribe = ctx.registry.onChange((change) => {
      if (this.is(change, PODS)) this.podCache.apply(change)
      if (this.is(change, this.owner)) this.enqueue(change.object)
      else this.changed(change)
    })
    this.podsListed = this.podCache.fill(this.store(PODS))
    this.podsListed.catch((err: Error) => this.log(1, `${this.name}: listing pods: ${err.message}`))
    void this.enqueueAll()
  }

  stop(): void {
    this.unsubscribe?.()
    this.unsubscribe = undefined
    this.queue.stop()
  }

  /** A write of another kind than the owner's: the keys it touches are enqueued. */
  protected abstract changed(change: ObjectChange): void
  /** Brings one object (still there) to its desired state. */
  protected abstract sync(obj: KubeObject): Promise<void>

  /** The namespace's pods, from the cache (the registry's objects: never change them). */
  protected async pods(namespace: string): Promise<KubeObject[]> {
    await this.podsListed
    return this.podCache.list(namespace)
  }

  /** The pods `owner` controls, and the orphans of its namespace it might adopt. */
  protected async podCandidates(owner: KubeObject): Promise<KubeObject[]> {
    await this.podsListed
    return [...this.podCache.owned(owner.metadata.uid!), ...this.podCache.orphans(owner.metadata.namespace!)]
  }

  /** The pods controlled by `uid`. */
  protected async ownedPods(uid: string): Promise<KubeObject[]> {
    await this.podsListed
    return this.podCache.owned(uid)
  }

  protected is(change: ObjectChange, r: Resource): boolean {
    return change.strategy.group === r.group && change.strategy.resource === r.resource
  }

  protected enqueue(obj: KubeObject, delayMs = 0): void {
    this.queue.add(keyOf(obj.metadata.namespace, obj.metadata.name!), delayMs)
  }

  protected enqueueRef(namespace: string | undefined, ref: OwnerReference | undefined): void {
    if (ref && ref.kind === this.ownerKind()) this.queue.add(keyOf(namespace, ref.name))
  }

  /** The owners in `namespace` that `select` picks (orphans may be adopted by them). */
  protected async enqueueMatching(namespace: string | undefined, select: (owner: KubeObject) => boolean): Promise<void> {
    try {
      const { items } = await this.store(this.owner).list({ namespace })
      for (const owner of items) if (select(owner)) this.enqueue(owner)
    } catch (err) {
      this.log(2, `${this.name}: ${(err as Error).message}`)
    }
  }

  protected ownerKind(): string {
    return this.store(this.owner).strategy.kind
  }

  protected store(r: Resource): GenericStore {
    return this.registry.lookup(r.group, r.version, r.resource)!
  }

  private async enqueueAll(): Promise<void> {
    await this.enqueueMatching(undefined, () => true)
  }

  private async syncKey(key: string): Promise<void> {
    const [namespace, name] = splitKey(key)
    let obj: KubeObject
    try {
      obj = await this.store(this.owner).get(namespace || undefined, name)
    } catch (err) {
      if (toApiError(err).status.code === 404) return
      throw err
    }
    await this.sync(obj)
  }

  /**
   * The ControllerRefManager's claim over `candidates`: the owner's (after adopting matching
   * orphans and releasing owned ones that no longer match), others left alone.
   */
  protected async claim(r: Resource, candidates: readonly KubeObject[], owner: KubeObject, matches: (obj: KubeObject) => boolean, ref: OwnerReference): Promise<KubeObject[]> {
    const owned: KubeObject[] = []
    for (const obj of candidates) {
      const claim: Claim = claimOf(obj, owner, matches(obj))
      if (claim === 'owned') owned.push(obj)
      else if (claim === 'adopt') {
        const adopted = await this.write(r, obj, (current) => withOwner(current, ref))
        if (adopted) owned.push(adopted)
      } else if (claim === 'release') await this.write(r, obj, (current) => withoutOwner(current, owner.metadata.uid!))
    }
    return owned
  }

  /** An update as the controller; undefined when the object is gone (nothing left to do with it). */
  protected async write(r: Resource, obj: KubeObject, produce: (current: KubeObject) => KubeObject): Promise<KubeObject | undefined> {
    try {
      return await this.store(r).update(obj.metadata.namespace, obj.metadata.name!, (current) => produce(current), { admission: this.admission, retryOnConflict: true })
    } catch (err) {
      if (toApiError(err).status.code === 404) return undefined
      throw err
    }
  }

  /** A status write (the status subresource), unless nothing changed. */
  protected async writeStatus(r: Resource, obj: KubeObject, status: Record<string, unknown>): Promise<KubeObject | undefined> {
    try {
      return await this.store(r).update(obj.metadata.namespace, obj.metadata.name!, (current) => ({ ...current, status }), { subresource: 'status', admission: this.admission, retryOnConflict: true })
    } catch (err) {
      if (toApiError(err).status.code === 404) return undefined
      throw err
    }
  }

  /** A deletion as the controller; false when already gone. */
  protected async remove(r: Resource, obj: KubeObject): Promise<boolean> {
    try {
      await this.store(r).delete(obj.metadata.namespace, obj.metadata.name!, { admission: this.admission, preconditions: { uid: obj.metadata.uid } })
      return true
    } catch (err) {
      if (toApiError(err).status.code === 404) return false
      throw err
    }
  }
}
