/** Privileged containers (the reference's check_privileged.go): baseline from v1.0. */
import { ALLOWED, type Check, type PodLike, containerName, containers, containersNamed, forbidden, securityContext } from './check.js'
import { majorMinor } from './levels.js'

function privilegedV1Dot0({ spec }: PodLike) {
  const bad = containers(spec).filter((c) => securityContext(c)?.privileged === true).map(containerName)
  return bad.length === 0 ? ALLOWED : forbidden('privileged', `${containersNamed(bad)} must not set securityContext.privileged=true`)
}

export const checkPrivileged: Check = {
  id: 'privileged',
  level: 'baseline',
  versions: [{ minimumVersion: majorMinor(0), checkPod: privilegedV1Dot0 }],
}
