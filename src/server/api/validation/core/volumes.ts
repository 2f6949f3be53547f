/**
 * Pod volumes and their sources, as the reference's ValidateVolumes and validateVolumeSource
 * (pkg/apis/core/validation/validation.go): one source per volume, each source's own rules,
 * names unique DNS-1123 labels.
 */
import { type ErrorList, type Path, duplicate, forbidden, invalid, notSupported, required, tooLong } from '../field/index.js'
import { type Obj, arr, obj, str } from '../helpers.js'
import { validateLabelSelector } from '../meta-v1.js'
import { nameIsDNSSubdomain } from '../names.js'
import { isDNS1123Subdomain } from '../strings.js'
import { FILE_MODE_ERROR_MSG, quantity, validFileMode, validateDNS1123Label } from './common.js'
import { validateDownwardAPIVolumeFile } from './env.js'
import { validateLocalDescendingPath, validateLocalNonReservedPath, validatePathNoBacksteps } from './paths.js'
import { compareQuantity, ZERO_QUANTITY } from '../quantity.js'
import { validatePersistentVolumeClaimSpec, validateTemplateObjectMeta } from './persistent-volume-claims.js'

/** The volumes of a pod by name (valid ones only), for the mounts to refer to. */
export type VolumeMap = Map<string, Obj>

const has = (o: Obj, k: string) => o[k] !== undefined && o[k] !== null

/** ValidateVolumes. */
export function validateVolumes(volumes: unknown, podMeta: Obj | undefined, fldPath: Path, resourceIsPod = false): { vols: VolumeMap; errs: ErrorList } {
  const errs: ErrorList = []
  // The PVCs the pod's ephemeral volumes create (made only when it has some).
  let createdPVCs: Set<string> | undefined
  const podName = podMeta ? str(podMeta.name) : ''
  if (podName) for (const v of arr(volumes)) if (has(obj(v), 'ephemeral')) (createdPVCs ??= new Set()).add(`${podName}-${str(obj(v).name)}`)
  // The valid volumes by name; also the names seen, which the reference keeps in a set of its own.
  const vols: VolumeMap = new Map()
  const list = arr(volumes)
  for (let i = 0; i < list.length; i++) {
    const vol = obj(list[i])
    const idxPath = fldPath.index(i)
    const namePath = idxPath.child('name')
    const name = str(vol.name)
    const el = validateVolumeSource(vol, idxPath, name, podMeta, resourceIsPod)
    if (name.length === 0) el.push(required(namePath))
    else el.push(...validateDNS1123Label(name, namePath))
    if (vols.has(name)) el.push(duplicate(namePath, name))
    if (el.length === 0) vols.set(name, vol)
    else errs.push(...el)
    if (createdPVCs !== undefined && has(vol, 'persistentVolumeClaim')) {
      const claimName = str(obj(vol.persistentVolumeClaim).claimName)
      if (createdPVCs.has(claimName)) errs.push(invalid(idxPath.child('persistentVolumeClaim').child('claimName'), claimName, 'must not reference a PVC that gets created for an ephemeral volume'))
    }
  }
  return { vols, errs }
}

