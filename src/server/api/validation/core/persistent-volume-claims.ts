/**
 * PersistentVolumeClaims (pkg/apis/core/validation: ValidatePersistentVolumeClaimSpec,
 * ValidatePersistentVolumeClaim, ValidatePersistentVolumeClaimUpdate, the claim templates of
 * ephemeral volumes): access modes, a positive storage request, the class, data sources; on
 * update the spec is immutable but for a bound claim's storage request.
 */
import { deepEqual } from '../../../../core/patch/index.js'
import { type ErrorList, Path, forbidden, invalid, notSupported, required } from '../field/index.js'
import { type Obj, arr, obj, str } from '../helpers.js'
import { validateLabelSelector, validateLabels } from '../meta-v1.js'
import { nameIsDNSLabel, nameIsDNSSubdomain } from '../names.js'
import { validateAnnotations, validateImmutableField } from '../objectmeta.js'
import { compareQuantity, parseQuantity } from '../quantity.js'
import { isDNS1123Subdomain } from '../strings.js'
import { validatePositiveQuantityValue } from './common.js'
import { validateResourceQuantityValue } from './resources.js'

export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod']
export const VOLUME_MODES = ['Block', 'Filesystem']
const has = (o: Obj, k: string) => o[k] !== undefined && o[k] !== null

/** The access-mode rules shared by claims and volumes. */
export function validateAccessModes(modes: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  let rwop = false
  let other = false
  for (const m of arr(modes).map((x) => str(x))) {
    if (!ACCESS_MODES.includes(m)) errs.push(notSupported(fldPath, m, ACCESS_MODES))
    if (m === 'ReadWriteOncePod') rwop = true
    else if (ACCESS_MODES.includes(m)) other = true
  }
  if (rwop && other) errs.push(forbidden(fldPath, 'may not use ReadWriteOncePod with other access modes'))
  return errs
}

