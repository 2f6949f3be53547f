/**
 * VolumeRestrictions (pkg/scheduler/framework/plugins/volumerestrictions): a claim with the
 * ReadWriteOncePod access mode used by another pod rejects the pod everywhere; a GCE PD, AWS
 * EBS, RBD or iSCSI disk already mounted read-write on a node rejects that node.
 */
import type { FilterPlugin } from '../framework.js'
import { type Volume, podSpec } from '../objects.js'
import { unschedulable } from '../status.js'
import { claimNames } from './volume-binding.js'

export const ERR_REASON_DISK_CONFLICT = 'node(s) had no available disk'
export const ERR_REASON_RWOP_CONFLICT = 'node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode'

const STATE = 'VolumeRestrictions'

function diskId(v: Volume): string | undefined {
  if (v.gcePersistentDisk) return `gce:${v.gcePersistentDisk.pdName}`
  if (v.awsElasticBlockStore) return `aws:${v.awsElasticBlockStore.volumeID}`
  if (v.rbd) return `rbd:${v.rbd.pool ?? 'rbd'}/${v.rbd.image}`
  if (v.iscsi) return `iscsi:${v.iscsi.targetPortal}/${v.iscsi.iqn}/${v.iscsi.lun}`
  return undefined
}

const readOnly = (v: Volume): boolean => v.gcePersistentDisk?.readOnly === true || v.rbd?.readOnly === true || v.iscsi?.readOnly === true

export const volumeRestrictions: FilterPlugin = {
  name: 'VolumeRestrictions',
  preFilter(state) {
    const ns = state.pod.metadata.namespace ?? ''
    const rwop = claimNames(state.pod).filter((name) => ((state.cache.auxObject('persistentvolumeclaims', ns, name)?.spec as { accessModes?: string[] } | undefined)?.accessModes ?? []).includes('ReadWriteOncePod'))
    let conflict = false
    if (rwop.length > 0) {
      for (const node of state.nodes) for (const claim of rwop) if ((node.pvcRefCounts.get(`${ns}/${claim}`) ?? 0) > 0) conflict = true
    }
    state.data.set(STATE, conflict)
    return undefined
  },
  filter(state, node) {
    if (state.data.get(STATE) === true) return unschedulable(ERR_REASON_RWOP_CONFLICT)
    for (const v of podSpec(state.pod).volumes ?? []) {
      const id = diskId(v)
      if (!id) continue
      for (const { pod } of node.pods.values()) {
        for (const other of podSpec(pod).volumes ?? []) {
          // Read-only mounts of one disk may share a node (GCE PD, RBD, iSCSI); AWS EBS never.
          if (diskId(other) === id && (v.awsElasticBlockStore || !(readOnly(v) && readOnly(other)))) return unschedulable(ERR_REASON_DISK_CONFLICT)
        }
      }
    }
    return undefined
  },
}
