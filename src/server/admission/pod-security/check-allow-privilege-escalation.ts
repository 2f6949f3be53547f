/**
 * Privilege escalation (the reference's check_allowPrivilegeEscalation.go): restricted from
 * v1.8 requires allowPrivilegeEscalation=false on every container, Windows pods exempt from
 * v1.25.
 */
import { ALLOWED, type Check, type PodLike, containerName, containers, containersNamed, forbidden, isWindowsPod, securityContext } from './check.js'
import { majorMinor } from './levels.js'

function allowPrivilegeEscalationV1Dot8({ spec }: PodLike) {
  const bad = containers(spec).filter((c) => securityContext(c)?.allowPrivilegeEscalation !== false).map(containerName)
  return bad.length === 0 ? ALLOWED : forbidden('allowPrivilegeEscalation != false', `${containersNamed(bad)} must set securityContext.allowPrivilegeEscalation=false`)
}

// Pod validation refuses the field on a Windows pod, so one without it is admitted.
function allowPrivilegeEscalationV1Dot25(pod: PodLike) {
  return isWindowsPod(pod.spec) ? ALLOWED : allowPrivilegeEscalationV1Dot8(pod)
}

export const checkAllowPrivilegeEscalation: Check = {
  id: 'allowPrivilegeEscalation',
  level: 'restricted',
  versions: [
    { minimumVersion: majorMinor(8), checkPod: allowPrivilegeEscalationV1Dot8 },
    { minimumVersion: majorMinor(25), checkPod: allowPrivilegeEscalationV1Dot25 },
  ],
}
