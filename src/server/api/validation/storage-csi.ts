/**
 * Validation of storage.k8s.io's CSI kinds, after the reference's
 * `pkg/apis/storage/validation/validation.go`: CSIDriver (ValidateCSIDriver and its update),
 * CSINode (ValidateCSINode: drivers' names, node IDs, topology keys, allocatable counts) and
 * CSIStorageCapacity (ValidateCSIStorageCapacity: node topology, class name, capacity).
 */
import type { KubeObject } from '../registry/object.js'
import { type ErrorList, Path, Rendered, duplicate, goJSON, invalid, notSupported, required } from './field/index.js'
import { arr, obj, semanticEqual, str } from './helpers.js'
import { validateCSIDriverName } from './core/volumes.js'
import { quantity, validateNonnegativeQuantity, validateQualifiedName } from './core/common.js'
import { validateLabelSelector } from './meta-v1.js'
import { nameIsDNSSubdomain } from './names.js'
import { validateImmutableField, validateNonnegativeField } from './objectmeta.js'

const SPEC = Path.of('spec')
const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType']
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral']
const MIN_TOKEN_SECONDS = 10 * 60
const MAX_TOKEN_SECONDS = 2 ** 32
/** The strategy validates new CSINodes with AllowLongNodeID, so the longer limit applies. */
const CSI_NODE_ID_MAX_LENGTH = 256

const isSet = (v: unknown) => v !== undefined && v !== null

/** validateCSIDriverSpec; the reference's path for attachRequired is `attachedRequired`. */
function validateCSIDriverSpec(spec: Record<string, unknown>, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (!isSet(spec.attachRequired)) errs.push(required(fldPath.child('attachedRequired')))
  if (!isSet(spec.podInfoOnMount)) errs.push(required(fldPath.child('podInfoOnMount')))
  if (!isSet(spec.storageCapacity)) errs.push(required(fldPath.child('storageCapacity')))
  if (isSet(spec.fsGroupPolicy) && !FS_GROUP_POLICIES.includes(str(spec.fsGroupPolicy))) {
    errs.push(notSupported(fldPath.child('fsGroupPolicy'), str(spec.fsGroupPolicy), FS_GROUP_POLICIES))
  }
  errs.push(...validateTokenRequests(spec.tokenRequests, fldPath.child('tokenRequests')))
  for (const mode of arr(spec.volumeLifecycleModes)) {
    if (!LIFECYCLE_MODES.includes(str(mode))) errs.push(notSupported(fldPath.child('volumeLifecycleModes'), str(mode), LIFECYCLE_MODES))
  }
  // SELinuxMountReadWriteOncePod is on in the reference's release.
  if (!isSet(spec.seLinuxMount)) errs.push(required(fldPath.child('seLinuxMount')))
  const period = spec.nodeAllocatableUpdatePeriodSeconds
  if (typeof period === 'number' && period < 10) errs.push(invalid(fldPath.child('nodeAllocatableUpdatePeriodSeconds'), period, 'must be greater than or equal to 10 seconds'))
  return errs
}

/** validateTokenRequests: distinct audiences; expirations between 10 minutes and 2^32 seconds. */
function validateTokenRequests(list: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const audiences = new Set<string>()
  arr(list).forEach((t, i) => {
    const path = fldPath.index(i)
    const audience = str(obj(t).audience)
    if (audiences.has(audience)) {
      errs.push(duplicate(path.child('audience'), audience))
      return
    }
    audiences.add(audience)
    const seconds = obj(t).expirationSeconds
    if (typeof seconds !== 'number') return
    if (seconds < MIN_TOKEN_SECONDS) errs.push(invalid(path.child('expirationSeconds'), seconds, 'may not specify a duration less than 10 minutes'))
    if (seconds > MAX_TOKEN_SECONDS) errs.push(invalid(path.child('expirationSeconds'), seconds, 'may not specify a duration larger than 2^32 seconds'))
  })
  return errs
}

/** ValidateCSIDriver (without the metadata). */
export function validateCSIDriver(o: KubeObject): ErrorList {
  return validateCSIDriverSpec(obj(o.spec), SPEC)
}

/** ValidateCSIDriverUpdate: the spec's rules, then attachRequired and volumeLifecycleModes immutable. */
export function validateCSIDriverUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const oldSpec = obj(old.spec)
  return [
    ...validateCSIDriverSpec(spec, SPEC),
    ...validateImmutableField(spec.attachRequired, oldSpec.attachRequired, SPEC.child('attachedRequired')),
    ...validateImmutableField(spec.volumeLifecycleModes, oldSpec.volumeLifecycleModes, SPEC.child('volumeLifecycleModes')),
  ]
}

