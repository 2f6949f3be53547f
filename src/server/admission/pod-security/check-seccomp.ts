/**
 * Seccomp profiles (the reference's check_seccompProfile_baseline.go and
 * check_seccompProfile_restricted.go). Baseline: the alpha annotations until v1.19, then the
 * seccompProfile fields, may not name a profile other than the runtime default or a localhost
 * one. Restricted (v1.19, replacing the baseline check): every container must end up with
 * RuntimeDefault or Localhost, Windows pods exempt from v1.25.
 */
import { goQuote } from '../../api/validation/field/go-format.js'
import { ALLOWED, type Check, type Obj, type PodLike, annotations, containerName, containers, containersNamed, forbidden, isWindowsPod, joinQuote, obj, pluralize, securityContext, sortedSet } from './check.js'
import { majorMinor } from './levels.js'

export const SECCOMP_BASELINE_ID = 'seccompProfile_baseline'

const POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod'
const CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/'

function validAnnotationValue(value: string): boolean {
  return value === 'runtime/default' || value === 'docker/default' || value.startsWith('localhost/')
}

function seccompProfileBaselineV1Dot0({ metadata, spec }: PodLike) {
  const given = annotations(metadata)
  const bad: string[] = []
  const check = (key: string) => {
    const value = given[key]
    if (value !== undefined && !validAnnotationValue(value)) bad.push(`${key}=${goQuote(value)}`)
  }
  check(POD_ANNOTATION)
  for (const container of containers(spec)) check(CONTAINER_ANNOTATION_PREFIX + containerName(container))
  const distinct = sortedSet(bad)
  if (distinct.length === 0) return ALLOWED
  return forbidden('seccompProfile', `forbidden ${pluralize('annotation', 'annotations', distinct.length)} ${distinct.join(', ')}`)
}

/** The profile type a holder sets (undefined when it sets none). */
function profileType(holder: Obj): string | undefined {
  const profile = obj(securityContext(holder)?.seccompProfile)
  if (!profile) return undefined
  return typeof profile.type === 'string' ? profile.type : ''
}

function validType(type: string): boolean {
  return type === 'Localhost' || type === 'RuntimeDefault'
}

/** The fields' check; `required`: a container must end up with a valid profile (restricted). */
function seccompProfileFields(required: boolean) {
  return ({ spec }: PodLike) => {
    const setters: string[] = []
    const badValues: string[] = []
    const podType = profileType(spec)
    const podSet = podType !== undefined && validType(podType)
    if (podType !== undefined && !validType(podType)) {
      setters.push('pod')
      badValues.push(podType)
    }
    const explicitlyBad: string[] = []
    const implicitlyBad: string[] = []
    for (const container of containers(spec)) {
      const type = profileType(container)
      if (type === undefined) {
        if (!podSet) implicitlyBad.push(containerName(container))
      } else if (!validType(type)) {
        explicitlyBad.push(containerName(container))
        badValues.push(type)
      }
    }
    if (explicitlyBad.length > 0) setters.push(containersNamed(explicitlyBad))
    if (setters.length > 0) {
      return forbidden('seccompProfile', `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}`)
    }
    if (required && implicitlyBad.length > 0) {
      return forbidden('seccompProfile', `pod or ${containersNamed(implicitlyBad)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`)
    }
    return ALLOWED
  }
}

const seccompProfileRestrictedV1Dot19 = seccompProfileFields(true)

// Pod validation refuses seccomp on a Windows pod, so one without it is admitted.
function seccompProfileRestrictedV1Dot25(pod: PodLike) {
  return isWindowsPod(pod.spec) ? ALLOWED : seccompProfileRestrictedV1Dot19(pod)
}

export const checkSeccompProfileBaseline: Check = {
  id: SECCOMP_BASELINE_ID,
  level: 'baseline',
  versions: [
    { minimumVersion: majorMinor(0), checkPod: seccompProfileBaselineV1Dot0 },
    { minimumVersion: majorMinor(19), checkPod: seccompProfileFields(false) },
  ],
}

export const checkSeccompProfileRestricted: Check = {
  id: 'seccompProfile_restricted',
  level: 'restricted',
  versions: [
    { minimumVersion: majorMinor(19), checkPod: seccompProfileRestrictedV1Dot19, overrideCheckIds: [SECCOMP_BASELINE_ID] },
    { minimumVersion: majorMinor(25), checkPod: seccompProfileRestrictedV1Dot25, overrideCheckIds: [SECCOMP_BASELINE_ID] },
  ],
}
