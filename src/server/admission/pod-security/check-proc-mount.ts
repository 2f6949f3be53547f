/**
 * The /proc mask (the reference's check_procMount_baseline.go and
 * check_procMount_restricted.go): baseline from v1.0 allows only the Default procMount, and
 * from v1.35 any value for a pod in a user namespace (hostUsers: false); restricted from v1.35
 * keeps the unconditional rule, replacing the baseline check.
 */
import { ALLOWED, type Check, type PodLike, containerName, containers, containersNamed, forbidden, inUserNamespace, joinQuote, securityContext, sortedSet } from './check.js'
import { majorMinor } from './levels.js'

export const PROC_MOUNT_ID = 'procMount'

function procMountV1Dot0({ spec }: PodLike) {
  const bad: string[] = []
  const types: string[] = []
  for (const container of containers(spec)) {
    const procMount = securityContext(container)?.procMount
    if (procMount === undefined || procMount === null || procMount === 'Default') continue
    bad.push(containerName(container))
    types.push(String(procMount))
  }
  if (bad.length === 0) return ALLOWED
  return forbidden('procMount', `${containersNamed(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`)
}

function procMountV1Dot35Baseline(pod: PodLike) {
  return inUserNamespace(pod.spec) ? ALLOWED : procMountV1Dot0(pod)
}

export const checkProcMountBaseline: Check = {
  id: PROC_MOUNT_ID,
  level: 'baseline',
  versions: [
    { minimumVersion: majorMinor(0), checkPod: procMountV1Dot0 },
    { minimumVersion: majorMinor(35), checkPod: procMountV1Dot35Baseline },
  ],
}

export const checkProcMountRestricted: Check = {
  id: 'procMount_restricted',
  level: 'restricted',
  versions: [{ minimumVersion: majorMinor(35), checkPod: procMountV1Dot0, overrideCheckIds: [PROC_MOUNT_ID] }],
}
