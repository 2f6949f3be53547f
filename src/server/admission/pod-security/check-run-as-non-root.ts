/**
 * Running as non-root (the reference's check_runAsNonRoot.go): restricted from v1.0 requires
 * runAsNonRoot=true on the pod or every container and false nowhere; from v1.35 a pod in a user
 * namespace (hostUsers: false) is exempt.
 */
import { ALLOWED, type Check, type PodLike, containerName, containers, containersNamed, forbidden, inUserNamespace, securityContext } from './check.js'
import { majorMinor } from './levels.js'

function runAsNonRootV1Dot0({ spec }: PodLike) {
  const setters: string[] = []
  const podValue = securityContext(spec)?.runAsNonRoot
  if (podValue === false) setters.push('pod')
  const podRunAsNonRoot = podValue === true
  const explicitlyBad: string[] = []
  const implicitlyBad: string[] = []
  for (const container of containers(spec)) {
    const value = securityContext(container)?.runAsNonRoot
    if (typeof value === 'boolean') {
      if (!value) explicitlyBad.push(containerName(container))
    } else if (!podRunAsNonRoot) {
      implicitlyBad.push(containerName(container))
    }
  }
  if (explicitlyBad.length > 0) setters.push(containersNamed(explicitlyBad))
  if (setters.length > 0) return forbidden('runAsNonRoot != true', `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false`)
  if (implicitlyBad.length > 0) return forbidden('runAsNonRoot != true', `pod or ${containersNamed(implicitlyBad)} must set securityContext.runAsNonRoot=true`)
  return ALLOWED
}

function runAsNonRootV1Dot35(pod: PodLike) {
  return inUserNamespace(pod.spec) ? ALLOWED : runAsNonRootV1Dot0(pod)
}

export const checkRunAsNonRoot: Check = {
  id: 'runAsNonRoot',
  level: 'restricted',
  versions: [
    { minimumVersion: majorMinor(0), checkPod: runAsNonRootV1Dot0 },
    { minimumVersion: majorMinor(35), checkPod: runAsNonRootV1Dot35 },
  ],
}
