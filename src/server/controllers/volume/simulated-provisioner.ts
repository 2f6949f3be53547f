/**
 * The simulated dynamic provisioner of a whole cluster, in the place of kind's local-path
 * provisioner: the default StorageClass `standard` it serves (WaitForFirstConsumer, as kind's,
 * so that a volume is made on the node the scheduler chose for its first pod), and the
 * PersistentVolume it makes for a claim, as an external provisioner (sig-storage's library)
 * writes it: named `pvc-<claim uid>`, pre-bound to the claim (claimRef), annotated
 * `pv.kubernetes.io/provisioned-by`, of the claim's size, modes and volume mode, the class's
 * reclaim policy and mount options, a hostPath under the provisioner's directory, and a node
 * affinity to the chosen node. No storage is made: nothing mounts it.
 */
import type { KubeObject } from '../../api/registry/object.js'
import { claimClass, claimSpec } from './volume-matching.js'

export const SIMULATED_PROVISIONER = 'simulated.local/local-path'
export const DEFAULT_STORAGE_CLASS_NAME = 'standard'
export const PROVISIONED_BY_ANNOTATION = 'pv.kubernetes.io/provisioned-by'
export const SELECTED_NODE_ANNOTATION = 'volume.kubernetes.io/selected-node'
const HOST_DIRECTORY = '/var/local-path-provisioner'

/** The default StorageClass written at cluster start. */
export function defaultStorageClass(): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: DEFAULT_STORAGE_CLASS_NAME, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: SIMULATED_PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  }
}

/** The PersistentVolume provisioned for `claim` in `storageClass`. */
export function provisionedVolume(claim: KubeObject, storageClass: KubeObject): KubeObject {
  const spec = claimSpec(claim)
  const { namespace = '', name = '', uid = '', resourceVersion } = claim.metadata
  const node = claim.metadata.annotations?.[SELECTED_NODE_ANNOTATION]
  const sc = storageClass as { reclaimPolicy?: string; mountOptions?: string[] }
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `pvc-${uid}`, annotations: { [PROVISIONED_BY_ANNOTATION]: SIMULATED_PROVISIONER } },
    spec: {
      capacity: { storage: spec.resources?.requests?.storage ?? '0' },
      accessModes: spec.accessModes ?? ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: sc.reclaimPolicy ?? 'Delete',
      storageClassName: claimClass(claim),
      volumeMode: spec.volumeMode ?? 'Filesystem',
      ...(sc.mountOptions ? { mountOptions: sc.mountOptions } : {}),
      claimRef: { kind: 'PersistentVolumeClaim', namespace, name, uid, apiVersion: 'v1', ...(resourceVersion ? { resourceVersion } : {}) },
      hostPath: { path: `${HOST_DIRECTORY}/pvc-${uid}_${namespace}_${name}`, type: 'DirectoryOrCreate' },
      ...(node ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } } } : {}),
    },
  }
}
