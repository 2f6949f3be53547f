/**
 * What the reference's namespace controller does for a namespace being deleted (phase
 * Terminating): delete every namespaced object in it, wait until they are gone (finalizers,
 * pods' grace periods), then take `kubernetes` out of spec.finalizers and delete the
 * namespace. Runs inside the server for every Terminating namespace, again after failures.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import { NAMESPACE_FINALIZER, finalizersOf } from '../api/registry/deletion.js'
import { type KubeObject, isPlainObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { RetryTimer } from './retry-timer.js'

interface NamespaceControllerDeps {
  namespaces(): GenericStore
  /** Every namespaced store: built-in kinds and custom resources. */
  namespacedStores(): Promise<GenericStore[]>
  log(level: number, msg: string): void
}

/** How soon a namespace whose contents are still going is looked at again. */
const RECHECK_MS = 500

export class NamespaceController {
  private readonly pending = new Set<string>()
  private readonly timer: RetryTimer
  /** List every namespace on the next run (start-up). */
  private resync = false

  constructor(private readonly deps: NamespaceControllerDeps) {
    this.timer = new RetryTimer(
      () => this.syncAll(),
      (err) => deps.log(2, `namespace controller: ${(err as Error).message}`),
    )
  }

  /** Picks up the namespaces already Terminating (after a restart). */
  start(): void {
    this.resync = true
    this.timer.schedule(0)
  }

  /** A namespace was marked for deletion, or something in a terminating one went. */
  enqueue(name: string, delayMs = 0): void {
    this.pending.add(name)
    this.timer.schedule(delayMs)
  }

  has(name: string): boolean {
    return this.pending.has(name)
  }

  stop(): void {
    this.timer.stop()
  }

  private async syncAll(): Promise<void> {
    if (this.resync) {
      this.resync = false
      const { items } = await this.deps.namespaces().list()
      for (const ns of items) if (ns.metadata.deletionTimestamp) this.pending.add(ns.metadata.name!)
    }
    let waiting = false
    let failure: unknown
    for (const name of [...this.pending]) {
      try {
        if (await this.sync(name)) this.pending.delete(name)
        else waiting = true
      } catch (err) {
        failure ??= err
      }
    }
    if (failure !== undefined) throw failure
    if (waiting) this.timer.schedule(RECHECK_MS)
  }

  /** True when the namespace is done with (gone, or not being deleted). */
  private async sync(name: string): Promise<boolean> {
    const namespaces = this.deps.namespaces()
    let ns: KubeObject
    try {
      ns = await namespaces.get(undefined, name)
    } catch (err) {
      if (toApiError(err).code === 404) return true
      throw err
    }
    if (!ns.metadata.deletionTimestamp) return true
    // Contents go even when spec.finalizers lacks `kubernetes` (a namespace written without a
    // spec): no namespace is left stuck Terminating, nor content left behind.
    if ((await this.deleteContents(name)) > 0) return false
    if (specFinalizers(ns).includes(NAMESPACE_FINALIZER)) {
      ns = await namespaces.rewrite(undefined, name, (obj) => {
        const spec = isPlainObject(obj.spec) ? obj.spec : {}
        obj.spec = { ...spec, finalizers: specFinalizers(obj).filter((f) => f !== NAMESPACE_FINALIZER) }
      })
    }
    // Other spec finalizers or metadata finalizers keep the namespace until their owners act.
    if (specFinalizers(ns).length > 0 || finalizersOf(ns).length > 0) return true
    try {
      await namespaces.deleteObject(undefined, name, { preconditions: { uid: ns.metadata.uid! } })
    } catch (err) {
      if (toApiError(err).code !== 404) throw err
    }
    return true
  }

  /** Deletes what is in the namespace; answers how many objects are still there. */
  private async deleteContents(namespace: string): Promise<number> {
    let remaining = 0
    for (const store of await this.deps.namespacedStores()) {
      const { items } = await store.list({ namespace })
      remaining += items.length
      for (const obj of items) {
        if (obj.metadata.deletionTimestamp) continue
        try {
          // The reference's namespace deleter deletes in the background.
          await store.deleteObject(namespace, obj.metadata.name!, { propagationPolicy: 'Background', preconditions: { uid: obj.metadata.uid! } })
        } catch (err) {
          const code = toApiError(err).code
          if (code !== 404 && code !== 409) throw err
        }
      }
    }
    if (remaining === 0) return 0
    // Count again: most objects go at once.
    let left = 0
    for (const store of await this.deps.namespacedStores()) left += (await store.list({ namespace })).items.length
    return left
  }
}

function specFinalizers(ns: KubeObject): string[] {
  const spec = isPlainObject(ns.spec) ? ns.spec : {}
  return Array.isArray(spec.finalizers) ? spec.finalizers.filter((f): f is string => typeof f === 'string') : []
}
