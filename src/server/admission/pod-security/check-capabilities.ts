/**
 * Linux capabilities (the reference's check_capabilities_baseline.go and
 * check_capabilities_restricted.go): baseline forbids adding beyond the default set from v1.0;
 * restricted (v1.22, replacing the baseline check) requires dropping ALL and adding at most
 * NET_BIND_SERVICE, Windows pods exempt from v1.25.
 */
import { ALLOWED, type Check, type Obj, type PodLike, containerName, containers, containersNamed, forbidden, isWindowsPod, joinQuote, obj, securityContext, sortedSet } from './check.js'
import { majorMinor } from './levels.js'

export const CAPABILITIES_BASELINE_ID = 'capabilities_baseline'

const DEFAULT_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT'])

function capabilities(container: Obj): Obj | undefined {
  return obj(securityContext(container)?.capabilities)
}

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : []
}

function capabilitiesBaselineV1Dot0({ spec }: PodLike) {
  const bad: string[] = []
  const added: string[] = []
  for (const container of containers(spec)) {
    const extra = names(capabilities(container)?.add).filter((c) => !DEFAULT_CAPABILITIES.has(c))
    if (extra.length === 0) continue
    bad.push(containerName(container))
    added.push(...extra)
  }
  if (bad.length === 0) return ALLOWED
  return forbidden('non-default capabilities', `${containersNamed(bad)} must not include ${joinQuote(sortedSet(added))} in securityContext.capabilities.add`)
}

function capabilitiesRestrictedV1Dot22({ spec }: PodLike) {
  const missingDropAll: string[] = []
  const addingForbidden: string[] = []
  const forbiddenCapabilities: string[] = []
  for (const container of containers(spec)) {
    const caps = capabilities(container)
    if (!caps) {
      missingDropAll.push(containerName(container))
      continue
    }
    if (!names(caps.drop).includes('ALL')) missingDropAll.push(containerName(container))
    const extra = names(caps.add).filter((c) => c !== 'NET_BIND_SERVICE')
    if (extra.length > 0) {
      addingForbidden.push(containerName(container))
      forbiddenCapabilities.push(...extra)
    }
  }
  const details: string[] = []
  if (missingDropAll.length > 0) details.push(`${containersNamed(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`)
  if (addingForbidden.length > 0) details.push(`${containersNamed(addingForbidden)} must not include ${joinQuote(sortedSet(forbiddenCapabilities))} in securityContext.capabilities.add`)
  return details.length === 0 ? ALLOWED : forbidden('unrestricted capabilities', details.join('; '))
}

// Pod validation refuses capabilities on a Windows pod, so one without them is admitted.
function capabilitiesRestrictedV1Dot25(pod: PodLike) {
  return isWindowsPod(pod.spec) ? ALLOWED : capabilitiesRestrictedV1Dot22(pod)
}

export const checkCapabilitiesBaseline: Check = {
  id: CAPABILITIES_BASELINE_ID,
  level: 'baseline',
  versions: [{ minimumVersion: majorMinor(0), checkPod: capabilitiesBaselineV1Dot0 }],
}

export const checkCapabilitiesRestricted: Check = {
  id: 'capabilities_restricted',
  level: 'restricted',
  versions: [
    { minimumVersion: majorMinor(22), checkPod: capabilitiesRestrictedV1Dot22, overrideCheckIds: [CAPABILITIES_BASELINE_ID] },
    { minimumVersion: majorMinor(25), checkPod: capabilitiesRestrictedV1Dot25, overrideCheckIds: [CAPABILITIES_BASELINE_ID] },
  ],
}
