/**
 * Object metadata, as the reference's `k8s.io/apimachinery/pkg/api/validation/objectmeta.go`
 * (ValidateObjectMetaAccessor, ValidateObjectMetaAccessorUpdate) and `generic.go`: names per
 * kind, generateName, namespace, labels, annotations (256 KiB in total), owner references,
 * finalizers, managed fields; on update the immutable name, namespace, uid, timestamps.
 */
import { deepEqual } from '../../../core/patch/index.js'
import { type ErrorList, Path, Rendered, type StructField, forbidden, goQuote, invalid, required, structJSON, tooLong } from './field/index.js'
import { arr, obj, str } from './helpers.js'
import { validateLabels, validateManagedFields } from './meta-v1.js'
import { type NameValidator, nameIsDNSLabel } from './names.js'
import { isQualifiedName } from './strings.js'

export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable'
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0'
export const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * (1 << 10)

const METADATA = Path.of('metadata')

/** ValidateAnnotations: keys are qualified names in any case; keys and values 256 KiB in total. */
export function validateAnnotations(annotations: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  let total = 0
  const map = obj(annotations)
  for (const k in map) {
    if (!Object.hasOwn(map, k)) continue
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(invalid(fldPath, k, m))
    total += Buffer.byteLength(k) + Buffer.byteLength(str(map[k]))
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_B) errs.push(tooLong(fldPath, TOTAL_ANNOTATION_SIZE_LIMIT_B))
  return errs
}

/** schema.FromAPIVersionAndKind's group and version. */
function splitAPIVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '/') return { group: '', version: '' }
  const parts = apiVersion.split('/')
  if (parts.length === 1) return { group: '', version: apiVersion }
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! }
  // More than one slash: the reference's ParseGroupVersion fails and leaves both empty.
  return { group: '', version: '' }
}

function validateOwnerReference(ref: Record<string, unknown>, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const apiVersion = str(ref.apiVersion)
  const kind = str(ref.kind)
  const gv = splitAPIVersion(apiVersion)
  if (gv.version.length === 0) errs.push(invalid(fldPath.child('apiVersion'), apiVersion, 'version must not be empty'))
  if (kind.length === 0) errs.push(invalid(fldPath.child('kind'), kind, 'must not be empty'))
  if (str(ref.name).length === 0) errs.push(invalid(fldPath.child('name'), str(ref.name), 'must not be empty'))
  if (str(ref.uid).length === 0) errs.push(invalid(fldPath.child('uid'), str(ref.uid), 'must not be empty'))
  if (gv.group === '' && gv.version === 'v1' && kind === 'Event') {
    errs.push(invalid(fldPath, ownerReferenceJSON(ref), '/v1, Kind=Event is disallowed from being an owner'))
  }
  return errs
}

const OWNER_REFERENCE_FIELDS: readonly StructField[] = [['apiVersion'], ['kind'], ['name'], ['uid'], ['controller', true], ['blockOwnerDeletion', true]]

/** A metav1.OwnerReference as the reference's json.Marshal writes it (declaration order). */
function ownerReferenceJSON(ref: unknown): Rendered {
  return structJSON(ref, OWNER_REFERENCE_FIELDS)
}

/** ValidateOwnerReferences: each reference complete, at most one controller. */
export function validateOwnerReferences(refs: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  let firstController = ''
  for (const r of arr(refs)) {
    const ref = obj(r)
    errs.push(...validateOwnerReference(ref, fldPath))
    if (ref.controller === true) {
      const current = `${str(ref.kind)}/${str(ref.name)}`
      if (firstController !== '') {
        errs.push(
          invalid(fldPath, new Rendered(`[${arr(refs).map((x) => ownerReferenceJSON(x).text).join(',')}]`), `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`),
        )
      } else firstController = current
    }
  }
  return errs
}

export function validateFinalizerName(value: string, fldPath: Path): ErrorList {
  return isQualifiedName(value).map((m) => invalid(fldPath, value, m))
}

/** ValidateFinalizers: qualified names, not both orphan and foregroundDeletion. */
export function validateFinalizers(finalizers: unknown, fldPath: Path): ErrorList {
  const list = arr(finalizers).map((f) => str(f))
  const errs: ErrorList = []
  for (const f of list) errs.push(...validateFinalizerName(f, fldPath))
  if (list.includes('orphan') && list.includes('foregroundDeletion')) {
    errs.push(invalid(fldPath, list, 'finalizer orphan and foregroundDeletion cannot be both set'))
  }
  return errs
}

/** ValidateNonnegativeField. */
export function validateNonnegativeField(value: number, fldPath: Path): ErrorList {
  return value < 0 ? [invalid(fldPath, value, IS_NEGATIVE_ERROR_MSG)] : []
}

/** ValidateImmutableField: deep equality of the new and old values. */
export function validateImmutableField(newVal: unknown, oldVal: unknown, fldPath: Path): ErrorList {
  return deepEqual(newVal ?? null, oldVal ?? null) ? [] : [invalid(fldPath, newVal ?? null, FIELD_IMMUTABLE_ERROR_MSG)]
}

