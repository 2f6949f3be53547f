/**
 * Validation of internal.apiserver.k8s.io StorageVersions (alpha), after the reference's
 * `pkg/apis/apiserverinternal/validation/validation.go`: the name `<group>.<resource>`; on the
 * status, each server's ID, encoding, decodable and served versions, the common encoding
 * version, and the conditions (whose path the reference builds on `status` itself).
 */
import type { KubeObject } from '../registry/object.js'
import { type ErrorList, Path, duplicate, invalid, required } from './field/index.js'
import { arr, obj, str } from './helpers.js'
import { validateQualifiedName } from './core/common.js'
import { nameIsDNSSubdomain } from './names.js'
import { emptyError, isDNS1035Label, isDNS1123Subdomain, regexError } from './strings.js'

const STATUS = Path.of('status')
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?'
const DNS1035_LABEL_ERR_MSG = "a DNS-1035 label, which must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"

/** ValidateStorageVersionName. */
export function storageVersionName(name: string): string[] {
  const idx = name.lastIndexOf('.')
  if (idx < 0) return ['name must be in the form of <group>.<resource>']
  return [...isDNS1123Subdomain(name.slice(0, idx)).map((m) => `the group segment ${m}`), ...isDNS1035Label(name.slice(idx + 1)).map((m) => `the resource segment ${m}`)]
}

/** isValidAPIVersion: a DNS-1035 version with an optional DNS-subdomain group. */
function isValidAPIVersion(apiVersion: string): string[] {
  const parts = apiVersion.split('/')
  const errs: string[] = []
  let version: string
  if (parts.length === 1) version = parts[0]!
  else if (parts.length === 2) {
    const group = parts[0]!
    version = parts[1]!
    if (group.length === 0) errs.push(`group part: ${emptyError()}`)
    else errs.push(...isDNS1123Subdomain(group).map((m) => `group part: ${m}`))
  } else {
    return [`an apiVersion is ${regexError(DNS1035_LABEL_ERR_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyVersion')`]
  }
  if (version.length === 0) errs.push(`version part: ${emptyError()}`)
  else errs.push(...isDNS1035Label(version).map((m) => `version part: ${m}`))
  return errs
}

function validateServerStorageVersion(ssv: Record<string, unknown>, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const id = str(ssv.apiServerID)
  for (const m of nameIsDNSSubdomain(id, false)) errs.push(invalid(fldPath.child('apiServerID'), id, m))
  const encoding = str(ssv.encodingVersion)
  const encodingErrs = isValidAPIVersion(encoding)
  if (encodingErrs.length > 0) errs.push(invalid(fldPath.child('encodingVersion'), encoding, encodingErrs.join(',')))
  const decodable = arr(ssv.decodableVersions).map((v) => str(v))
  decodable.forEach((dv, i) => {
    const m = isValidAPIVersion(dv)
    if (m.length > 0) errs.push(invalid(fldPath.child('decodableVersions').index(i), dv, m.join(',')))
  })
  if (!decodable.includes(encoding)) errs.push(invalid(fldPath.child('decodableVersions'), decodable.length === 0 ? null : decodable, `decodableVersions must include encodingVersion ${encoding}`))
  arr(ssv.servedVersions).map((v) => str(v)).forEach((sv, i) => {
    const m = isValidAPIVersion(sv)
    if (m.length > 0) errs.push(invalid(fldPath.child('servedVersions').index(i), sv, m.join(',')))
    if (!decodable.includes(sv)) errs.push(invalid(fldPath.child('servedVersions').index(i), sv, `individual served version : ${sv} must be included in decodableVersions : [${decodable.join(' ')}]`))
  })
  return errs
}

/** validateStorageVersionStatus. */
function validateStorageVersionStatus(status: Record<string, unknown>): ErrorList {
  const errs: ErrorList = []
  const ids = new Set<string>()
  const versions = arr(status.storageVersions).map(obj)
  versions.forEach((ssv, i) => {
    const path = STATUS.child('storageVersions').index(i)
    const id = str(ssv.apiServerID)
    if (ids.has(id)) errs.push(duplicate(path.child('apiServerID'), id))
    else ids.add(id)
    errs.push(...validateServerStorageVersion(ssv, path))
  })
  const encodings = versions.map((v) => str(v.encodingVersion))
  const actual = encodings.length > 0 && encodings.every((e) => e === encodings[0]) ? encodings[0]! : undefined
  const common = typeof status.commonEncodingVersion === 'string' ? status.commonEncodingVersion : undefined
  const commonPath = STATUS.child('commonEncodingVersion')
  if (actual === undefined && common !== undefined) {
    errs.push(invalid(commonPath, common, 'should be nil if servers do not agree on the same encoding version, or if there is no server reporting the supported versions yet'))
  } else if (actual !== undefined && common === undefined) errs.push(invalid(commonPath, null, `the common encoding version is ${actual}`))
  else if (actual !== undefined && common !== undefined && actual !== common) errs.push(invalid(commonPath, common, `the actual common encoding version is ${actual}`))
  const seen = new Map<string, number>()
  arr(status.conditions).map(obj).forEach((c, i) => {
    const path = STATUS.index(i)
    const type = str(c.type)
    if (seen.has(type)) errs.push(invalid(path.child('type'), type, `the type of the condition is not unique, it also appears in conditions[${seen.get(type)}]`))
    seen.set(type, i)
    errs.push(...validateQualifiedName(type, path.child('type')))
    errs.push(...validateQualifiedName(str(c.status), path.child('status')))
    if (str(c.reason) === '') errs.push(required(path.child('reason'), 'reason cannot be empty'))
    if (str(c.message) === '') errs.push(required(path.child('message'), 'message cannot be empty'))
  })
  return errs
}

/** ValidateStorageVersion (without the metadata): its status. */
export function validateStorageVersion(o: KubeObject): ErrorList {
  return validateStorageVersionStatus(obj(o.status))
}

/** ValidateStorageVersionUpdate: the spec is empty, nothing to check. */
export function validateStorageVersionUpdate(): ErrorList {
  return []
}

/** ValidateStorageVersionStatusUpdate. */
export function validateStorageVersionStatusUpdate(o: KubeObject): ErrorList {
  return validateStorageVersionStatus(obj(o.status))
}
