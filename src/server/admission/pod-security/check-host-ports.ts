/** Host ports (the reference's check_hostPorts.go): baseline from v1.0. */
import { ALLOWED, type Check, type PodLike, containerName, containers, containersNamed, forbidden, obj, pluralize, sortedSet } from './check.js'
import { majorMinor } from './levels.js'

function hostPortsV1Dot0({ spec }: PodLike) {
  const bad: string[] = []
  const ports: string[] = []
  for (const container of containers(spec)) {
    const used = (Array.isArray(container.ports) ? container.ports : []).map((p) => obj(p)?.hostPort).filter((p): p is number => typeof p === 'number' && p !== 0)
    if (used.length === 0) continue
    bad.push(containerName(container))
    ports.push(...used.map(String))
  }
  if (bad.length === 0) return ALLOWED
  // The reference keeps the ports in a string set: they sort as text.
  const distinct = sortedSet(ports)
  return forbidden('hostPort', `${containersNamed(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', distinct.length)} ${distinct.join(', ')}`)
}

export const checkHostPorts: Check = {
  id: 'hostPorts',
  level: 'baseline',
  versions: [{ minimumVersion: majorMinor(0), checkPod: hostPortsV1Dot0 }],
}