/** The volume sources in the reference's order, with the path it reports each under. */
const SOURCES: Array<[key: string, validate: (s: Obj, p: Path, volName: string, podMeta: Obj | undefined, resourceIsPod: boolean) => ErrorList, childName?: string]> = [
  ['emptyDir', (s, p) => (s.sizeLimit !== undefined && compareQuantity(quantity(s.sizeLimit), ZERO_QUANTITY) < 0 ? [forbidden(p.child('sizeLimit'), 'SizeLimit field must be a valid resource quantity')] : [])],
  ['hostPath', (s, p) => validateHostPathVolumeSource(s, p)],
  ['gitRepo', (s, p) => [...(str(s.repository) ? [] : [required(p.child('repository'))]), ...validateLocalDescendingPath(str(s.directory), p.child('directory'))]],
  ['gcePersistentDisk', (s, p) => validateDiskPartition(s, p, 'pdName'), 'persistentDisk'],
  ['awsElasticBlockStore', (s, p) => validateDiskPartition(s, p, 'volumeID')],
  ['secret', (s, p) => validateKeyProjection(s, p, 'secretName')],
  ['nfs', (s, p) => validateNFSVolumeSource(s, p)],
  ['iscsi', (s, p) => validateISCSIVolumeSource(s, p)],
  ['glusterfs', (s, p) => [...(str(s.endpoints) ? [] : [required(p.child('endpoints'))]), ...(str(s.path) ? [] : [required(p.child('path'))])]],
  ['flocker', (s, p) => validateFlockerVolumeSource(s, p)],
  ['persistentVolumeClaim', (s, p) => (str(s.claimName) ? [] : [required(p.child('claimName'))])],
  ['rbd', (s, p) => [...(arr(s.monitors).length ? [] : [required(p.child('monitors'))]), ...(str(s.image) ? [] : [required(p.child('image'))])]],
  ['cinder', (s, p) => [...(str(s.volumeID) ? [] : [required(p.child('volumeID'))]), ...(has(s, 'secretRef') && !str(obj(s.secretRef).name) ? [required(p.child('secretRef', 'name'))] : [])]],
  ['cephfs', (s, p) => (arr(s.monitors).length ? [] : [required(p.child('monitors'))]), 'cephfs'],
  ['quobyte', (s, p) => validateQuobyteVolumeSource(s, p)],
  ['downwardAPI', (s, p) => validateDownwardAPIVolumeSource(s, p)],
  ['fc', (s, p) => validateFCVolumeSource(s, p)],
  ['flexVolume', (s, p) => validateFlexVolumeSource(s, p)],
  ['configMap', (s, p) => validateKeyProjection(s, p, 'name')],
  ['azureFile', (s, p) => [...(str(s.secretName) ? [] : [required(p.child('secretName'))]), ...(str(s.shareName) ? [] : [required(p.child('shareName'))])]],
  ['vsphereVolume', (s, p) => (str(s.volumePath) ? [] : [required(p.child('volumePath'))])],
  ['photonPersistentDisk', (s, p) => (str(s.pdID) ? [] : [required(p.child('pdID'))])],
  ['portworxVolume', (s, p) => (str(s.volumeID) ? [] : [required(p.child('volumeID'))])],
  ['azureDisk', (s, p) => validateAzureDisk(s, p)],
  ['storageos', (s, p) => validateStorageOSVolumeSource(s, p)],
  ['projected', (s, p) => validateProjectedVolumeSource(s, p)],
  ['scaleIO', (s, p) => ['gateway', 'system', 'volumeName'].filter((k) => !str(s[k])).map((k) => required(p.child(k)))],
  ['csi', (s, p) => validateCSIVolumeSource(s, p)],
  ['ephemeral', (s, p, volName, podMeta) => validateEphemeralVolumeSource(s, p, volName, podMeta)],
  ['image', (s, p, _v, _m, resourceIsPod) => validateImageVolumeSource(s, p, resourceIsPod)],
]

/** Each source's place in SOURCES, by its field name. */
const SOURCE_INDEX = new Map(SOURCES.map(([key], i) => [key, i]))

/** validateVolumeSource: exactly one source. */
export function validateVolumeSource(vol: Obj, fldPath: Path, volName: string, podMeta: Obj | undefined, resourceIsPod = false): ErrorList {
  // A volume has its name and (if valid) one source: its own few fields say which, where asking
  // for each of the ~30 sources in turn was a keyed load per source on every volume. Only a
  // volume with several sources is walked in the reference's order, which its errors follow.
  let only = -1
  let several = false
  for (const k in vol) {
    const i = SOURCE_INDEX.get(k)
    if (i === undefined || !has(vol, k)) continue
    if (only >= 0) several = true
    only = i
  }
  const errs: ErrorList = []
  if (several) {
    let numVolumes = 0
    for (let i = 0; i < SOURCES.length; i++) if (has(vol, SOURCES[i]![0])) numVolumes = validateOneVolumeSource(i, numVolumes, vol, fldPath, volName, podMeta, resourceIsPod, errs)
  } else if (only >= 0) validateOneVolumeSource(only, 0, vol, fldPath, volName, podMeta, resourceIsPod, errs)
  else errs.push(required(fldPath, 'must specify a volume type'))
  return errs
}

