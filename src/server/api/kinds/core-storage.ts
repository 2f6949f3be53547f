/**
 * The core group's PersistentVolumes and PersistentVolumeClaims: validation (../validation/core/)
 * and the reference printer's columns.
 */
import type { KubeObject } from '../registry/object.js'
import { validatePersistentVolume, validatePersistentVolumeClaim, validatePersistentVolumeClaimUpdate, validatePersistentVolumeUpdate } from '../validation/core.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { arr, col, obj, str } from './values.js'

/** GetAccessModesAsString. */
function accessModes(modes: unknown): string {
  const set = new Set(arr(modes).map((m) => str(m)))
  const out: string[] = []
  for (const [mode, short] of [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ] as const) {
    if (set.has(mode)) out.push(short)
  }
  return out.join(',')
}

function storageClassOf(o: KubeObject): string {
  const spec = obj(o.spec)
  return str(spec.storageClassName) || str((o.metadata.annotations ?? {})['volume.beta.kubernetes.io/storage-class'])
}

export const CORE_STORAGE: KindTable = {
  '/v1/persistentvolumes': {
    statusOwnedBySubresource: true,
    validate: validatePersistentVolume,
    validateUpdate: validatePersistentVolumeUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('Capacity', 'capacity is the description of the persistent volume\'s resources and capacity.'),
        col('Access Modes', 'accessModes contains all ways the volume can be mounted.'),
        col('Reclaim Policy', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.'),
        col('Status', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
        col('Claim', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
        col('StorageClass', 'StorageClass of the pv'),
        col('VolumeAttributesClass', 'VolumeAttributesClass of the pv'),
        col('Reason', 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.'),
        AGE_COLUMN,
        col('VolumeMode', 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.', 1),
      ],
      cells: (o, now) => {
        const spec = obj(o.spec)
        const claim = spec.claimRef === undefined ? '' : `${str(obj(spec.claimRef).namespace)}/${str(obj(spec.claimRef).name)}`
        const phase = o.metadata.deletionTimestamp ? 'Terminating' : str(obj(o.status).phase)
        return [
          o.metadata.name,
          str(obj(spec.capacity).storage, '0'),
          accessModes(spec.accessModes),
          str(spec.persistentVolumeReclaimPolicy),
          phase,
          claim,
          storageClassOf(o),
          str(spec.volumeAttributesClassName) || '<unset>',
          str(obj(o.status).reason),
          age(o, now),
          str(spec.volumeMode) || '<unset>',
        ]
      },
    },
  },
  '/v1/persistentvolumeclaims': {
    statusOwnedBySubresource: true,
    validate: validatePersistentVolumeClaim,
    validateUpdate: validatePersistentVolumeClaimUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('Status', 'phase represents the current phase of PersistentVolumeClaim.'),
        col('Volume', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
        col('Capacity', 'capacity represents the actual resources of the underlying volume.'),
        col('Access Modes', 'accessModes contains the actual access modes the volume backing the PVC has.'),
        col('StorageClass', 'StorageClass of the pvc'),
        col('VolumeAttributesClass', 'VolumeAttributesClass of the pvc'),
        AGE_COLUMN,
        col('VolumeMode', 'volumeMode defines what type of volume is required by the claim.', 1),
      ],
      cells: (o, now) => {
        const spec = obj(o.spec)
        const status = obj(o.status)
        const bound = str(spec.volumeName) !== ''
        return [
          o.metadata.name,
          o.metadata.deletionTimestamp ? 'Terminating' : str(status.phase),
          str(spec.volumeName),
          bound ? str(obj(status.capacity).storage, '0') : '',
          bound ? accessModes(status.accessModes) : '',
          storageClassOf(o),
          str(spec.volumeAttributesClassName) || '<unset>',
          age(o, now),
          str(spec.volumeMode) || '<unset>',
        ]
      },
    },
  },
}
