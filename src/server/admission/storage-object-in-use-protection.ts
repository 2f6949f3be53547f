/**
 * The StorageObjectInUseProtection admission plugin (the reference's
 * `plugin/pkg/admission/storage/storageobjectinuseprotection`): every new PersistentVolume
 * gets the `kubernetes.io/pv-protection` finalizer and every new PersistentVolumeClaim the
 * `kubernetes.io/pvc-protection` one, so that a volume in use is not deleted under its pods
 * (the protection controllers remove them once nothing uses it).
 */
import { type AdmissionAttributes, CREATE } from './attributes.js'
import { type MutationInterface, actsOnOnly, handlesOnly } from './interfaces.js'

export const STORAGE_OBJECT_IN_USE_PROTECTION = 'StorageObjectInUseProtection'

const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection'
const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection'

export class StorageObjectInUseProtection implements MutationInterface {
  readonly handles = handlesOnly(CREATE)
  readonly actsOn = actsOnOnly('persistentvolumes', 'persistentvolumeclaims')

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.resource.group !== '' || a.subresource !== '' || !a.object) return
    const finalizer = a.resource.resource === 'persistentvolumes' ? PV_PROTECTION_FINALIZER : a.resource.resource === 'persistentvolumeclaims' ? PVC_PROTECTION_FINALIZER : undefined
    if (finalizer === undefined) return
    const meta = a.object.metadata
    const finalizers = Array.isArray(meta.finalizers) ? (meta.finalizers as string[]) : []
    if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer]
  }
}