/**
 * The checks of one source that is set (SOURCES[i]), the numVolumes-th found: appended to
 * errs; the number of sources found with this one.
 */
function validateOneVolumeSource(i: number, numVolumes: number, vol: Obj, fldPath: Path, volName: string, podMeta: Obj | undefined, resourceIsPod: boolean, errs: ErrorList): number {
  const [key, validate, childName] = SOURCES[i]!
  // The reference's historic misspelling of downwardAPI's path in this message.
  if (numVolumes > 0) errs.push(forbidden(fldPath.child(key === 'downwardAPI' ? 'downwarAPI' : key === 'cephfs' ? 'cephFS' : key), 'may not specify more than 1 volume type'))
  else {
    numVolumes++
    errs.push(...validate(obj(vol[key]), fldPath.child(childName ?? key), volName, podMeta, resourceIsPod))
  }
  if (key === 'iscsi' && has(obj(vol.iscsi), 'initiatorName') && Buffer.byteLength(`${volName}:${str(obj(vol.iscsi).targetPortal)}`) > 64) {
    errs.push(invalid(fldPath.child('name'), volName, 'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.'))
  }
  return numVolumes
}

const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket']

export function validateHostPathVolumeSource(s: Obj, fldPath: Path): ErrorList {
  const path = str(s.path)
  if (!path) return [required(fldPath.child('path'))]
  const errs = validatePathNoBacksteps(path, fldPath.child('path'))
  if (s.type !== undefined && s.type !== null && !HOST_PATH_TYPES.includes(str(s.type))) errs.push(notSupported(fldPath.child('type'), str(s.type), HOST_PATH_TYPES))
  return errs
}

function validateDiskPartition(s: Obj, fldPath: Path, idField: string): ErrorList {
  const errs: ErrorList = []
  if (!str(s[idField])) errs.push(required(fldPath.child(idField)))
  const partition = typeof s.partition === 'number' ? s.partition : 0
  if (partition < 0 || partition > 255) errs.push(invalid(fldPath.child('partition'), partition, 'must be between 1 and 255, inclusive'))
  return errs
}

/** validateKeyToPath. */
export function validateKeyToPath(kp: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (!str(kp.key)) errs.push(required(fldPath.child('key')))
  if (!str(kp.path)) errs.push(required(fldPath.child('path')))
  errs.push(...validateLocalNonReservedPath(str(kp.path), fldPath.child('path')))
  if (!validFileMode(kp.mode)) errs.push(invalid(fldPath.child('mode'), kp.mode, FILE_MODE_ERROR_MSG))
  return errs
}

/** validateSecretVolumeSource / validateConfigMapVolumeSource. */
function validateKeyProjection(s: Obj, fldPath: Path, nameField: string): ErrorList {
  const errs: ErrorList = []
  if (!str(s[nameField])) errs.push(required(fldPath.child(nameField)))
  if (!validFileMode(s.defaultMode)) errs.push(invalid(fldPath.child('defaultMode'), s.defaultMode, FILE_MODE_ERROR_MSG))
  arr(s.items).forEach((kp, i) => errs.push(...validateKeyToPath(obj(kp), fldPath.child('items').index(i))))
  return errs
}

function validateNFSVolumeSource(s: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (!str(s.server)) errs.push(required(fldPath.child('server')))
  if (!str(s.path)) errs.push(required(fldPath.child('path')))
  if (!str(s.path).startsWith('/')) errs.push(invalid(fldPath.child('path'), str(s.path), 'must be an absolute path'))
  return errs
}

const IQN_RE = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\s]+)$/
const EUI_RE = /^eui.[A-Za-z0-9]{16}$/
const NAA_RE = /^naa.[A-Za-z0-9]{32}$/

function badIQNFormat(v: string): boolean {
  return (v.startsWith('iqn') && !IQN_RE.test(v)) || (v.startsWith('eui') && !EUI_RE.test(v)) || (v.startsWith('naa') && !NAA_RE.test(v))
}
const knownPrefix = (v: string) => v.startsWith('iqn') || v.startsWith('eui') || v.startsWith('naa')

