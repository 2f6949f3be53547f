/**
 * Volume types (the reference's check_restrictedVolumes.go): restricted from v1.0 allows only
 * configMap, csi, downwardAPI, emptyDir, ephemeral, persistentVolumeClaim, projected, secret
 * and image volumes, replacing the baseline hostPath check.
 */
import { ALLOWED, type Check, type PodLike, forbidden, joinQuote, pluralize, sortedSet, volumes } from './check.js'
import { HOST_PATH_VOLUMES_ID } from './check-host-path-volumes.js'
import { majorMinor } from './levels.js'

const ALLOWED_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret', 'image']

/** The restricted sources by the names the reference reports, in the order it looks for them. */
const RESTRICTED_SOURCES: readonly [field: string, reported: string][] = [
  ['hostPath', 'hostPath'],
  ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['gitRepo', 'gitRepo'],
  ['nfs', 'nfs'],
  ['iscsi', 'iscsi'],
  ['glusterfs', 'glusterfs'],
  ['rbd', 'rbd'],
  ['flexVolume', 'flexVolume'],
  ['cinder', 'cinder'],
  ['cephfs', 'cephfs'],
  ['flocker', 'flocker'],
  ['fc', 'fc'],
  ['azureFile', 'azureFile'],
  ['vsphereVolume', 'vsphereVolume'],
  ['quobyte', 'quobyte'],
  ['azureDisk', 'azureDisk'],
  ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'],
  ['scaleIO', 'scaleIO'],
  ['storageos', 'storageos'],
]

const present = (value: unknown) => value !== undefined && value !== null

function restrictedVolumesV1Dot0({ spec }: PodLike) {
  const bad: string[] = []
  const types: string[] = []
  for (const volume of volumes(spec)) {
    if (ALLOWED_SOURCES.some((source) => present(volume[source]))) continue
    bad.push(String(volume.name ?? ''))
    types.push(RESTRICTED_SOURCES.find(([field]) => present(volume[field]))?.[1] ?? 'unknown')
  }
  if (bad.length === 0) return ALLOWED
  const distinct = sortedSet(types)
  return forbidden(
    'restricted volume types',
    `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', distinct.length)} ${joinQuote(distinct)}`,
  )
}

export const checkRestrictedVolumes: Check = {
  id: 'restrictedVolumes',
  level: 'restricted',
  versions: [{ minimumVersion: majorMinor(0), checkPod: restrictedVolumesV1Dot0, overrideCheckIds: [HOST_PATH_VOLUMES_ID] }],
}
