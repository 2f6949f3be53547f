/** Sharing the host's namespaces (the reference's check_hostNamespaces.go): baseline from v1.0. */
import { ALLOWED, type Check, type PodLike, forbidden } from './check.js'
import { majorMinor } from './levels.js'

function hostNamespacesV1Dot0({ spec }: PodLike) {
  const shared: string[] = []
  if (spec.hostNetwork === true) shared.push('hostNetwork=true')
  if (spec.hostPID === true) shared.push('hostPID=true')
  if (spec.hostIPC === true) shared.push('hostIPC=true')
  return shared.length === 0 ? ALLOWED : forbidden('host namespaces', shared.join(', '))
}

export const checkHostNamespaces: Check = {
  id: 'hostNamespaces',
  level: 'baseline',
  versions: [{ minimumVersion: majorMinor(0), checkPod: hostNamespacesV1Dot0 }],
}