function validateISCSIVolumeSource(s: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (!str(s.targetPortal)) errs.push(required(fldPath.child('targetPortal')))
  const iqn = str(s.iqn)
  if (!iqn) errs.push(required(fldPath.child('iqn')))
  else if (!knownPrefix(iqn)) errs.push(invalid(fldPath.child('iqn'), iqn, 'must be valid format starting with iqn, eui, or naa'))
  else if (badIQNFormat(iqn)) errs.push(invalid(fldPath.child('iqn'), iqn, 'must be valid format'))
  const lun = typeof s.lun === 'number' ? s.lun : 0
  if (lun < 0 || lun > 255) errs.push(invalid(fldPath.child('lun'), lun, 'must be between 0 and 255, inclusive'))
  if ((s.chapAuthDiscovery === true || s.chapAuthSession === true) && !has(s, 'secretRef')) errs.push(required(fldPath.child('secretRef')))
  if (has(s, 'initiatorName')) {
    const initiator = str(s.initiatorName)
    if (!knownPrefix(initiator)) errs.push(invalid(fldPath.child('initiatorname'), initiator, 'must be valid format starting with iqn, eui, or naa'))
    if (badIQNFormat(initiator)) errs.push(invalid(fldPath.child('initiatorname'), initiator, 'must be valid format'))
  }
  return errs
}

