/**
 * The reference's PVC and PV protection controllers (kube-controller-manager's
 * pkg/controller/volume/pvcprotection and pvprotection): a PersistentVolumeClaim being
 * deleted loses the `kubernetes.io/pvc-protection` finalizer (which the
 * StorageObjectInUseProtection admission plugin adds) once no scheduled pod of its namespace
 * uses it, and a PersistentVolume the `kubernetes.io/pv-protection` one once it is not Bound;
 * the object then goes. Without them a claim or a volume, and the namespace holding it, would
 * stay terminating forever. They follow the registry's writes of claims, volumes and pods.
 */
import { finalizersOf } from '../api/registry/deletion.js'
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { isPlainObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { toApiError } from '../api/status-errors.js'
import type { Controller, ControllerContext } from './controller.js'
import { RetryTimer } from './retry-timer.js'

const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection'
const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection'
/** How soon a claim still in use is looked at again (a pod may go without a write we see). */
const RECHECK_MS = 5000

/** What one protection controller protects: its resource, finalizer and "in use" test. */
interface Protected {
  readonly resource: string
  readonly finalizer: string
  /** Whether the object is still in use (then its finalizer stays). */
  inUse(registry: Registry, obj: KubeObject): Promise<boolean>
  /** Whether a write of another kind may free an object of this one (pods for claims). */
  freedBy?: string
}

abstract class ProtectionController implements Controller {
  abstract readonly name: string
  protected abstract readonly protects: Protected
  /** namespace/name of the objects being deleted with the finalizer. */
  private readonly pending = new Map<string, { namespace: string; name: string }>()
  private readonly timer = new RetryTimer(
    () => this.sync(),
    (err) => this.log(2, `${this.name}: ${(err as Error).message}`),
  )
  private resync = true
  private registry: Registry | undefined
  private log: ControllerContext['log'] = () => {}
  private unsubscribe: (() => void) | undefined

  start(ctx: ControllerContext): void {
    if (!ctx.registry.lookup('', 'v1', this.protects.resource)) return
    this.registry = ctx.registry
    this.log = ctx.log
    this.unsubscribe = ctx.registry.onChange((change) => {
      const { group, resource } = change.strategy
      if (group !== '') return
      if (resource === this.protects.resource && change.type !== 'deleted') this.observe(change.object)
      else if (resource === this.protects.freedBy && this.pending.size > 0) this.timer.schedule(0)
    })
    this.resync = true
    this.timer.schedule(0)
  }

  stop(): void {
    this.unsubscribe?.()
    this.unsubscribe = undefined
    this.timer.stop()
  }

  private store(): GenericStore {
    return this.registry!.lookup('', 'v1', this.protects.resource)!
  }

  private observe(obj: KubeObject): void {
    if (!obj.metadata.deletionTimestamp || !finalizersOf(obj).includes(this.protects.finalizer)) return
    const namespace = obj.metadata.namespace ?? ''
    this.pending.set(`${namespace}/${obj.metadata.name}`, { namespace, name: obj.metadata.name ?? '' })
    this.timer.schedule(0)
  }

  private async sync(): Promise<void> {
    if (this.resync) {
      this.resync = false
      for (const obj of (await this.store().list()).items) this.observe(obj)
    }
    for (const [key, { namespace, name }] of [...this.pending]) {
      if (await this.release(namespace, name)) this.pending.delete(key)
    }
    if (this.pending.size > 0) this.timer.schedule(RECHECK_MS)
  }

  /** Removes the finalizer of an object no longer in use; true once nothing is left to do. */
  private async release(namespace: string, name: string): Promise<boolean> {
    const store = this.store()
    const ns = namespace === '' ? undefined : namespace
    try {
      const obj = await store.get(ns, name)
      if (!obj.metadata.deletionTimestamp || !finalizersOf(obj).includes(this.protects.finalizer)) return true
      if (await this.protects.inUse(this.registry!, obj)) return false
      const released = await store.rewrite(ns, name, (o) => {
        const rest = finalizersOf(o).filter((f) => f !== this.protects.finalizer)
        if (rest.length > 0) o.metadata.finalizers = rest
        else delete o.metadata.finalizers
      })
      if (finalizersOf(released).length === 0) await store.delete(ns, name)
      this.log(3, `${this.name}: removed the ${this.protects.finalizer} finalizer of ${namespace === '' ? name : `${namespace}/${name}`}`)
      return true
    } catch (err) {
      if (toApiError(err).code === 404) return true
      throw err
    }
  }
}

/** The reference's podUsesPVC: a scheduled pod naming the claim, or its ephemeral volume's claim while the pod runs. */
function podUsesClaim(pod: KubeObject, claim: string): boolean {
  const spec = isPlainObject(pod.spec) ? pod.spec : {}
  if (typeof spec.nodeName !== 'string' || spec.nodeName === '') return false
  const phase = isPlainObject(pod.status) ? pod.status.phase : undefined
  const shutDown = phase === 'Succeeded' || phase === 'Failed'
  const volumes = Array.isArray(spec.volumes) ? spec.volumes.filter(isPlainObject) : []
  return volumes.some((v) => (isPlainObject(v.persistentVolumeClaim) && v.persistentVolumeClaim.claimName === claim) || (!shutDown && isPlainObject(v.ephemeral) && `${pod.metadata.name}-${String(v.name)}` === claim))
}

export class PVCProtectionController extends ProtectionController {
  readonly name = 'persistentvolumeclaim-protection-controller'
  protected readonly protects: Protected = {
    resource: 'persistentvolumeclaims',
    finalizer: PVC_PROTECTION_FINALIZER,
    freedBy: 'pods',
    inUse: async (registry, claim) => {
      const pods = registry.lookup('', 'v1', 'pods')
      if (!pods) return false
      const { items } = await pods.list({ namespace: claim.metadata.namespace ?? '' })
      return items.some((pod) => podUsesClaim(pod, claim.metadata.name ?? ''))
    },
  }
}

export class PVProtectionController extends ProtectionController {
  readonly name = 'persistentvolume-protection-controller'
  protected readonly protects: Protected = {
    resource: 'persistentvolumes',
    finalizer: PV_PROTECTION_FINALIZER,
    // The reference's isBeingUsed: a volume bound to a claim.
    inUse: async (_registry, volume) => (isPlainObject(volume.status) ? volume.status.phase : undefined) === 'Bound',
  }
}
