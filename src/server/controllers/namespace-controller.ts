/**
 * What the reference's namespace controller does for a namespace being deleted (phase
 * Terminating): delete every namespaced object in it, wait until they are gone (finalizers,
 * pods' grace periods), then take `kubernetes` out of spec.finalizers and delete the
 * namespace. Runs inside the server for every Terminating namespace, again after failures;
 * it follows the registry's changes.
 */
import type { GenericStore, ObjectChange } from '../api/registry/generic-store.js'
import { NAMESPACE_FINALIZER, finalizersOf, isNamespaces } from '../api/registry/deletion.js'
import { type KubeObject, isPlainObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { toApiError } from '../api/status-errors.js'
import type { Controller, ControllerContext } from './controller.js'
import { RetryTimer } from './retry-timer.js'

/** How soon a namespace whose contents are still going is looked at again. */
const RECHECK_MS = 500

export class NamespaceController implements Controller {
  readonly name = 'namespace-controller'
  private readonly pending = new Set<string>()
  private readonly timer = new RetryTimer(
    () => this.syncAll(),
    (err) => this.log(2, `namespace controller: ${(err as Error).message}`),
  )
  /** List every namespace on the next run (start-up). */
  private resync = false
  private registry: Registry | undefined
  private log: ControllerContext['log'] = () => {}
  private unsubscribe: (() => void) | undefined

  /** Follows the registry's changes and picks up the namespaces already Terminating (after a restart). */
  start(ctx: ControllerContext): void {
    if (!ctx.registry.lookup('', 'v1', 'namespaces')) return
    this.registry = ctx.registry
    this.log = ctx.log
    this.unsubscribe = ctx.registry.onChange((change) => this.observe(change))
    this.resync = true
    this.timer.schedule(0)
  }

  /** A namespace was marked for deletion, or something in a terminating one went. */
  private observe(change: ObjectChange): void {
    const { object, strategy } = change
    if (isNamespaces(strategy) && change.type !== 'deleted' && object.metadata.deletionTimestamp) this.enqueue(object.metadata.name!)
    // Something in a terminating namespace went: look at the namespace again at once.
    const ns = object.metadata.namespace
    if (change.type === 'deleted' && ns && this.pending.has(ns)) this.enqueue(ns)
  }

  private enqueue(name: string, delayMs = 0): void {
    this.pending.add(name)
    this.timer.schedule(delayMs)
  }

  stop(): void {
    this.unsubscribe?.()
    this.unsubscribe = undefined
    this.timer.stop()
  }

  private namespaces(): GenericStore {
    return this.registry!.lookup('', 'v1', 'namespaces')!
  }

  /** Every namespaced store: built-in kinds and custom resources. */
  private async namespacedStores(): Promise<GenericStore[]> {
    const registry = this.registry!
    return [...registry.all(), ...(await registry.customStores())].filter((g) => g.strategy.namespaced)
  }

  private async syncAll(): Promise<void> {
    if (this.resync) {
      this.resync = false
      const { items } = await this.namespaces().list()
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
    const namespaces = this.namespaces()
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
    for (const store of await this.namespacedStores()) {
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
    for (const store of await this.namespacedStores()) left += (await store.list({ namespace })).items.length
    return left
  }
}

function specFinalizers(ns: KubeObject): string[] {
  const spec = isPlainObject(ns.spec) ? ns.spec : {}
  return Array.isArray(spec.finalizers) ? spec.finalizers.filter((f): f is string => typeof f === 'string') : []
}