function validateFlockerVolumeSource(s: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const name = str(s.datasetName)
  const uuid = str(s.datasetUUID)
  if (!name && !uuid) errs.push(required(fldPath, 'one of datasetName and datasetUUID is required'))
  if (name && uuid) errs.push(invalid(fldPath, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'))
  if (name.includes('/')) errs.push(invalid(fldPath.child('datasetName'), name, "must not contain '/'"))
  return errs
}

function validateQuobyteVolumeSource(s: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const registry = str(s.registry)
  if (!registry) errs.push(required(fldPath.child('registry'), 'must be a host:port pair or multiple pairs separated by commas'))
  else if (str(s.tenant).length >= 65) errs.push(required(fldPath.child('tenant'), 'must be a UUID and may not exceed a length of 64 characters'))
  else {
    for (const pair of registry.split(',')) {
      if (!/^(\[[^\]]*\]|[^:[\]]*):[^:]*$/.test(pair)) errs.push(invalid(fldPath.child('registry'), registry, 'must be a host:port pair or multiple pairs separated by commas'))
    }
  }
  if (!str(s.volume)) errs.push(required(fldPath.child('volume')))
  return errs
}

function validateDownwardAPIVolumeSource(s: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (!validFileMode(s.defaultMode)) errs.push(invalid(fldPath.child('defaultMode'), s.defaultMode, FILE_MODE_ERROR_MSG))
  for (const f of arr(s.items)) errs.push(...validateDownwardAPIVolumeFile(obj(f), fldPath))
  return errs
}

function validateFCVolumeSource(s: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const wwns = arr(s.targetWWNs)
  const wwids = arr(s.wwids)
  if (wwns.length < 1 && wwids.length < 1) errs.push(required(fldPath.child('targetWWNs'), 'must specify either targetWWNs or wwids, but not both'))
  if (wwns.length !== 0 && wwids.length !== 0) errs.push(invalid(fldPath.child('targetWWNs'), wwns, 'targetWWNs and wwids can not be specified simultaneously'))
  if (wwns.length !== 0) {
    if (s.lun === undefined || s.lun === null) errs.push(required(fldPath.child('lun'), 'lun is required if targetWWNs is specified'))
    else if (typeof s.lun === 'number' && (s.lun < 0 || s.lun > 255)) errs.push(invalid(fldPath.child('lun'), s.lun, 'must be between 0 and 255, inclusive'))
  }
  return errs
}

function validateFlexVolumeSource(s: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (!str(s.driver)) errs.push(required(fldPath.child('driver')))
  for (const k of Object.keys(obj(s.options))) {
    const ns = k.includes('/') ? k.slice(0, k.indexOf('/')) : k
    const normalized = `.${ns.toLowerCase()}`
    if (normalized.endsWith('.kubernetes.io') || normalized.endsWith('.k8s.io')) errs.push(invalid(fldPath.child('options').key(k), k, 'kubernetes.io and k8s.io namespaces are reserved'))
  }
  return errs
}

function validateAzureDisk(s: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (!str(s.diskName)) errs.push(required(fldPath.child('diskName')))
  const uri = str(s.diskURI)
  if (!uri) errs.push(required(fldPath.child('diskURI')))
  if (has(s, 'cachingMode') && !['None', 'ReadOnly', 'ReadWrite'].includes(str(s.cachingMode))) errs.push(notSupported(fldPath.child('cachingMode'), str(s.cachingMode), ['None', 'ReadOnly', 'ReadWrite']))
  if (has(s, 'kind') && !['Dedicated', 'Managed', 'Shared'].includes(str(s.kind))) errs.push(notSupported(fldPath.child('kind'), str(s.kind), ['Dedicated', 'Managed', 'Shared']))
  if (has(s, 'kind') && str(s.kind) === 'Managed' && !uri.startsWith('/subscriptions/')) {
    errs.push(notSupported(fldPath.child('diskURI'), uri, ['/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}']))
  }
  if (has(s, 'kind') && str(s.kind) !== 'Managed' && !uri.startsWith('https://')) {
    errs.push(notSupported(fldPath.child('diskURI'), uri, ['https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd']))
  }
  return errs
}

function validateStorageOSVolumeSource(s: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (!str(s.volumeName)) errs.push(required(fldPath.child('volumeName')))
  else errs.push(...validateDNS1123Label(str(s.volumeName), fldPath.child('volumeName')))
  if (str(s.volumeNamespace)) errs.push(...validateDNS1123Label(str(s.volumeNamespace), fldPath.child('volumeNamespace')))
  if (has(s, 'secretRef') && !str(obj(s.secretRef).name)) errs.push(required(fldPath.child('secretRef', 'name')))
  return errs
}

/** ValidateCSIDriverName. */
export function validateCSIDriverName(driverName: string, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (driverName.length === 0) errs.push(required(fldPath))
  if (driverName.length > 63) errs.push(tooLong(fldPath, 63))
  for (const m of isDNS1123Subdomain(driverName.toLowerCase())) errs.push(invalid(fldPath, driverName, m))
  return errs
}

function validateCSIVolumeSource(s: Obj, fldPath: Path): ErrorList {
  const errs = validateCSIDriverName(str(s.driver), fldPath.child('driver'))
  if (has(s, 'nodePublishSecretRef')) {
    const name = str(obj(s.nodePublishSecretRef).name)
    if (!name) errs.push(required(fldPath.child('nodePublishSecretRef', 'name')))
    else for (const m of nameIsDNSSubdomain(name, false)) errs.push(invalid(fldPath.child('name'), name, m))
  }
  return errs
}

function validateEphemeralVolumeSource(s: Obj, fldPath: Path, volName: string, podMeta: Obj | undefined): ErrorList {
  const errs: ErrorList = []
  if (!has(s, 'volumeClaimTemplate')) errs.push(required(fldPath.child('volumeClaimTemplate')))
  else {
    const tmpl = obj(s.volumeClaimTemplate)
    const p = fldPath.child('volumeClaimTemplate')
    errs.push(...validateTemplateObjectMeta(obj(tmpl.metadata), p.child('metadata')))
    errs.push(...validatePersistentVolumeClaimSpec(obj(tmpl.spec), p.child('spec')))
  }
  const podName = podMeta ? str(podMeta.name) : ''
  if (podName && volName) {
    const pvcName = `${podName}-${volName}`
    // The PVC's name is checked at the volume's path, as the reference does (fldPath is the volume's).
    for (const m of nameIsDNSSubdomain(pvcName, false)) errs.push(invalid(fldPath.child('name'), volName, `PVC name "${pvcName}": ${m}`))
  }
  return errs
}

function validateImageVolumeSource(s: Obj, fldPath: Path, resourceIsPod: boolean): ErrorList {
  const errs: ErrorList = []
  if (resourceIsPod && !str(s.reference)) errs.push(required(fldPath.child('reference')))
  const policy = str(s.pullPolicy)
  if (policy === '') errs.push(required(fldPath.child('pullPolicy')))
  else if (!['Always', 'IfNotPresent', 'Never'].includes(policy)) errs.push(notSupported(fldPath.child('pullPolicy'), policy, ['Always', 'IfNotPresent', 'Never']))
  return errs
}

function validateProjectedVolumeSource(s: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (!validFileMode(s.defaultMode)) errs.push(invalid(fldPath.child('defaultMode'), s.defaultMode, FILE_MODE_ERROR_MSG))
  const allPaths = new Set<string>()
  const addPath = (p: string, bad: string) => {
    if (allPaths.has(p)) errs.push(invalid(fldPath, bad, 'conflicting duplicate paths'))
    else allPaths.add(p)
  }
  arr(s.sources).forEach((src, i) => {
    const source = obj(src)
    const srcPath = fldPath.child('sources').index(i)
    let numSources = 0
    for (const kind of ['secret', 'configMap'] as const) {
      if (!has(source, kind)) continue
      numSources++
      const proj = obj(source[kind])
      const projPath = srcPath.child(kind)
      if (!str(proj.name)) errs.push(required(projPath.child('name')))
      arr(proj.items).forEach((kp, j) => {
        errs.push(...validateKeyToPath(obj(kp), projPath.child('items').index(j)))
        const p = str(obj(kp).path)
        if (p) addPath(p, str(proj.name))
      })
    }
    if (has(source, 'downwardAPI')) {
      numSources++
      const projPath = srcPath.child('downwardAPI')
      for (const f of arr(obj(source.downwardAPI).items)) {
        errs.push(...validateDownwardAPIVolumeFile(obj(f), projPath))
        const p = str(obj(f).path)
        if (p) addPath(p, p)
      }
    }
    if (has(source, 'serviceAccountToken')) {
      numSources++
      const tok = obj(source.serviceAccountToken)
      const projPath = srcPath.child('serviceAccountToken')
      const exp = typeof tok.expirationSeconds === 'number' ? tok.expirationSeconds : 0
      if (exp < 600) errs.push(invalid(projPath.child('expirationSeconds'), exp, 'may not specify a duration less than 10 minutes'))
      if (exp > 2 ** 32) errs.push(invalid(projPath.child('expirationSeconds'), exp, 'may not specify a duration larger than 2^32 seconds'))
      if (!str(tok.path)) errs.push(required(fldPath.child('path')))
      else errs.push(...validateLocalNonReservedPath(str(tok.path), fldPath.child('path')))
    }
    if (has(source, 'clusterTrustBundle')) {
      numSources++
      const ctb = obj(source.clusterTrustBundle)
      const projPath = srcPath.child('clusterTrustBundle')
      const usingName = has(ctb, 'name')
      const usingSigner = has(ctb, 'signerName')
      if (usingName && usingSigner) errs.push(invalid(projPath, ctb, 'only one of name and signerName may be used'))
      else if (usingName) {
        if (!str(ctb.name)) errs.push(required(projPath.child('name'), 'must be a valid object name'))
        if (has(ctb, 'labelSelector')) errs.push(invalid(projPath.child('labelSelector'), ctb.labelSelector, 'labelSelector must be unset if name is specified'))
      } else if (usingSigner) {
        if (!str(ctb.signerName)) errs.push(required(projPath.child('signerName'), 'must be a valid signer name'))
        errs.push(...validateLabelSelector(ctb.labelSelector, {}, projPath.child('labelSelector')))
      } else errs.push(required(projPath, 'either name or signerName must be specified'))
      if (!str(ctb.path)) errs.push(required(projPath.child('path')))
      errs.push(...validateLocalNonReservedPath(str(ctb.path), projPath.child('path')))
      addPath(str(ctb.path), str(ctb.path))
    }
    if (numSources > 1) errs.push(forbidden(srcPath, 'may not specify more than 1 volume type per source'))
  })
  return errs
}