/** validateCSINodeDriver: name, node ID, allocatable count, no duplicate name, topology keys. */
function validateCSINodeDriver(driver: Record<string, unknown>, seen: Set<string>, fldPath: Path): ErrorList {
  const name = str(driver.name)
  const errs = validateCSIDriverName(name, fldPath.child('name'))
  const nodeID = str(driver.nodeID)
  if (nodeID.length === 0) errs.push(required(fldPath.child('nodeID')))
  if (nodeID.length > CSI_NODE_ID_MAX_LENGTH) errs.push(invalid(fldPath.child('nodeID'), nodeID, `must be ${CSI_NODE_ID_MAX_LENGTH} characters or less`))
  const count = obj(driver.allocatable).count
  if (typeof count === 'number') errs.push(...validateNonnegativeField(count, fldPath.child('allocatable', 'count')))
  if (seen.has(name)) errs.push(duplicate(fldPath.child('name'), name))
  seen.add(name)
  const keys = new Set<string>()
  for (const k of arr(driver.topologyKeys)) {
    const key = str(k)
    if (key.length === 0) errs.push(required(fldPath))
    if (keys.has(key)) errs.push(duplicate(fldPath, key))
    keys.add(key)
    errs.push(...validateQualifiedName(key, fldPath))
  }
  return errs
}

/** ValidateCSINode (without the metadata). */
export function validateCSINode(o: KubeObject): ErrorList {
  const seen = new Set<string>()
  const errs: ErrorList = []
  arr(obj(o.spec).drivers).forEach((d, i) => errs.push(...validateCSINodeDriver(obj(d), seen, SPEC.child('drivers').index(i))))
  return errs
}

/**
 * ValidateCSINodeUpdate: a driver kept under the same name may not change, apart from its
 * allocatable count (MutableCSINodeAllocatableCount is on in the reference's release).
 */
export function validateCSINodeUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const errs = validateCSINode(o)
  const strip = (d: unknown) => {
    const copy = { ...obj(d) }
    delete copy.allocatable
    return copy
  }
  for (const oldDriver of arr(obj(old.spec).drivers)) {
    for (const newDriver of arr(obj(o.spec).drivers)) {
      if (str(obj(oldDriver).name) !== str(obj(newDriver).name)) continue
      if (!semanticEqual(strip(newDriver), strip(oldDriver))) errs.push(invalid(SPEC.child('drivers'), csiNodeDriverValue(strip(newDriver)), 'field is immutable'))
    }
  }
  return errs
}

/**
 * The bad value of a changed driver: the reference passes the internal struct (no JSON
 * names), so it prints with Go's field names in declaration order.
 */
function csiNodeDriverValue(d: Record<string, unknown>): Rendered {
  return new Rendered(`{"Name":${goJSON(str(d.name))},"NodeID":${goJSON(str(d.nodeID))},"TopologyKeys":${goJSON(d.topologyKeys ?? null)},"Allocatable":null}`)
}

/** ValidateCSIStorageCapacity (without the metadata). */
export function validateCSIStorageCapacity(o: KubeObject): ErrorList {
  const errs = validateLabelSelector(o.nodeTopology, { allowInvalidLabelValueInSelector: false }, Path.of('nodeTopology'))
  const className = str(o.storageClassName)
  for (const m of nameIsDNSSubdomain(className, false)) errs.push(invalid(Path.of('storageClassName'), className, m))
  if (isSet(o.capacity)) errs.push(...validateNonnegativeQuantity(quantity(o.capacity), Path.of('capacity')))
  return errs
}

/** ValidateCSIStorageCapacityUpdate: the inputs of the CSI GetCapacity call are immutable. */
export function validateCSIStorageCapacityUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const errs = validateCSIStorageCapacity(o)
  if (JSON.stringify(o.nodeTopology ?? null) !== JSON.stringify(old.nodeTopology ?? null)) errs.push(invalid(Path.of('nodeTopology'), o.nodeTopology ?? null, 'field is immutable'))
  if (str(o.storageClassName) !== str(old.storageClassName)) errs.push(invalid(Path.of('storageClassName'), str(o.storageClassName), 'field is immutable'))
  return errs
}