/** ValidateObjectMeta (ValidateObjectMetaAccessor) of an object being created (names already generated). */
export function validateObjectMeta(meta: unknown, namespaced: boolean, nameFn: NameValidator, fldPath: Path = METADATA): ErrorList {
  const m = obj(meta)
  const errs = validateObjectMetaNames(m, nameFn, fldPath)
  errs.push(...validateObjectMetaCommon(m, namespaced, fldPath))
  return errs
}

/** The part of ValidateObjectMeta that depends on the name validator: generateName and name. */
export function validateObjectMetaNames(meta: unknown, nameFn: NameValidator, fldPath: Path = METADATA): ErrorList {
  const m = obj(meta)
  const errs: ErrorList = []
  const generateName = str(m.generateName)
  if (generateName.length > 0) for (const msg of nameFn(generateName, true)) errs.push(invalid(fldPath.child('generateName'), generateName, msg))
  const name = str(m.name)
  if (name.length === 0) errs.push(required(fldPath.child('name'), 'name or generateName is required'))
  else for (const msg of nameFn(name, false)) errs.push(invalid(fldPath.child('name'), name, msg))
  return errs
}

function validateObjectMetaCommon(m: Record<string, unknown>, namespaced: boolean, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const namespace = str(m.namespace)
  if (namespaced) {
    if (namespace.length === 0) errs.push(required(fldPath.child('namespace')))
    else for (const msg of nameIsDNSLabel(namespace, false)) errs.push(invalid(fldPath.child('namespace'), namespace, msg))
  } else if (namespace.length > 0) errs.push(forbidden(fldPath.child('namespace'), 'not allowed on this type'))
  errs.push(...validateNonnegativeField(typeof m.generation === 'number' ? m.generation : 0, fldPath.child('generation')))
  errs.push(...validateLabels(m.labels, fldPath.child('labels')))
  errs.push(...validateAnnotations(m.annotations, fldPath.child('annotations')))
  errs.push(...validateOwnerReferences(m.ownerReferences, fldPath.child('ownerReferences')))
  errs.push(...validateFinalizers(m.finalizers, fldPath.child('finalizers')))
  errs.push(...validateManagedFields(m.managedFields, fldPath.child('managedFields')))
  return errs
}

/** ValidateNoNewFinalizers: none added while the object is being deleted. */
export function validateNoNewFinalizers(newFinalizers: unknown, oldFinalizers: unknown, fldPath: Path): ErrorList {
  const old = new Set(arr(oldFinalizers).map((f) => str(f)))
  const extra = [...new Set(arr(newFinalizers).map((f) => str(f)))].filter((f) => !old.has(f)).sort()
  if (extra.length === 0) return []
  const list = `[]string{${extra.map(goQuote).join(', ')}}`
  return [forbidden(fldPath, `no new finalizers can be added if the object is being deleted, found new finalizers ${list}`)]
}

/** ValidateObjectMetaAccessorUpdate: what an update may not change in metadata. */
export function validateObjectMetaUpdate(newMeta: unknown, oldMeta: unknown, fldPath: Path = METADATA): ErrorList {
  const n = obj(newMeta)
  const o = obj(oldMeta)
  const errs: ErrorList = []
  if (o.deletionTimestamp) errs.push(...validateNoNewFinalizers(n.finalizers, o.finalizers, fldPath.child('finalizers')))
  if (str(n.resourceVersion).length === 0) errs.push(invalid(fldPath.child('resourceVersion'), str(n.resourceVersion), 'must be specified for an update'))
  const newGen = typeof n.generation === 'number' ? n.generation : 0
  const oldGen = typeof o.generation === 'number' ? o.generation : 0
  if (newGen < oldGen) errs.push(invalid(fldPath.child('generation'), newGen, 'must not be decremented'))
  errs.push(...validateImmutableField(str(n.name), str(o.name), fldPath.child('name')))
  errs.push(...validateImmutableField(str(n.namespace), str(o.namespace), fldPath.child('namespace')))
  errs.push(...validateImmutableField(str(n.uid), str(o.uid), fldPath.child('uid')))
  errs.push(...validateImmutableField(n.creationTimestamp ?? null, o.creationTimestamp ?? null, fldPath.child('creationTimestamp')))
  errs.push(...validateImmutableField(n.deletionTimestamp ?? null, o.deletionTimestamp ?? null, fldPath.child('deletionTimestamp')))
  errs.push(...validateImmutableField(n.deletionGracePeriodSeconds ?? null, o.deletionGracePeriodSeconds ?? null, fldPath.child('deletionGracePeriodSeconds')))
  errs.push(...validateLabels(n.labels, fldPath.child('labels')))
  errs.push(...validateAnnotations(n.annotations, fldPath.child('annotations')))
  errs.push(...validateOwnerReferences(n.ownerReferences, fldPath.child('ownerReferences')))
  errs.push(...validateManagedFields(n.managedFields, fldPath.child('managedFields')))
  return errs
}

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion'])

/** The core group's validateKubeFinalizerName: a name without a domain must be a standard one. */
export function validateKubeFinalizerNames(finalizers: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  arr(finalizers).forEach((f, i) => {
    const name = str(f)
    if (!name.includes('/') && !STANDARD_FINALIZERS.has(name)) {
      errs.push(invalid(fldPath.index(i), name, 'name is neither a standard finalizer name nor is it fully qualified'))
    }
  })
  return errs
}
