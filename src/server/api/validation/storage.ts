/**
 * Validation of the storage.k8s.io API group, after the reference's
 * `pkg/apis/storage/validation/validation.go`: StorageClass (provisioner, parameters, reclaim
 * policy, binding mode; the four immutable) and VolumeAttributesClass (driver name and
 * parameters, both immutable). CSIDriver, CSINode, VolumeAttachment and CSIStorageCapacity
 * have their own files (`storage-csi.ts`, `storage-attachment.ts`).
 */
import type { KubeObject } from '../registry/object.js'
import { type CauseLike, Path, forbidden, invalid, notSupported, required, tooLong } from './field/index.js'
import { obj, str } from './helpers.js'
import { validateImmutableField } from './objectmeta.js'
import { isQualifiedName } from './strings.js'

type ErrorList = CauseLike[]

const MAX_PARAMETERS = 512
const MAX_PARAMETERS_SIZE = 256 * 1024
const RECLAIM_POLICIES = ['Delete', 'Retain']
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer']

/** validateProvisioner: required, and (lower-cased) a qualified name. */
export function validateProvisioner(provisioner: string, fldPath: Path): ErrorList {
  if (provisioner === '') return [required(fldPath, '')]
  return isQualifiedName(provisioner.toLowerCase()).map((m) => invalid(fldPath, provisioner, m))
}

/** validateParameters: at most 512 entries and 256 KiB, no empty key; `allowEmpty` false: at least one. */
export function validateParameters(params: unknown, allowEmpty: boolean, fldPath: Path): ErrorList {
  const entries = Object.entries(obj(params))
  if (entries.length > MAX_PARAMETERS) return [tooLong(fldPath, MAX_PARAMETERS)]
  const errs: ErrorList = []
  let size = 0
  for (const [k, v] of entries) {
    if (k.length < 1) errs.push(invalid(fldPath, k, 'field can not be empty.'))
    size += Buffer.byteLength(k) + Buffer.byteLength(str(v))
  }
  if (size > MAX_PARAMETERS_SIZE) errs.push(tooLong(fldPath, MAX_PARAMETERS_SIZE))
  if (!allowEmpty && entries.length === 0) errs.push(required(fldPath, 'must contain at least one key/value pair'))
  return errs
}

/** ValidateStorageClass (without the object metadata; defaults applied). */
export function validateStorageClass(o: KubeObject): ErrorList {
  const errs = [...validateProvisioner(str(o.provisioner), Path.of('provisioner')), ...validateParameters(o.parameters, true, Path.of('parameters'))]
  const reclaim = str(o.reclaimPolicy)
  if (reclaim !== '' && !RECLAIM_POLICIES.includes(reclaim)) errs.push(notSupported(Path.of('reclaimPolicy'), reclaim, RECLAIM_POLICIES))
  if (o.volumeBindingMode === undefined || o.volumeBindingMode === null) errs.push(required(Path.of('volumeBindingMode'), ''))
  else if (!BINDING_MODES.includes(str(o.volumeBindingMode))) errs.push(notSupported(Path.of('volumeBindingMode'), str(o.volumeBindingMode), BINDING_MODES))
  return errs
}

/** ValidateStorageClassUpdate (without the metadata). */
export function validateStorageClassUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const errs: ErrorList = []
  if (!sameStringMap(o.parameters, old.parameters)) errs.push(forbidden(Path.of('parameters'), 'updates to parameters are forbidden.'))
  if (str(o.provisioner) !== str(old.provisioner)) errs.push(forbidden(Path.of('provisioner'), 'updates to provisioner are forbidden.'))
  if (str(o.reclaimPolicy) !== str(old.reclaimPolicy)) errs.push(forbidden(Path.of('reclaimPolicy'), 'updates to reclaimPolicy are forbidden.'))
  errs.push(...validateImmutableField(o.volumeBindingMode, old.volumeBindingMode, Path.of('volumeBindingMode')))
  return errs
}

/** ValidateVolumeAttributesClass: the driver name as a provisioner, at least one parameter. */
export function validateVolumeAttributesClass(o: KubeObject): ErrorList {
  return [...validateProvisioner(str(o.driverName), Path.of('driverName')), ...validateParameters(o.parameters, false, Path.of('parameters'))]
}

/** ValidateVolumeAttributesClassUpdate: driverName and parameters are immutable; then the class's own rules. */
export function validateVolumeAttributesClassUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const errs: ErrorList = []
  if (str(o.driverName) !== str(old.driverName)) errs.push(forbidden(Path.of('driverName'), 'updates to driverName are forbidden.'))
  if (!sameStringMap(o.parameters, old.parameters)) errs.push(forbidden(Path.of('parameters'), 'updates to parameters are forbidden.'))
  errs.push(...validateVolumeAttributesClass(o))
  return errs
}

/**
 * reflect.DeepEqual of two map[string]string as stored: the v1 field omits an empty map, so
 * an empty map and an absent one are the same stored value.
 */
function sameStringMap(a: unknown, b: unknown): boolean {
  const norm = (m: unknown) => JSON.stringify(Object.entries(obj(m)).sort())
  return norm(a) === norm(b)
}
