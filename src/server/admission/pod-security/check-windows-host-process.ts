/** Windows HostProcess containers (the reference's check_windowsHostProcess.go): baseline from v1.0. */
import { ALLOWED, type Check, type Obj, type PodLike, containerName, containers, containersNamed, forbidden, obj, securityContext } from './check.js'
import { majorMinor } from './levels.js'

function hostProcess(holder: Obj): boolean {
  return obj(securityContext(holder)?.windowsOptions)?.hostProcess === true
}

function windowsHostProcessV1Dot0({ spec }: PodLike) {
  const setters: string[] = []
  if (hostProcess(spec)) setters.push('pod')
  const bad = containers(spec).filter(hostProcess).map(containerName)
  if (bad.length > 0) setters.push(containersNamed(bad))
  return setters.length === 0 ? ALLOWED : forbidden('hostProcess', `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`)
}

export const checkWindowsHostProcess: Check = {
  id: 'windowsHostProcess',
  level: 'baseline',
  versions: [{ minimumVersion: majorMinor(0), checkPod: windowsHostProcessV1Dot0 }],
}
