/**
 * Validation of the core API group (`v1`), after the reference's
 * `pkg/apis/core/validation/validation.go`: pod specs (and the pod templates of workloads),
 * services, secrets, config maps, and the DNS-1035 label rule of service names.
 */
import { privilegedAllowed } from '../kinds/capabilities.js'
import { type KubeObject, isPlainObject } from '../registry/object.js'
import { invalidValue, requiredValue } from '../registry/strategy.js'
import type { Cause } from '../status-errors.js'
import { arr, obj, str } from './helpers.js'

export { isDNS1035Label } from './strings.js'

/** ValidatePodSpec, as far as built: containers with names and images, privileged containers only with --allow-privileged. */
export function validatePodSpec(spec: unknown, path: string): Cause[] {
  const s = obj(spec)
  const containers = arr(s.containers)
  if (containers.length === 0) return [requiredValue(`${path}.containers`, '')]
  const causes: Cause[] = []
  containers.forEach((c, i) => {
    const co = obj(c)
    if (!str(co.name)) causes.push(requiredValue(`${path}.containers[${i}].name`, ''))
    if (!str(co.image)) causes.push(requiredValue(`${path}.containers[${i}].image`, ''))
  })
  if (!privilegedAllowed()) {
    for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
      arr(s[list]).forEach((c, i) => {
        if (obj(obj(c).securityContext).privileged === true) {
          causes.push({ reason: 'FieldValueForbidden', message: 'Forbidden: disallowed by cluster policy', field: `${path}.${list}[${i}].securityContext.privileged` })
        }
      })
    }
  }
  return causes
}

export function validatePod(o: KubeObject): Cause[] {
  return validatePodSpec(o.spec, 'spec')
}

export function validateService(o: KubeObject): Cause[] {
  const spec = obj(o.spec)
  const causes: Cause[] = []
  const types = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName']
  if (!types.includes(str(spec.type))) causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(spec.type)}: supported values: ${types.map((t) => `"${t}"`).join(', ')}`, field: 'spec.type' })
  if (spec.type !== 'ExternalName' && arr(spec.ports).length === 0 && spec.clusterIP !== 'None') causes.push(requiredValue('spec.ports', ''))
  arr(spec.ports).forEach((p, i) => {
    const port = obj(p).port
    if (typeof port !== 'number' || port < 1 || port > 65535) causes.push(invalidValue(`spec.ports[${i}].port`, port, 'must be between 1 and 65535, inclusive'))
  })
  return causes
}

export function validateSecret(o: KubeObject): Cause[] {
  const causes: Cause[] = []
  for (const field of ['data', 'stringData']) {
    const map = o[field]
    if (map === undefined || map === null) continue
    if (!isPlainObject(map)) causes.push(invalidValue(field, map, 'must be a map'))
    else for (const key of Object.keys(map)) if (!CONFIG_KEY.test(key)) causes.push(invalidValue(field, key, CONFIG_KEY_MESSAGE))
  }
  return causes
}

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/
const CONFIG_KEY_MESSAGE =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"

function validateConfigKeys(field: string, map: unknown): Cause[] {
  if (map === undefined || map === null) return []
  if (!isPlainObject(map)) return [invalidValue(field, map, 'must be a map')]
  const causes: Cause[] = []
  for (const key of Object.keys(map)) {
    if (key.length > 253) causes.push(invalidValue(field, key, 'must be no more than 253 characters'))
    if (!CONFIG_KEY.test(key)) causes.push(invalidValue(field, key, CONFIG_KEY_MESSAGE))
  }
  return causes
}

export function validateConfigMap(o: KubeObject): Cause[] {
  return [...validateConfigKeys('data', o.data), ...validateConfigKeys('binaryData', o.binaryData)]
}
