/**
 * Running as root by uid (the reference's check_runAsUser.go): restricted from v1.23 forbids
 * runAsUser=0 on the pod and containers; from v1.35 a pod in a user namespace is exempt.
 */
import { ALLOWED, type Check, type PodLike, containerName, containers, containersNamed, forbidden, inUserNamespace, securityContext } from './check.js'
import { majorMinor } from './levels.js'

function runAsUserV1Dot23({ spec }: PodLike) {
  const setters: string[] = []
  if (securityContext(spec)?.runAsUser === 0) setters.push('pod')
  const bad = containers(spec).filter((c) => securityContext(c)?.runAsUser === 0).map(containerName)
  if (bad.length > 0) setters.push(containersNamed(bad))
  return setters.length === 0 ? ALLOWED : forbidden('runAsUser=0', `${setters.join(' and ')} must not set runAsUser=0`)
}

function runAsUserV1Dot35(pod: PodLike) {
  return inUserNamespace(pod.spec) ? ALLOWED : runAsUserV1Dot23(pod)
}

export const checkRunAsUser: Check = {
  id: 'runAsUser',
  level: 'restricted',
  versions: [
    { minimumVersion: majorMinor(23), checkPod: runAsUserV1Dot23 },
    { minimumVersion: majorMinor(35), checkPod: runAsUserV1Dot35 },
  ],
}
