/**
 * PersistentVolumes (pkg/apis/core/validation: ValidatePersistentVolumeSpec,
 * ValidatePersistentVolumeUpdate): access modes, a storage capacity, the reclaim policy, node
 * affinity, exactly one volume source; on update the source and mode are fixed.
 */
import { type ErrorList, Path, forbidden, invalid, notSupported, required } from '../field/index.js'
import { type Obj, arr, obj, semanticEqual, str } from '../helpers.js'
import { nameIsDNSLabel, nameIsDNSSubdomain } from '../names.js'
import { validateImmutableField } from '../objectmeta.js'
import { parseQuantity } from '../quantity.js'
import { validateDNS1123Label, validateDNS1123Subdomain, validatePositiveQuantityValue } from './common.js'
import { VOLUME_MODES, validateAccessModes } from './persistent-volume-claims.js'
import { validateNodeSelector } from './scheduling.js'
import { validateCSIDriverName, validateHostPathVolumeSource, validateVolumeSource } from './volumes.js'
import { validatePathNoBacksteps } from './paths.js'

const SPEC = Path.of('spec')
const has = (o: Obj, k: string) => o[k] !== undefined && o[k] !== null
const RECLAIM = ['Delete', 'Recycle', 'Retain']
/** The sources a PersistentVolume may have, in the reference's order. */
export const PV_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'flocker',
  'nfs',
  'rbd',
  'quobyte',
  'cephfs',
  'iscsi',
  'cinder',
  'fc',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'scaleIO',
  'local',
  'storageos',
  'csi',
]

function validatePVSecretReference(ref: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (!str(ref.name)) errs.push(required(fldPath.child('name')))
  else errs.push(...validateDNS1123Subdomain(str(ref.name), fldPath.child('name')))
  if (!str(ref.namespace)) errs.push(required(fldPath.child('namespace')))
  else errs.push(...validateDNS1123Label(str(ref.namespace), fldPath.child('namespace')))
  return errs
}

function validatePVSource(key: string, s: Obj, fldPath: Path, pv: Obj): ErrorList {
  switch (key) {
    case 'hostPath':
      return validateHostPathVolumeSource(s, fldPath)
    case 'local': {
      if (!str(s.path)) return [required(fldPath.child('path'))]
      return validatePathNoBacksteps(str(s.path), fldPath.child('path'))
    }
    case 'csi': {
      const errs = validateCSIDriverName(str(s.driver), fldPath.child('driver'))
      if (!str(s.volumeHandle)) errs.push(required(fldPath.child('volumeHandle')))
      for (const r of ['controllerPublishSecretRef', 'controllerExpandSecretRef', 'nodePublishSecretRef', 'nodeExpandSecretRef']) {
        if (has(s, r)) errs.push(...validatePVSecretReference(obj(s[r]), fldPath.child(r)))
      }
      return errs
    }
    case 'glusterfs': {
      const errs: ErrorList = []
      if (!str(s.endpoints)) errs.push(required(fldPath.child('endpoints')))
      if (!str(s.path)) errs.push(required(fldPath.child('path')))
      if (has(s, 'endpointsNamespace')) {
        const ns = str(s.endpointsNamespace)
        if (!ns) errs.push(invalid(fldPath.child('endpointsNamespace'), ns, 'if the endpointnamespace is set, it must be a valid namespace name'))
        else for (const m of nameIsDNSLabel(ns, false)) errs.push(invalid(fldPath.child('endpointsNamespace'), ns, m))
      }
      return errs
    }
    case 'cinder':
    case 'storageos': {
      const volumeErrs = validateVolumeSource({ name: 'x', [key]: s }, fldPath, 'x', undefined).filter((e) => !e.field.endsWith('secretRef.name'))
      const errs = volumeErrs.map((e) => e)
      if (has(s, 'secretRef')) {
        if (!str(obj(s.secretRef).name)) errs.push(required(fldPath.child('secretRef', 'name')))
        if (!str(obj(s.secretRef).namespace)) errs.push(required(fldPath.child('secretRef', 'namespace')))
      }
      return errs.map((e) => e)
    }
    default: {
      // The remaining sources share the pod volume source's rules.
      const errs = validateVolumeSource({ [key]: s }, fldPath.child('x'), str(obj(pv.metadata).name), undefined)
      return errs.map((e) => (e.field.startsWith(`${fldPath.toString()}.x.`) ? Object.assign(Object.create(Object.getPrototypeOf(e)), e, { field: e.field.replace('.x.', '.') }) : e))
    }
  }
}

