/**
 * AppArmor profiles (the reference's check_appArmorProfile.go): baseline from v1.0 forbids the
 * Unconfined type in the pod's and containers' appArmorProfile and any beta annotation value
 * other than empty, runtime/default or localhost/*.
 */
import { goQuote } from '../../api/validation/field/go-format.js'
import { ALLOWED, type Check, type Obj, type PodLike, annotations, containerName, containers, containersNamed, forbidden, joinQuote, obj, pluralize, securityContext, sortedSet } from './check.js'
import { majorMinor } from './levels.js'

const ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/'

/** The profile type a holder sets, when it sets one the baseline refuses. */
function forbiddenType(holder: Obj): string | undefined {
  const profile = obj(securityContext(holder)?.appArmorProfile)
  if (!profile) return undefined
  const type = typeof profile.type === 'string' ? profile.type : ''
  return type === 'RuntimeDefault' || type === 'Localhost' ? undefined : type
}

function allowedAnnotationValue(value: string): boolean {
  return value === '' || value === 'runtime/default' || value.startsWith('localhost/')
}

function appArmorProfileV1Dot0({ metadata, spec }: PodLike) {
  const setters: string[] = []
  const badTypes: string[] = []
  const podType = forbiddenType(spec)
  if (podType !== undefined) {
    setters.push('pod')
    badTypes.push(podType)
  }
  const bad: string[] = []
  for (const container of containers(spec)) {
    const type = forbiddenType(container)
    if (type === undefined) continue
    bad.push(containerName(container))
    badTypes.push(type)
  }
  if (bad.length > 0) setters.push(containersNamed(bad))
  const badAnnotations = Object.entries(annotations(metadata))
    .filter(([k, v]) => k.startsWith(ANNOTATION_PREFIX) && !allowedAnnotationValue(v))
    .map(([k, v]) => `${k}=${goQuote(v)}`)
    .sort()
  const badValues = [...sortedSet(badTypes), ...badAnnotations]
  if (badAnnotations.length > 0) setters.push(pluralize('annotation', 'annotations', badAnnotations.length))
  if (setters.length === 0) return ALLOWED
  return forbidden(
    pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', badValues.length),
    `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(badValues)}`,
  )
}

export const checkAppArmorProfile: Check = {
  id: 'appArmorProfile',
  level: 'baseline',
  versions: [{ minimumVersion: majorMinor(0), checkPod: appArmorProfileV1Dot0 }],
}
