/**
 * Validation of the storage.k8s.io API group, after the reference's
 * `pkg/apis/storage/validation/validation.go`: a StorageClass's provisioner (a qualified name),
 * parameters (sizes), reclaim policy and volume binding mode, with parameters, provisioner,
 * reclaim policy and binding mode immutable; a VolumeAttributesClass's driver name.
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
function validateProvisioner(provisioner: string, fldPath: Path): ErrorList {
  if (provisioner === '') return [required(fldPath, '')]
  return isQualifiedName(provisioner.toLowerCase()).map((m) => invalid(fldPath, provisioner, m))
}

function validateParameters(params: unknown, fldPath: Path): ErrorList {
  const entries = Object.entries(obj(params))
  if (entries.length > MAX_PARAMETERS) return [tooLong(fldPath, MAX_PARAMETERS)]
  const errs: ErrorList = []
  let size = 0
  for (const [k, v] of entries) {
    if (k.length < 1) errs.push(invalid(fldPath, k, 'field can not be empty.'))
    size += Buffer.byteLength(k) + Buffer.byteLength(str(v))
  }
  if (size > MAX_PARAMETERS_SIZE) errs.push(tooLong(fldPath, MAX_PARAMETERS_SIZE))
  return errs
}

/** ValidateStorageClass (without the object metadata; defaults applied). */
export function validateStorageClass(o: KubeObject): ErrorList {
  const errs = [...validateProvisioner(str(o.provisioner), Path.of('provisioner')), ...validateParameters(o.parameters, Path.of('parameters'))]
  const reclaim = str(o.reclaimPolicy)
  if (reclaim !== '' && !RECLAIM_POLICIES.includes(reclaim)) errs.push(notSupported(Path.of('reclaimPolicy'), reclaim, RECLAIM_POLICIES))
  if (o.volumeBindingMode === undefined || o.volumeBindingMode === null) errs.push(required(Path.of('volumeBindingMode'), ''))
  else if (!BINDING_MODES.includes(str(o.volumeBindingMode))) errs.push(notSupported(Path.of('volumeBindingMode'), str(o.volumeBindingMode), BINDING_MODES))
  return errs
}

/** ValidateStorageClassUpdate (without the metadata). */
export function validateStorageClassUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const errs: ErrorList = []
  if (JSON.stringify(Object.entries(obj(o.parameters)).sort()) !== JSON.stringify(Object.entries(obj(old.parameters)).sort())) {
    errs.push(forbidden(Path.of('parameters'), 'updates to parameters are forbidden.'))
  }
  if (str(o.provisioner) !== str(old.provisioner)) errs.push(forbidden(Path.of('provisioner'), 'updates to provisioner are forbidden.'))
  if (str(o.reclaimPolicy) !== str(old.reclaimPolicy)) errs.push(forbidden(Path.of('reclaimPolicy'), 'updates to reclaimPolicy are forbidden.'))
  errs.push(...validateImmutableField(o.volumeBindingMode, old.volumeBindingMode, Path.of('volumeBindingMode')))
  return errs
}

/** ValidateVolumeAttributesClass: the driver name is required (a CSI driver name). */
export function validateVolumeAttributesClass(o: KubeObject): ErrorList {
  return str(o.driverName) === '' ? [required(Path.of('driverName'), '')] : []
}

/** ValidateVolumeAttributesClassUpdate: driverName and parameters are immutable. */
export function validateVolumeAttributesClassUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const errs = validateVolumeAttributesClass(o)
  if (str(o.driverName) !== str(old.driverName)) errs.push(forbidden(Path.of('driverName'), 'updates to driverName are forbidden.'))
  if (JSON.stringify(Object.entries(obj(o.parameters)).sort()) !== JSON.stringify(Object.entries(obj(old.parameters)).sort())) {
    errs.push(forbidden(Path.of('parameters'), 'updates to parameters are forbidden.'))
  }
  return errs
}

/** ValidateCSIStorageCapacity's storage class name (required, a subdomain). */
export function validateCSIStorageCapacity(o: KubeObject): ErrorList {
  return str(o.storageClassName) === '' ? [required(Path.of('storageClassName'), '')] : []
}
