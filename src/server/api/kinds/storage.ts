/**
 * storage.k8s.io/v1: StorageClass, CSIDriver, CSINode, CSIStorageCapacity, VolumeAttachment and
 * VolumeAttributesClass, with the defaulting of pkg/apis/storage/v1/defaults.go and the
 * reference printer's columns.
 */
import type { KubeObject } from '../registry/object.js'
import { validateStorageClass, validateStorageClassUpdate, validateVolumeAttributesClass, validateVolumeAttributesClassUpdate } from '../validation/storage.js'
import { validateVolumeAttachment, validateVolumeAttachmentUpdate } from '../validation/storage-attachment.js'
import { validateCSIDriver, validateCSIDriverUpdate, validateCSINode, validateCSINodeUpdate, validateCSIStorageCapacity, validateCSIStorageCapacityUpdate } from '../validation/storage-csi.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { arr, col, obj, str } from './values.js'

const DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class'
const DEFAULT_VAC = 'resource.kubernetes.io/is-default-class'

const isDefault = (o: KubeObject, annotation: string) => (o.metadata.annotations ?? {})[annotation] === 'true'

export const STORAGE: KindTable = {
  'storage.k8s.io/v1/storageclasses': {
    defaults(o) {
      o.reclaimPolicy ??= 'Delete'
      o.volumeBindingMode ??= 'Immediate'
    },
    validate: validateStorageClass,
    validateUpdate: validateStorageClassUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('Provisioner', 'provisioner indicates the type of the provisioner.'),
        col('ReclaimPolicy', 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.'),
        col('VolumeBindingMode', 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.'),
        col('AllowVolumeExpansion', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
        AGE_COLUMN,
      ],
      cells: (o, now) => [
        isDefault(o, DEFAULT_CLASS) ? `${o.metadata.name!} (default)` : o.metadata.name,
        str(o.provisioner),
        str(o.reclaimPolicy, 'Delete'),
        str(o.volumeBindingMode, 'Immediate'),
        o.allowVolumeExpansion === true,
        age(o, now),
      ],
    },
  },
  'storage.k8s.io/v1/volumeattributesclasses': {
    validate: validateVolumeAttributesClass,
    validateUpdate: validateVolumeAttributesClassUpdate,
    table: {
      definitions: [NAME_COLUMN, col('DriverName', 'Name of the CSI driver This field is immutable.'), AGE_COLUMN],
      cells: (o, now) => [isDefault(o, DEFAULT_VAC) ? `${o.metadata.name!} (default)` : o.metadata.name, str(o.driverName), age(o, now)],
    },
  },
  'storage.k8s.io/v1/csidrivers': {
    defaults(o) {
      const spec = obj(o.spec)
      spec.attachRequired ??= true
      spec.podInfoOnMount ??= false
      spec.storageCapacity ??= false
      spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType'
      spec.requiresRepublish ??= false
      spec.seLinuxMount ??= false
      if (arr(spec.volumeLifecycleModes).length === 0) spec.volumeLifecycleModes = ['Persistent']
      o.spec = spec
    },
    validate: validateCSIDriver,
    validateUpdate: validateCSIDriverUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('AttachRequired', 'attachRequired indicates this CSI volume driver requires an attach operation.', 0, 'boolean'),
        col('PodInfoOnMount', 'podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations.', 0, 'boolean'),
        col('StorageCapacity', 'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report.', 0, 'boolean'),
        col('TokenRequests', 'tokenRequests indicates the CSI driver needs pods\' service account tokens it is mounting volume for to do necessary authentication.'),
        col('RequiresRepublish', 'requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.', 0, 'boolean'),
        col('Modes', 'volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.'),
        AGE_COLUMN,
      ],
      cells: (o, now) => {
        const spec = obj(o.spec)
        const tokens = arr(spec.tokenRequests).map((t) => str(obj(t).audience))
        const modes = arr(spec.volumeLifecycleModes).map((m) => str(m))
        return [
          o.metadata.name,
          spec.attachRequired !== false,
          spec.podInfoOnMount === true,
          spec.storageCapacity === true,
          tokens.length > 0 ? tokens.join(',') : '<unset>',
          spec.requiresRepublish === true,
          modes.length > 0 ? modes.join(',') : '<none>',
          age(o, now),
        ]
      },
    },
  },
  'storage.k8s.io/v1/csinodes': {
    validate: validateCSINode,
    validateUpdate: validateCSINodeUpdate,
    table: {
      definitions: [NAME_COLUMN, col('Drivers', 'Drivers indicates the number of CSI drivers registered on the node', 0, 'integer'), AGE_COLUMN],
      cells: (o, now) => [o.metadata.name, arr(obj(o.spec).drivers).length, age(o, now)],
    },
  },
  'storage.k8s.io/v1/csistoragecapacities': {
    validate: validateCSIStorageCapacity,
    validateUpdate: validateCSIStorageCapacityUpdate,
    table: {
      definitions: [NAME_COLUMN, col('StorageClassName', 'storageClassName represents the name of the StorageClass that the reported capacity applies to.'), col('Capacity', 'capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.')],
      cells: (o) => [o.metadata.name, str(o.storageClassName), o.capacity === undefined ? '<unset>' : str(o.capacity)],
    },
  },
  'storage.k8s.io/v1/volumeattachments': {
    statusOwnedBySubresource: true,
    validate: validateVolumeAttachment,
    validateUpdate: validateVolumeAttachmentUpdate,
    validateStatusUpdate: validateVolumeAttachmentUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('Attacher', 'attacher indicates the name of the volume driver that MUST handle this request.', 0, 'string', 'name'),
        col('PV', 'persistentVolumeName represents the name of the persistent volume to attach.'),
        col('Node', 'nodeName represents the node that the volume should be attached to.'),
        col('Attached', 'attached indicates the volume is successfully attached.', 0, 'boolean'),
        AGE_COLUMN,
      ],
      cells: (o, now) => {
        const spec = obj(o.spec)
        return [o.metadata.name, str(spec.attacher), str(obj(spec.source).persistentVolumeName), str(spec.nodeName), obj(o.status).attached === true, age(o, now)]
      },
    },
  },
}