/** ValidatePersistentVolumeSpec (not inline). */
export function validatePersistentVolume(pv: Obj): ErrorList {
  const spec = obj(pv.spec)
  const errs: ErrorList = []
  if (arr(spec.accessModes).length === 0) errs.push(required(SPEC.child('accessModes')))
  errs.push(...validateAccessModes(spec.accessModes, SPEC.child('accessModes')))
  const capacity = obj(spec.capacity)
  if (Object.keys(capacity).length === 0) errs.push(required(SPEC.child('capacity')))
  if (!('storage' in capacity) || Object.keys(capacity).length > 1) errs.push(notSupported(SPEC.child('capacity'), capacity, ['storage']))
  for (const [r, v] of Object.entries(capacity)) {
    const q = parseQuantity(v)
    if (!q) continue
    if (q.negative) errs.push(invalid(SPEC.child('capacity').key(r), Number(q.digits) * -1, 'must be a valid resource quantity'))
    errs.push(...validatePositiveQuantityValue(q, SPEC.child('capacity').key(r)))
  }
  const reclaim = str(spec.persistentVolumeReclaimPolicy)
  if (reclaim && !RECLAIM.includes(reclaim)) errs.push(notSupported(SPEC.child('persistentVolumeReclaimPolicy'), reclaim, RECLAIM))
  let nodeAffinitySpecified = false
  if (has(spec, 'nodeAffinity')) {
    nodeAffinitySpecified = true
    const na = obj(spec.nodeAffinity)
    if (has(na, 'required')) errs.push(...validateNodeSelector(obj(na.required), false, SPEC.child('nodeAffinity').child('required')))
    else errs.push(required(SPEC.child('nodeAffinity').child('required'), 'must specify required node constraints'))
  }
  let numVolumes = 0
  for (const key of PV_SOURCES) {
    if (!has(spec, key)) continue
    const childName = key === 'gcePersistentDisk' ? 'persistentDisk' : key
    if (numVolumes > 0 && key !== 'flexVolume') {
      errs.push(forbidden(SPEC.child(key === 'cephfs' ? 'cephFS' : key), 'may not specify more than 1 volume type'))
      continue
    }
    numVolumes++
    errs.push(...validatePVSource(key, obj(spec[key]), SPEC.child(childName), pv))
    if (key === 'local' && !nodeAffinitySpecified) errs.push(required(SPEC.child('nodeAffinity'), 'Local volume requires node affinity'))
  }
  if (numVolumes === 0) errs.push(required(SPEC, 'must specify a volume type'))
  if (has(spec, 'hostPath') && str(obj(spec.hostPath).path).replace(/\/+$/, '') === '' && reclaim === 'Recycle') {
    errs.push(forbidden(SPEC.child('persistentVolumeReclaimPolicy'), "may not be 'recycle' for a hostPath mount of '/'"))
  }
  const className = str(spec.storageClassName)
  if (className) for (const m of nameIsDNSSubdomain(className, false)) errs.push(invalid(SPEC.child('storageClassName'), className, m))
  if (has(spec, 'volumeMode') && !VOLUME_MODES.includes(str(spec.volumeMode))) errs.push(notSupported(SPEC.child('volumeMode'), str(spec.volumeMode), VOLUME_MODES))
  if (has(spec, 'volumeAttributesClassName')) {
    const vac = str(spec.volumeAttributesClassName)
    if (!vac) errs.push(required(SPEC.child('volumeAttributesClassName'), 'an empty string is disallowed'))
    else for (const m of nameIsDNSSubdomain(vac, false)) errs.push(invalid(SPEC.child('volumeAttributesClassName'), vac, m))
    if (!has(spec, 'csi')) errs.push(required(SPEC.child('csi'), 'has to be specified when using volumeAttributesClassName'))
  }
  return errs
}

/** ValidatePersistentVolumeUpdate (beyond metadata). */
export function validatePersistentVolumeUpdate(pv: Obj, old: Obj): ErrorList {
  const errs = validatePersistentVolume(pv)
  const spec = structuredClone(obj(pv.spec))
  const oldSpec = obj(old.spec)
  if (has(oldSpec, 'csi') && !has(obj(oldSpec.csi), 'controllerExpandSecretRef') && has(spec, 'csi')) delete obj(spec.csi).controllerExpandSecretRef
  const source = (s: Obj) => Object.fromEntries(PV_SOURCES.filter((k) => has(s, k)).map((k) => [k, s[k]]))
  if (!semanticEqual(source(spec), source(oldSpec))) errs.push(forbidden(Path.of('spec', 'persistentvolumesource'), 'spec.persistentvolumesource is immutable after creation'))
  errs.push(...validateImmutableField(spec.volumeMode ?? null, oldSpec.volumeMode ?? null, Path.of('volumeMode')))
  if (has(oldSpec, 'nodeAffinity') && !semanticEqual(spec.nodeAffinity, oldSpec.nodeAffinity)) {
    errs.push(invalid(Path.of('nodeAffinity'), spec.nodeAffinity ?? null, 'field is immutable, except for updating from beta label to GA'))
  }
  if (has(oldSpec, 'volumeAttributesClassName') && !has(spec, 'volumeAttributesClassName')) {
    errs.push(forbidden(Path.of('spec', 'volumeAttributesClassName'), 'update from non-nil value to nil is forbidden'))
  }
  return errs
}