function validateDataSource(ds: Obj, fldPath: Path, withNamespace: boolean): ErrorList {
  const errs: ErrorList = []
  if (!str(ds.name)) errs.push(required(fldPath.child('name')))
  if (!str(ds.kind)) errs.push(required(fldPath.child('kind')))
  const apiGroup = str(ds.apiGroup)
  if (!apiGroup && str(ds.kind) !== 'PersistentVolumeClaim') errs.push(invalid(fldPath, str(ds.kind), "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
  if (apiGroup) for (const m of isDNS1123Subdomain(apiGroup)) errs.push(invalid(fldPath.child('apiGroup'), apiGroup, m))
  if (withNamespace && str(ds.namespace)) for (const m of nameIsDNSLabel(str(ds.namespace), false)) errs.push(invalid(fldPath.child('namespace'), str(ds.namespace), m))
  return errs
}

/** ValidatePersistentVolumeClaimSpec. */
export function validatePersistentVolumeClaimSpec(spec: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (arr(spec.accessModes).length === 0) errs.push(required(fldPath.child('accessModes'), 'at least 1 access mode is required'))
  if (has(spec, 'selector')) errs.push(...validateLabelSelector(spec.selector, {}, fldPath.child('selector')))
  errs.push(...validateAccessModes(spec.accessModes, fldPath.child('accessModes')))
  const requests = obj(obj(spec.resources).requests)
  const storagePath = fldPath.child('resources').key('storage')
  if (!has(requests, 'storage')) errs.push(required(storagePath))
  else {
    const q = parseQuantity(requests.storage)
    if (q) {
      const positive = validatePositiveQuantityValue(q, storagePath)
      errs.push(...(positive.length > 0 ? positive : validateResourceQuantityValue('storage', q, storagePath)))
    }
  }
  const className = str(spec.storageClassName)
  if (className) for (const m of nameIsDNSSubdomain(className, false)) errs.push(invalid(fldPath.child('storageClassName'), className, m))
  if (has(spec, 'volumeMode') && !VOLUME_MODES.includes(str(spec.volumeMode))) errs.push(notSupported(fldPath.child('volumeMode'), str(spec.volumeMode), VOLUME_MODES))
  if (has(spec, 'dataSource')) errs.push(...validateDataSource(obj(spec.dataSource), fldPath.child('dataSource'), false))
  if (has(spec, 'dataSourceRef')) errs.push(...validateDataSource(obj(spec.dataSourceRef), fldPath.child('dataSourceRef'), true))
  const ref = obj(spec.dataSourceRef)
  if (has(spec, 'dataSourceRef') && str(ref.namespace)) {
    if (has(spec, 'dataSource')) errs.push(invalid(fldPath, fldPath.child('dataSource').toString(), 'may not be specified when dataSourceRef.namespace is specified'))
  } else if (has(spec, 'dataSource') && has(spec, 'dataSourceRef')) {
    const ds = obj(spec.dataSource)
    if ((ds.apiGroup ?? null) !== (ref.apiGroup ?? null) || str(ds.kind) !== str(ref.kind) || str(ds.name) !== str(ref.name)) {
      errs.push(invalid(fldPath, fldPath.child('dataSource').toString(), 'must match dataSourceRef'))
    }
  }
  const vac = str(spec.volumeAttributesClassName)
  if (vac) for (const m of nameIsDNSSubdomain(vac, false)) errs.push(invalid(fldPath.child('volumeAttributesClassName'), vac, m))
  return errs
}

/** ValidateTemplateObjectMeta: only labels and annotations may be set. */
export function validateTemplateObjectMeta(meta: Obj, fldPath: Path): ErrorList {
  const errs = validateAnnotations(meta.annotations, fldPath.child('annotations'))
  errs.push(...validateLabels(meta.labels, fldPath.child('labels')))
  for (const k of Object.keys(meta)) {
    if (k === 'labels' || k === 'annotations') continue
    const v = meta[k]
    if (v === undefined || v === null || v === '' || v === 0 || (Array.isArray(v) && v.length === 0)) continue
    errs.push(forbidden(fldPath.child(k), 'cannot be set'))
  }
  return errs
}

/** ValidatePersistentVolumeClaim (metadata by the generic store). */
export function validatePersistentVolumeClaim(o: Obj): ErrorList {
  return validatePersistentVolumeClaimSpec(obj(o.spec), Path.of('spec'))
}

const BETA_CLASS = 'volume.beta.kubernetes.io/storage-class'

/** ValidatePersistentVolumeClaimUpdate (beyond metadata). */
export function validatePersistentVolumeClaimUpdate(o: Obj, old: Obj): ErrorList {
  const errs = validatePersistentVolumeClaim(o)
  const newSpec = structuredClone(obj(o.spec))
  const oldSpec = structuredClone(obj(old.spec))
  const newAnn = obj(obj(o.metadata).annotations)
  const oldAnn = obj(obj(old.metadata).annotations)
  if (!str(oldSpec.volumeName)) oldSpec.volumeName = newSpec.volumeName
  const oldHasAnn = BETA_CLASS in oldAnn
  const upgradeFromAnnotation =
    oldHasAnn && !has(oldSpec, 'storageClassName') && has(newSpec, 'storageClassName') && str(newSpec.storageClassName) === str(oldAnn[BETA_CLASS]) && (!(BETA_CLASS in newAnn) || newAnn[BETA_CLASS] === oldAnn[BETA_CLASS])
  if (upgradeFromAnnotation) delete newSpec.storageClassName
  else {
    if (str(newAnn[BETA_CLASS]) !== str(oldAnn[BETA_CLASS])) errs.push(invalid(Path.of('metadata').child('annotations', BETA_CLASS), str(newAnn[BETA_CLASS]), 'field is immutable'))
    if (has(newSpec, 'storageClassName') && !has(oldSpec, 'storageClassName') && (!oldHasAnn || str(newSpec.storageClassName) === str(oldAnn[BETA_CLASS]))) {
      delete newSpec.storageClassName
    }
  }
  const bound = str(obj(o.status).phase) === 'Bound'
  if (bound && has(obj(newSpec.resources), 'requests')) obj(obj(newSpec.resources).requests).storage = obj(obj(oldSpec.resources).requests).storage
  if (bound && has(newSpec, 'volumeAttributesClassName')) newSpec.volumeAttributesClassName = oldSpec.volumeAttributesClassName
  if (!deepEqual(stripEmpty(newSpec), stripEmpty(oldSpec))) {
    errs.push(forbidden(Path.of('spec'), 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'))
  }
  const oldSize = parseQuantity(obj(obj(obj(old.spec).resources).requests).storage)
  const newSize = parseQuantity(obj(obj(obj(o.spec).resources).requests).storage)
  if (oldSize && newSize && compareQuantity(newSize, oldSize) < 0) {
    const statusSize = parseQuantity(obj(obj(old.status).capacity).storage)
    // RecoverVolumeExpansionFailure (GA in 1.34): down to, not below or at, the recorded capacity.
    if (!statusSize || compareQuantity(newSize, statusSize) <= 0) {
      errs.push(forbidden(Path.of('spec', 'resources', 'requests', 'storage'), 'field can not be less than status.capacity'))
    }
  }
  errs.push(...validateImmutableField(obj(o.spec).volumeMode ?? null, obj(old.spec).volumeMode ?? null, Path.of('volumeMode')))
  const oldVac = obj(old.spec).volumeAttributesClassName
  const newVac = obj(o.spec).volumeAttributesClassName
  if ((oldVac ?? null) !== (newVac ?? null) && oldVac !== undefined && oldVac !== null) {
    if (newVac === undefined || newVac === null) errs.push(forbidden(Path.of('spec', 'volumeAttributesClassName'), 'update from non-nil value to nil is forbidden'))
    else if (str(newVac) === '') errs.push(forbidden(Path.of('spec', 'volumeAttributesClassName'), 'update from non-nil value to an empty string is forbidden'))
  }
  return errs
}

/** Decoded JSON compared as Go structs: absent, null and empty are the same. */
function stripEmpty(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(stripEmpty)
  if (v && typeof v === 'object') {
    const out: Obj = {}
    for (const [k, x] of Object.entries(v)) {
      const s = stripEmpty(x)
      if (s !== undefined && s !== null && s !== '') out[k] = s
    }
    return Object.keys(out).length === 0 ? undefined : out
  }
  return v
}
