/**
 * The PersistentVolumeClaimResize admission plugin (the reference's
 * `plugin/pkg/admission/storage/persistentvolume/resize`): a claim's storage request may grow
 * only once it is bound, and only when its StorageClass (the same before and after) allows
 * volume expansion; shrinking or keeping the size is not its concern.
 */
import type { KubeObject } from '../api/registry/object.js'
import { isPlainObject } from '../api/registry/object.js'
import { type ApiError, errors } from '../api/status-errors.js'
import { type Quantity, ZERO_QUANTITY, compareQuantity, parseQuantity } from '../api/validation/quantity.js'
import { type AdmissionAttributes, UPDATE, nameForRefusal } from './attributes.js'
import { type ValidationInterface, handlesOnly } from './interfaces.js'
import type { PluginInitialization } from './plugins.js'

export const PERSISTENT_VOLUME_CLAIM_RESIZE = 'PersistentVolumeClaimResize'

/** The beta annotation that named a claim's class before spec.storageClassName. */
const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class'

export class PersistentVolumeClaimResize implements ValidationInterface {
  constructor(private readonly init: PluginInitialization) {}

  readonly handles = handlesOnly(UPDATE)

  async validate(a: AdmissionAttributes): Promise<void> {
    if (a.resource.group !== '' || a.resource.resource !== 'persistentvolumeclaims' || a.subresource !== '') return
    const pvc = a.object
    const oldPvc = a.oldObject
    if (!pvc || !oldPvc) return
    if (compareQuantity(storageRequest(pvc), storageRequest(oldPvc)) <= 0) return
    const phase = isPlainObject(oldPvc.status) ? oldPvc.status.phase : undefined
    if (phase !== 'Bound') throw forbidden(a, 'Only bound persistent volume claims can be expanded')
    if (!(await this.allowResize(pvc, oldPvc))) {
      throw forbidden(a, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize')
    }
  }

  /** Growing is allowed when the claim's StorageClass, the same before and after, says so. */
  private async allowResize(pvc: KubeObject, oldPvc: KubeObject): Promise<boolean> {
    const className = claimClass(pvc)
    if (className === '' || className !== claimClass(oldPvc)) return false
    try {
      const sc = await this.init.stores()?.lookup('storage.k8s.io', 'v1', 'storageclasses')?.get(undefined, className)
      return sc?.allowVolumeExpansion === true
    } catch {
      return false
    }
  }
}

/** spec.resources.requests.storage, zero when absent. */
function storageRequest(pvc: KubeObject): Quantity {
  const spec = isPlainObject(pvc.spec) ? pvc.spec : {}
  const resources = isPlainObject(spec.resources) ? spec.resources : {}
  const requests = isPlainObject(resources.requests) ? resources.requests : {}
  return parseQuantity(requests.storage) ?? ZERO_QUANTITY
}

/** The reference's GetPersistentVolumeClaimClass: the beta annotation, else the field. */
function claimClass(pvc: KubeObject): string {
  const annotated = pvc.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION]
  if (annotated !== undefined) return annotated
  const spec = isPlainObject(pvc.spec) ? pvc.spec : {}
  return typeof spec.storageClassName === 'string' ? spec.storageClassName : ''
}

function forbidden(a: AdmissionAttributes, why: string): ApiError {
  return errors.forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForRefusal(a), why)
}
