/**
 * The garbage collector (the reference's kube-controller-manager garbagecollector, inside the
 * server): over every object of every served kind (built-in and custom resources),
 * - objects whose owners (metadata.ownerReferences, matched by uid) are all gone are deleted,
 *   with the policy their own finalizers name (background otherwise); references to owners
 *   that are gone are dropped while another owner remains;
 * - an owner being deleted with the `foregroundDeletion` finalizer has its dependents deleted
 *   first (foreground); the finalizer goes once no dependent with blockOwnerDeletion is left;
 * - an owner being deleted with the `orphan` finalizer has its references taken out of its
 *   dependents, then the finalizer goes.
 * A pass runs after writes that may need one (the registry's changes, and every RESYNC_MS for
 * other servers' writes); a failed pass runs again later. A pass reads every object, so writes
 * that cannot make garbage do not ask for one (an update that keeps the object's owner
 * references: a pod's status, a node's Lease renewal), and passes asked for by a stream of writes
 * are spaced by a multiple of the last one's duration (PACE), so that with 10,000 pods the
 * collector stays a fraction of the process's time instead of all of it.
 */
import type { GenericStore, ObjectChange } from '../api/registry/generic-store.js'
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, finalizersOf } from '../api/registry/deletion.js'
import { type KubeObject, isPlainObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { toApiError } from '../api/status-errors.js'
import type { Controller, ControllerContext } from './controller.js'
import { RetryTimer } from './retry-timer.js'

interface OwnerReference {
  apiVersion: string
  kind: string
  name: string
  uid: string
  blockOwnerDeletion?: boolean
}

interface Node {
  store: GenericStore
  obj: KubeObject
}

const RESYNC_MS = 15_000
/** Writes close together share one pass. */
const DEBOUNCE_MS = 20
/** A pass asked for by writes waits at least PACE times the last pass's duration. */
const PACE = 4

function ownerReferencesOf(obj: KubeObject): OwnerReference[] {
  const refs = obj.metadata.ownerReferences
  if (!Array.isArray(refs)) return []
  return refs.filter((r): r is OwnerReference => isPlainObject(r) && typeof r.uid === 'string' && typeof r.kind === 'string' && typeof r.name === 'string')
}

/** What of an object's owner references decides garbage: the owners' uids and whether each blocks deletion. */
function referencesKey(refs: readonly OwnerReference[]): string {
  return refs.map((r) => `${r.uid}${r.blockOwnerDeletion === true ? '!' : ''}`).join(',')
}

function ignoreGone(err: unknown): void {
  const code = toApiError(err).code
  if (code !== 404 && code !== 409) throw err
}

export class GarbageCollector implements Controller {
  readonly name = 'garbage-collector-controller'
  private readonly timer = new RetryTimer(
    () => this.pass(),
    (err) => this.log(2, `garbage collector: ${(err as Error).message}`),
  )
  private resync: NodeJS.Timeout | undefined
  private registry: Registry | undefined
  private log: ControllerContext['log'] = () => {}
  private unsubscribe: (() => void) | undefined
  /** Per store, the stored versions (key -> modRevision) a pass decoded and found with neither owners nor a deletion. */
  private readonly plain = new WeakMap<GenericStore, Map<string, number>>()
  /** Each object's owner references as last written (referencesKey, by uid). */
  private readonly references = new Map<string, string>()
  private lastPassMs = 0

  start(ctx: ControllerContext): void {
    this.registry = ctx.registry
    this.log = ctx.log
    this.unsubscribe = ctx.registry.onChange((change) => this.observe(change))
    // The first pass once ready, as the reference's collector waits for its informers: before,
    // it would read every object from the store while the watch caches fill.
    void ctx.ready.then(() => this.timer.schedule(0))
    this.resync = setInterval(() => this.timer.schedule(0), RESYNC_MS)
    this.resync.unref()
  }

  stop(): void {
    this.unsubscribe?.()
    this.unsubscribe = undefined
    this.timer.stop()
    if (this.resync) clearInterval(this.resync)
  }

  /** Every store served now: built-in kinds and custom resources. */
  private async stores(): Promise<GenericStore[]> {
    const registry = this.registry!
    return [...registry.all(), ...(await registry.customStores())]
  }

  /**
   * A write of the registry: deletions, objects being deleted, and writes that set or change
   * owner references need a pass; an update that keeps them does not.
   */
  private observe(change: ObjectChange): void {
    const obj = change.object
    const uid = obj.metadata.uid
    if (change.type === 'deleted') {
      if (uid) this.references.delete(uid)
      this.schedule()
      return
    }
    const refs = referencesKey(ownerReferencesOf(obj))
    const before = uid ? this.references.get(uid) : undefined
    if (uid && refs !== '') this.references.set(uid, refs)
    else if (uid) this.references.delete(uid)
    if (obj.metadata.deletionTimestamp || (refs !== '' && refs !== before)) this.schedule()
  }

  private schedule(): void {
    this.timer.schedule(Math.max(DEBOUNCE_MS, PACE * this.lastPassMs))
  }

  /**
   * One pass over every object that has owners or is being deleted (the others can be neither
   * a dependent nor an owner waiting for its dependents: an owner of theirs is looked up by
   * name). Only those are decoded (protobuf-stored ones once per version, `plain` remembering
   * the rest): with 100,000 objects and a pass every RESYNC_MS, decoding every one cost seconds
   * of CPU and the memory of the whole collection each time.
   */
  async pass(): Promise<void> {
    const started = performance.now()
    try {
      await this.collect()
    } finally {
      this.lastPassMs = performance.now() - started
    }
  }

  private async collect(): Promise<void> {
    const stores = await this.stores()
    const nodes: Node[] = []
    for (const store of stores) {
      let memo = this.plain.get(store)
      if (!memo) this.plain.set(store, (memo = new Map()))
      for (const obj of await store.listWithMetadata(['ownerReferences', 'deletionTimestamp'], memo)) nodes.push({ store, obj })
    }
    const byUid = new Map<string, Node>()
    const dependents = new Map<string, Node[]>()
    for (const node of nodes) {
      if (node.obj.metadata.uid) byUid.set(node.obj.metadata.uid, node)
      for (const ref of ownerReferencesOf(node.obj)) {
        const list = dependents.get(ref.uid)
        if (list) list.push(node)
        else dependents.set(ref.uid, [node])
      }
    }
    for (const owner of nodes) {
      if (!owner.obj.metadata.deletionTimestamp) continue
      const finalizers = finalizersOf(owner.obj)
      if (finalizers.includes(ORPHAN_FINALIZER)) await this.orphan(owner, dependents.get(owner.obj.metadata.uid!) ?? [])
      else if (finalizers.includes(FOREGROUND_FINALIZER)) await this.deleteForeground(owner, dependents.get(owner.obj.metadata.uid!) ?? [], byUid, stores)
    }
    for (const node of nodes) {
      const refs = ownerReferencesOf(node.obj)
      if (refs.length === 0 || node.obj.metadata.deletionTimestamp) continue
      const absent: string[] = []
      for (const ref of refs) if (!(await this.ownerExists(ref, node, byUid, stores))) absent.push(ref.uid)
      if (absent.length === 0) continue
      if (absent.length === refs.length) await this.deleteDependent(node)
      else await this.dropReferences(node, absent)
    }
  }

  /** The reference looks the owner up by kind and name in the dependent's namespace and compares uids. */
  private async ownerExists(ref: OwnerReference, dependent: Node, byUid: Map<string, Node>, stores: GenericStore[]): Promise<boolean> {
    const known = byUid.get(ref.uid)
    const namespace = dependent.obj.metadata.namespace
    if (known) return !known.store.strategy.namespaced || known.obj.metadata.namespace === namespace
    const group = ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0]! : ''
    const store = stores.find((s) => s.strategy.group === group && s.strategy.kind === ref.kind)
    // An owner of a kind not served: nothing tells it is gone, as the reference keeps waiting.
    if (!store) return true
    if (store.strategy.namespaced && !namespace) return false
    try {
      const owner = await store.get(store.strategy.namespaced ? namespace : undefined, ref.name)
      return owner.metadata.uid === ref.uid
    } catch (err) {
      if (toApiError(err).code === 404) return false
      throw err
    }
  }

  /** Deletes a dependent with the policy its finalizers name (the reference's attemptToDeleteItem). */
  private async deleteDependent(node: Node, policy?: string): Promise<boolean> {
    const finalizers = finalizersOf(node.obj)
    const propagationPolicy = policy ?? (finalizers.includes(ORPHAN_FINALIZER) ? 'Orphan' : finalizers.includes(FOREGROUND_FINALIZER) ? 'Foreground' : 'Background')
    const { namespace, name, uid } = node.obj.metadata
    try {
      const result = await node.store.deleteObject(namespace, name!, { propagationPolicy, preconditions: { uid: uid! } })
      return result.deleted
    } catch (err) {
      ignoreGone(err)
      return true
    }
  }

  private async dropReferences(node: Node, uids: readonly string[]): Promise<void> {
    const { namespace, name } = node.obj.metadata
    try {
      await node.store.update(
        namespace,
        name!,
        (obj) => {
          const kept = ownerReferencesOf(obj).length === 0 ? [] : (obj.metadata.ownerReferences as OwnerReference[]).filter((r) => !uids.includes(r.uid))
          if (kept.length > 0) obj.metadata.ownerReferences = kept
          else delete obj.metadata.ownerReferences
          delete obj.metadata.resourceVersion
          return obj
        },
        { retryOnConflict: true },
      )
    } catch (err) {
      ignoreGone(err)
    }
  }

  private async removeFinalizer(node: Node, finalizer: string): Promise<void> {
    const { namespace, name } = node.obj.metadata
    try {
      await node.store.update(
        namespace,
        name!,
        (obj) => {
          if (obj.metadata.uid !== node.obj.metadata.uid) return obj
          obj.metadata.finalizers = finalizersOf(obj).filter((f) => f !== finalizer)
          if ((obj.metadata.finalizers as string[]).length === 0) delete obj.metadata.finalizers
          delete obj.metadata.resourceVersion
          return obj
        },
        { retryOnConflict: true },
      )
    } catch (err) {
      ignoreGone(err)
    }
  }

  private async orphan(owner: Node, dependents: readonly Node[]): Promise<void> {
    for (const dep of dependents) await this.dropReferences(dep, [owner.obj.metadata.uid!])
    await this.removeFinalizer(owner, ORPHAN_FINALIZER)
  }

  private async deleteForeground(owner: Node, dependents: readonly Node[], byUid: Map<string, Node>, stores: GenericStore[]): Promise<void> {
    const uid = owner.obj.metadata.uid!
    let blocked = false
    for (const dep of dependents) {
      const blocks = ownerReferencesOf(dep.obj).some((r) => r.uid === uid && r.blockOwnerDeletion === true)
      if (dep.obj.metadata.deletionTimestamp) {
        blocked ||= blocks
        continue
      }
      // A dependent another owner still holds only loses its reference to this one.
      const others = ownerReferencesOf(dep.obj).filter((r) => r.uid !== uid)
      let held = false
      for (const ref of others) {
        const other = byUid.get(ref.uid)
        const beingDeleted = other?.obj.metadata.deletionTimestamp && finalizersOf(other.obj).includes(FOREGROUND_FINALIZER)
        if (!beingDeleted && (await this.ownerExists(ref, dep, byUid, stores))) held = true
      }
      if (held) {
        await this.dropReferences(dep, [uid])
        continue
      }
      const gone = await this.deleteDependent(dep, 'Foreground')
      if (!gone) blocked ||= blocks
    }
    if (!blocked) await this.removeFinalizer(owner, FOREGROUND_FINALIZER)
  }
}
