/** HostPath volumes (the reference's check_hostPathVolumes.go): baseline from v1.0. */
import { ALLOWED, type Check, type PodLike, forbidden, joinQuote, pluralize, volumes } from './check.js'
import { majorMinor } from './levels.js'

export const HOST_PATH_VOLUMES_ID = 'hostPathVolumes'

function hostPathVolumesV1Dot0({ spec }: PodLike) {
  const bad = volumes(spec).filter((v) => v.hostPath !== undefined && v.hostPath !== null).map((v) => String(v.name ?? ''))
  return bad.length === 0 ? ALLOWED : forbidden('hostPath volumes', `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}`)
}

export const checkHostPathVolumes: Check = {
  id: HOST_PATH_VOLUMES_ID,
  level: 'baseline',
  versions: [{ minimumVersion: majorMinor(0), checkPod: hostPathVolumesV1Dot0 }],
}
