/**
 * SELinux options (the reference's check_seLinuxOptions.go): baseline from v1.0 allows only the
 * container types (container_engine_t too from v1.31) and no user or role.
 */
import { ALLOWED, type Check, type Obj, type PodLike, containerName, containers, containersNamed, forbidden, joinQuote, obj, pluralize, securityContext, sortedSet } from './check.js'
import { majorMinor } from './levels.js'

const TYPES_V1_0 = ['', 'container_t', 'container_init_t', 'container_kvm_t']
const TYPES_V1_31 = [...TYPES_V1_0, 'container_engine_t']

function seLinuxOptionsAllowing(allowedTypes: readonly string[]) {
  const allowed = new Set(allowedTypes)
  return ({ spec }: PodLike) => {
    const badTypes: string[] = []
    let setUser = false
    let setRole = false
    const valid = (holder: Obj): boolean => {
      const options = obj(securityContext(holder)?.seLinuxOptions)
      if (!options) return true
      let ok = true
      const type = typeof options.type === 'string' ? options.type : ''
      if (!allowed.has(type)) {
        ok = false
        badTypes.push(type)
      }
      if (typeof options.user === 'string' && options.user !== '') {
        ok = false
        setUser = true
      }
      if (typeof options.role === 'string' && options.role !== '') {
        ok = false
        setRole = true
      }
      return ok
    }
    const setters: string[] = []
    if (!valid(spec)) setters.push('pod')
    const bad = containers(spec).filter((c) => !valid(c)).map(containerName)
    if (bad.length > 0) setters.push(containersNamed(bad))
    if (setters.length === 0) return ALLOWED
    const data: string[] = []
    const types = sortedSet(badTypes)
    if (types.length > 0) data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`)
    if (setUser) data.push('user may not be set')
    if (setRole) data.push('role may not be set')
    return forbidden('seLinuxOptions', `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}`)
  }
}

export const checkSELinuxOptions: Check = {
  id: 'seLinuxOptions',
  level: 'baseline',
  versions: [
    { minimumVersion: majorMinor(0), checkPod: seLinuxOptionsAllowing(TYPES_V1_0) },
    { minimumVersion: majorMinor(31), checkPod: seLinuxOptionsAllowing(TYPES_V1_31) },
  ],
}
