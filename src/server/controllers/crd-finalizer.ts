/**
 * The reference's CRD finalizer (staging/src/k8s.io/apiextensions-apiserver/pkg/controller/finalizer):
 * a CustomResourceDefinition being deleted keeps the `customresourcecleanup.apiextensions.k8s.io`
 * finalizer while its custom resources are deleted (Terminating True); once none is left, the
 * finalizer goes (Terminating False, InstanceDeletionCompleted) and the CRD with it. It follows
 * the registry's CRD writes.
 */
import { CRD_GROUP, CRD_RESOURCE } from '../api/kinds/crd.js'
import type { GenericStore } from '../api/registry/generic-store.js'
import { finalizersOf } from '../api/registry/deletion.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { ApiError } from '../api/status-errors.js'
import type { Controller, ControllerContext } from './controller.js'
import { RetryTimer } from './retry-timer.js'
import { CUSTOM_RESOURCE_CLEANUP_FINALIZER, type CRDCondition, isConditionTrue, setCondition } from '../api/kinds/crd-conditions.js'

/** How soon a CRD whose custom resources are still going (finalizers) is looked at again. */
const RECHECK_MS = 1000
/** The reference waits a minute for the instances to go before reporting InstanceDeletionCheck. */
const CONFIRM_TIMEOUT_MS = 60_000

const terminating = (status: CRDCondition['status'], reason: string, message: string): CRDCondition => ({ type: 'Terminating', status, reason, message })

export class CRDFinalizer implements Controller {
  /** The reference's queue name (apiextensions-apiserver's finalizer controller). */
  readonly name = 'crd_finalizer'
  private readonly pending = new Set<string>()
  /** When the deletion of each CRD's instances started (for the one-minute check). */
  private readonly since = new Map<string, number>()
  private readonly timer = new RetryTimer(
    () => this.syncAll(),
    (err) => this.log(2, `crd finalizer: ${(err as Error).message}`),
  )
  private resync = false
  private registry: Registry | undefined
  private log: ControllerContext['log'] = () => {}
  private unsubscribe: (() => void) | undefined

  /** Follows the registry's CRD writes and picks up the CRDs already being deleted (after a restart). */
  start(ctx: ControllerContext): void {
    if (!ctx.registry.crds) return
    this.registry = ctx.registry
    this.log = ctx.log
    this.unsubscribe = ctx.registry.onChange((change) => {
      const { group, resource } = change.strategy
      if (group === CRD_GROUP && resource === CRD_RESOURCE && change.type !== 'deleted') this.observe(change.object)
    })
    this.resync = true
    this.timer.schedule(0)
  }

  /** A CRD was written: look at it when it is being deleted with our finalizer. */
  private observe(crd: KubeObject): void {
    if (crd.metadata.deletionTimestamp && finalizersOf(crd).includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) this.enqueue(crd.metadata.name!)
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

  private crds(): GenericStore {
    return this.registry!.crds!
  }

  private async syncAll(): Promise<void> {
    if (this.resync) {
      this.resync = false
      for (const crd of (await this.crds().list()).items) this.observe(crd)
    }
    let waiting = false
    let failure: unknown
    for (const name of [...this.pending]) {
      try {
        if (await this.sync(name)) {
          this.pending.delete(name)
          this.since.delete(name)
        } else waiting = true
      } catch (err) {
        failure ??= err
      }
    }
    if (failure !== undefined) throw failure
    if (waiting) this.timer.schedule(RECHECK_MS)
  }

  /** True when the CRD is done with (gone, not being deleted, or finalized). */
  private async sync(name: string): Promise<boolean> {
    const crds = this.crds()
    let crd: KubeObject
    try {
      crd = await crds.get(undefined, name)
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return true
      throw err
    }
    if (!crd.metadata.deletionTimestamp || !finalizersOf(crd).includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) return true
    crd = await crds.rewrite(undefined, name, (o) => setCondition(o, terminating('True', 'InstanceDeletionInProgress', 'CustomResource deletion is in progress')))
    let outcome: CRDCondition
    const instances = this.registry!.instancesOf(crd)
    if (!instances) {
      outcome = terminating('False', 'OverlappingBuiltInResource', 'instances overlap with built-in resources in storage')
    } else if (isConditionTrue(crd, 'Established')) {
      const deleted = await this.deleteInstances(name, instances)
      if (deleted !== true) {
        await crds.rewrite(undefined, name, (o) => setCondition(o, deleted))
        if (deleted.reason === 'InstanceDeletionFailed') throw new Error(deleted.message)
        return false
      }
      outcome = terminating('False', 'InstanceDeletionCompleted', 'removed all instances')
    } else {
      outcome = terminating('False', 'NeverEstablished', 'resource was never established')
    }
    const finalized = await crds.rewrite(undefined, name, (o) => {
      setCondition(o, outcome)
      const rest = finalizersOf(o).filter((f) => f !== CUSTOM_RESOURCE_CLEANUP_FINALIZER)
      if (rest.length > 0) o.metadata.finalizers = rest
      else delete o.metadata.finalizers
    })
    if (finalizersOf(finalized).length === 0) {
      await crds.delete(undefined, name).catch((err: unknown) => {
        if (!(err instanceof ApiError && err.code === 404)) throw err
      })
    }
    this.log(2, `custom resource definition ${name}: ${outcome.message}`)
    return true
  }

  /**
   * Deletes every instance (each through the generic store's DELETE: an instance with
   * finalizers stays until they are gone); true once none is left, else the Terminating
   * condition to write while waiting.
   */
  private async deleteInstances(name: string, instances: GenericStore): Promise<true | CRDCondition> {
    let items: KubeObject[]
    try {
      items = (await instances.list()).items
    } catch (err) {
      return terminating('True', 'InstanceDeletionFailed', `could not list instances: ${(err as Error).message}`)
    }
    const errors: string[] = []
    for (const item of items) {
      if (item.metadata.deletionTimestamp) continue
      try {
        await instances.deleteObject(item.metadata.namespace, item.metadata.name!)
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) errors.push((err as Error).message)
      }
    }
    if (errors.length > 0) {
      return terminating('True', 'InstanceDeletionFailed', `could not issue all deletes: ${errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`}`)
    }
    const left = (await instances.list()).items.length
    if (left === 0) return true
    const started = this.since.get(name) ?? Date.now()
    this.since.set(name, started)
    if (Date.now() - started > CONFIRM_TIMEOUT_MS) {
      return terminating('True', 'InstanceDeletionCheck', 'could not confirm zero CustomResources remaining: timed out waiting for the condition')
    }
    this.log(2, `${name} waiting for ${left} items to be removed`)
    return terminating('True', 'InstanceDeletionInProgress', 'CustomResource deletion is in progress')
  }
}
