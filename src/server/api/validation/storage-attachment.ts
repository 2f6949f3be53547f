/**
 * Validation of storage.k8s.io/v1 VolumeAttachment, after the reference's
 * `pkg/apis/storage/validation/validation.go` (ValidateVolumeAttachment, its v1 additions and
 * ValidateVolumeAttachmentUpdate): the attacher, exactly one source, the node name, the
 * status's metadata and errors; the spec is read-only once created.
 */
import type { KubeObject } from '../registry/object.js'
import { type ErrorList, Path, Rendered, forbidden, goJSON, invalid, required, tooLong } from './field/index.js'
import { obj, semanticEqual, str } from './helpers.js'
import { validateCSIDriverName } from './core/volumes.js'
import { validateAccessModes } from './core/persistent-volume-claims.js'
import { PV_SOURCES } from './core/persistent-volumes.js'
import { nameIsDNSSubdomain } from './names.js'
import { inclusiveRangeError } from './strings.js'

const SPEC = Path.of('spec')
const MAX_ATTACHED_METADATA_SIZE = 256 * (1 << 10)
const MAX_VOLUME_ERROR_MESSAGE_SIZE = 1024
const MAX_INT32 = 2 ** 31 - 1
const EXACTLY_ONE = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'

const isSet = (v: unknown) => v !== undefined && v !== null

/**
 * The inline PersistentVolumeSpec's own rules (ValidatePersistentVolumeSpec with
 * validateInlinePersistentVolumeSpec): no claimRef nor capacity, a CSI source (driver name,
 * volume handle), access modes, some volume source. Sources other than CSI are not checked
 * further here.
 */
function validateInlineVolumeSpec(spec: Record<string, unknown>, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (isSet(spec.claimRef)) errs.push(forbidden(fldPath.child('claimRef'), 'may not be specified in the context of inline volumes'))
  if (Object.keys(obj(spec.capacity)).length !== 0) errs.push(forbidden(fldPath.child('capacity'), 'may not be specified in the context of inline volumes'))
  if (!isSet(spec.csi)) errs.push(required(fldPath.child('csi'), 'has to be specified in the context of inline volumes'))
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes : []
  if (modes.length === 0) errs.push(required(fldPath.child('accessModes')))
  errs.push(...validateAccessModes(modes, fldPath.child('accessModes')))
  if (isSet(spec.csi)) {
    const csi = obj(spec.csi)
    errs.push(...validateCSIDriverName(str(csi.driver), fldPath.child('csi', 'driver')))
    if (str(csi.volumeHandle) === '') errs.push(required(fldPath.child('csi', 'volumeHandle')))
  }
  if (!PV_SOURCES.some((k) => isSet(spec[k]))) errs.push(required(fldPath, 'must specify a volume type'))
  return errs
}

function validateVolumeAttachmentSource(source: Record<string, unknown>, fldPath: Path): ErrorList {
  const inline = source.inlineVolumeSpec
  const pvName = source.persistentVolumeName
  if (!isSet(inline) && !isSet(pvName)) return [required(fldPath, EXACTLY_ONE)]
  if (isSet(inline) && isSet(pvName)) return [forbidden(fldPath, EXACTLY_ONE)]
  if (isSet(pvName)) return str(pvName) === '' ? [required(fldPath.child('persistentVolumeName'), 'must specify non empty persistentVolumeName')] : []
  return validateInlineVolumeSpec(obj(inline), fldPath.child('inlineVolumeSpec'))
}

function validateVolumeError(e: unknown, fldPath: Path): ErrorList {
  if (!isSet(e)) return []
  const errs: ErrorList = []
  // The reference reports the metadata limit here, not the message's 1024.
  if (str(obj(e).message).length > MAX_VOLUME_ERROR_MESSAGE_SIZE) errs.push(tooLong(fldPath.child('message'), MAX_ATTACHED_METADATA_SIZE))
  const code = obj(e).errorCode
  if (typeof code === 'number' && code < 0) errs.push(invalid(fldPath.child('errorCode'), code, inclusiveRangeError(0, MAX_INT32)))
  return errs
}

/** ValidateVolumeAttachment (without the metadata): spec, then status. */
function validateVolumeAttachmentCommon(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const errs: ErrorList = []
  if (str(spec.attacher) === '') errs.push(required(SPEC.child('attacher')))
  errs.push(...validateVolumeAttachmentSource(obj(spec.source), SPEC.child('source')))
  const nodeName = str(spec.nodeName)
  for (const m of nameIsDNSSubdomain(nodeName, false)) errs.push(invalid(SPEC.child('nodeName'), nodeName, m))
  const status = obj(o.status)
  let size = 0
  for (const [k, v] of Object.entries(obj(status.attachmentMetadata))) size += Buffer.byteLength(k) + Buffer.byteLength(str(v))
  if (size > MAX_ATTACHED_METADATA_SIZE) errs.push(tooLong(Path.of('status', 'attachmentMetadata'), MAX_ATTACHED_METADATA_SIZE))
  errs.push(...validateVolumeError(status.attachError, Path.of('status', 'attachError')))
  errs.push(...validateVolumeError(status.detachError, Path.of('status', 'detachError')))
  return errs
}

/** The strategy's Validate: ValidateVolumeAttachment, then the v1 checks (a CSI driver name, a PV name). */
export function validateVolumeAttachment(o: KubeObject): ErrorList {
  const errs = validateVolumeAttachmentCommon(o)
  const spec = obj(o.spec)
  errs.push(...validateCSIDriverName(str(spec.attacher), Path.of('spec.attacher')))
  const pvName = obj(spec.source).persistentVolumeName
  if (isSet(pvName)) for (const m of nameIsDNSSubdomain(str(pvName), false)) errs.push(invalid(Path.of('spec.source.persistentVolumeName'), str(pvName), m))
  return errs
}

/** ValidateVolumeAttachmentUpdate: the object's rules, and the spec read-only (also for status writes). */
export function validateVolumeAttachmentUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const errs = validateVolumeAttachmentCommon(o)
  if (!semanticEqual(o.spec, old.spec)) errs.push(invalid(SPEC, volumeAttachmentSpecValue(obj(o.spec)), 'field is immutable'))
  return errs
}

/**
 * The bad value of a changed spec: the reference passes its internal struct, which has no
 * JSON names, so json.Marshal prints Go's field names in declaration order.
 */
function volumeAttachmentSpecValue(spec: Record<string, unknown>): Rendered {
  const source = obj(spec.source)
  const sourceText = `{"PersistentVolumeName":${goJSON(source.persistentVolumeName ?? null)},"InlineVolumeSpec":${goJSON(source.inlineVolumeSpec ?? null)}}`
  return new Rendered(`{"Attacher":${goJSON(str(spec.attacher))},"Source":${sourceText},"NodeName":${goJSON(str(spec.nodeName))}}`)
}
