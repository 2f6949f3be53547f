/**
 * Resource names and quantities (pkg/apis/core/validation: ValidateResourceQuantityValue,
 * validateContainerResourceName, validateResourceRequirements, and the helpers of
 * pkg/apis/core/helper: standard, native, integer and overcommittable resources).
 */
import { type ErrorList, type Path, duplicate, forbidden, invalid, required } from '../field/index.js'
import { type Obj, arr, obj, str } from '../helpers.js'
import { type Quantity, compareQuantity, milliValue, parseQuantity, quantityString } from '../quantity.js'
import { isQualifiedName } from '../strings.js'
import { IS_NOT_INTEGER_ERROR_MSG, quantityValue, validateNonnegativeQuantity, validateQualifiedName } from './common.js'

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage'])
const STANDARD_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'persistentvolumeclaims',
  'configmaps',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
])
const INTEGER_RESOURCES = new Set(['pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'persistentvolumeclaims', 'configmaps', 'services.nodeports', 'services.loadbalancers'])

export const isHugePageResourceName = (name: string) => name.startsWith('hugepages-')

/** helper.IsNativeResource: no domain, or a kubernetes.io one. */
export function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/')
}

/** helper.IsExtendedResourceName: a domain-prefixed name outside kubernetes.io, not requests.-prefixed. */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false
  return isQualifiedName(`requests.${name}`).length === 0
}

/** helper.IsOvercommitAllowed: native resources but huge pages. */
export function isOvercommitAllowed(name: string): boolean {
  return isNativeResource(name) && !isHugePageResourceName(name)
}

function isIntegerResourceName(name: string): boolean {
  return INTEGER_RESOURCES.has(name) || isExtendedResourceName(name)
}

function isStandardResourceName(name: string): boolean {
  return STANDARD_RESOURCES.has(name) || isHugePageResourceName(name) || name.startsWith('requests.hugepages-')
}

/** ValidateResourceQuantityValue: not negative, whole for integer resources. */
export function validateResourceQuantityValue(resource: string, q: Quantity, fldPath: Path): ErrorList {
  const errs = validateNonnegativeQuantity(q, fldPath)
  if (isIntegerResourceName(resource) && milliValue(q) % 1000n !== 0n) errs.push(invalid(fldPath, quantityValue(q), IS_NOT_INTEGER_ERROR_MSG))
  return errs
}

/** validateResourceName: a qualified name, standard when it has no domain. */
export function validateResourceName(name: string, fldPath: Path): ErrorList {
  const errs = validateQualifiedName(name, fldPath)
  if (errs.length > 0) return errs
  if (!name.includes('/') && !isStandardResourceName(name)) return [invalid(fldPath, name, 'must be a standard resource type or fully qualified')]
  return []
}

/** validateContainerResourceName. */
export function validateContainerResourceName(name: string, fldPath: Path): ErrorList {
  const errs = validateResourceName(name, fldPath)
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePageResourceName(name)) return [...errs, invalid(fldPath, name, 'must be a standard resource for containers')]
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    return [...errs, invalid(fldPath, name, "doesn't follow extended resource name standard")]
  }
  return errs
}

/** ValidateContainerResourceRequirements (validateResourceRequirements with container names). */
export function validateContainerResourceRequirements(requirements: unknown, podClaimNames: ReadonlySet<string> | undefined, fldPath: Path): ErrorList {
  const r = obj(requirements)
  const errs: ErrorList = []
  const limPath = fldPath.child('limits')
  const reqPath = fldPath.child('requests')
  const limits = obj(r.limits)
  let limCPUOrMem = false
  let reqCPUOrMem = false
  let hugePages = false
  for (const name in limits) {
    if (!Object.hasOwn(limits, name)) continue
    const value = limits[name]
    const p = limPath.key(name)
    errs.push(...validateContainerResourceName(name, p))
    const q = parseQuantity(value)
    if (q) errs.push(...validateResourceQuantityValue(name, q, p))
    if (isHugePageResourceName(name)) hugePages = true
    if (name === 'cpu' || name === 'memory') limCPUOrMem = true
  }
  const requests = obj(r.requests)
  for (const name in requests) {
    if (!Object.hasOwn(requests, name)) continue
    const value = requests[name]
    const p = reqPath.key(name)
    errs.push(...validateContainerResourceName(name, p))
    const q = parseQuantity(value)
    if (q) errs.push(...validateResourceQuantityValue(name, q, p))
    const limit = parseQuantity(limits[name])
    if (q && limit) {
      const order = compareQuantity(q, limit)
      if (order !== 0 && !isOvercommitAllowed(name)) {
        errs.push(invalid(reqPath, quantityString(q), `must be equal to ${name} limit of ${quantityString(limit)}`))
      } else if (order > 0) {
        errs.push(invalid(reqPath, quantityString(q), `must be less than or equal to ${name} limit of ${quantityString(limit)}`))
      }
    } else if (!(name in limits) && !isOvercommitAllowed(name)) {
      errs.push(required(limPath, 'Limit must be set for non overcommitable resources'))
    }
    if (isHugePageResourceName(name)) hugePages = true
    if (name === 'cpu' || name === 'memory') reqCPUOrMem = true
  }
  if (!limCPUOrMem && !reqCPUOrMem && hugePages) errs.push(forbidden(fldPath, 'HugePages require cpu or memory'))
  errs.push(...validateResourceClaimNames(r.claims, podClaimNames, fldPath.child('claims')))
  return errs
}

/** validateResourceClaimNames: container claims name pod claims, once each. */
function validateResourceClaimNames(claims: unknown, podClaimNames: ReadonlySet<string> | undefined, fldPath: Path): ErrorList {
  const list = arr(claims)
  if (list.length === 0) return []
  const errs: ErrorList = []
  const seen = new Set<string>()
  list.forEach((c, i) => {
    const claim = obj(c) as Obj
    const name = str(claim.name)
    const idx = fldPath.index(i)
    if (!name) errs.push(required(idx.child('name')))
    else {
      const key = `${name}/${str(claim.request)}`
      if (seen.has(key)) errs.push(duplicate(idx, key === `${name}/` ? name : key))
      else seen.add(key)
      if (podClaimNames && !podClaimNames.has(name)) {
        const detail = podClaimNames.size === 0 ? 'must be one of the names in pod.spec.resourceClaims which is empty' : `must be one of the names in pod.spec.resourceClaims: ${[...podClaimNames].sort().join(', ')}`
        errs.push(invalid(idx.child('name'), name, detail))
      }
    }
  })
  return errs
}
