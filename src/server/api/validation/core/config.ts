/**
 * ConfigMaps and Secrets (pkg/apis/core/validation: ValidateConfigMap, ValidateConfigMapUpdate,
 * ValidateSecret, ValidateSecretUpdate): keys, 1 MiB in total, the secret types' required keys,
 * and `immutable: true`.
 */
import { type ErrorList, Path, forbidden, invalid, required, tooLong } from '../field/index.js'
import { type Obj, obj, semanticEqual, str } from '../helpers.js'
import { validateImmutableField } from '../objectmeta.js'
import { isConfigMapKey } from '../strings.js'

export const MAX_SECRET_SIZE = 1024 * 1024

/** Bytes of a base64 value (data of secrets, binaryData of config maps). */
function base64Bytes(v: unknown): Buffer {
  return Buffer.from(str(v), 'base64')
}

/** ValidateConfigMap (metadata by the generic store). */
export function validateConfigMap(o: Obj): ErrorList {
  const errs: ErrorList = []
  const data = obj(o.data)
  const binary = obj(o.binaryData)
  let total = 0
  for (const [key, value] of Object.entries(data)) {
    for (const m of isConfigMapKey(key)) errs.push(invalid(Path.of('data').key(key), key, m))
    if (key in binary) errs.push(invalid(Path.of('data').key(key), key, 'duplicate of key present in binaryData'))
    total += Buffer.byteLength(str(value))
  }
  for (const [key, value] of Object.entries(binary)) {
    for (const m of isConfigMapKey(key)) errs.push(invalid(Path.of('binaryData').key(key), key, m))
    total += base64Bytes(value).length
  }
  // The reference reports the size on the whole object: the path of NewPath(""), printed "[]".
  if (total > MAX_SECRET_SIZE) errs.push(tooLong(Path.of(''), MAX_SECRET_SIZE))
  return errs
}

const IMMUTABLE_MSG = 'field is immutable when `immutable` is set'

/** ValidateConfigMapUpdate (beyond metadata). */
export function validateConfigMapUpdate(o: Obj, old: Obj): ErrorList {
  const errs: ErrorList = []
  if (old.immutable === true) {
    if (o.immutable !== true) errs.push(forbidden(Path.of('immutable'), IMMUTABLE_MSG))
    if (!semanticEqual(o.data, old.data)) errs.push(forbidden(Path.of('data'), IMMUTABLE_MSG))
    if (!semanticEqual(o.binaryData, old.binaryData)) errs.push(forbidden(Path.of('binaryData'), IMMUTABLE_MSG))
  }
  return [...errs, ...validateConfigMap(o)]
}

/** encoding/json's Unmarshal error into a map, for the dockercfg keys. */
function jsonObjectError(bytes: Buffer): string | undefined {
  const text = bytes.toString('utf8')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    if (text.trim() === '') return 'unexpected end of JSON input'
    const first = text.trimStart()[0]!
    if (!'{["-0123456789tfn'.includes(first)) return `invalid character '${first}' looking for beginning of value`
    return 'unexpected end of JSON input'
  }
  if (value === null) return undefined
  if (typeof value !== 'object' || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'array' : typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'bool'
    return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`
  }
  return undefined
}

/** ValidateSecret (metadata by the generic store; stringData is already folded into data). */
export function validateSecret(o: Obj): ErrorList {
  const errs: ErrorList = []
  const dataPath = Path.of('data')
  const data = obj(o.data)
  let total = 0
  for (const [key, value] of Object.entries(data)) {
    for (const m of isConfigMapKey(key)) errs.push(invalid(dataPath.key(key), key, m))
    total += base64Bytes(value).length
  }
  if (total > MAX_SECRET_SIZE) errs.push(tooLong(dataPath, MAX_SECRET_SIZE))
  const type = str(o.type)
  switch (type) {
    case 'kubernetes.io/service-account-token':
      if (!str(obj(obj(o.metadata).annotations)['kubernetes.io/service-account.name'])) {
        errs.push(required(Path.of('metadata', 'annotations').key('kubernetes.io/service-account.name')))
      }
      break
    case 'kubernetes.io/dockercfg':
    case 'kubernetes.io/dockerconfigjson': {
      const key = type === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson'
      if (!(key in data)) {
        errs.push(required(dataPath.key(key)))
        break
      }
      const err = jsonObjectError(base64Bytes(data[key]))
      if (err) errs.push(invalid(dataPath.key(key), '<secret contents redacted>', err))
      break
    }
    case 'kubernetes.io/basic-auth':
      if (!('username' in data) && !('password' in data)) errs.push(required(dataPath.key('username')), required(dataPath.key('password')))
      break
    case 'kubernetes.io/ssh-auth':
      if (base64Bytes(data['ssh-privatekey']).length === 0) errs.push(required(dataPath.key('ssh-privatekey')))
      break
    case 'kubernetes.io/tls':
      if (!('tls.crt' in data)) errs.push(required(dataPath.key('tls.crt')))
      if (!('tls.key' in data)) errs.push(required(dataPath.key('tls.key')))
      break
    default:
      break
  }
  return errs
}

/** ValidateSecretUpdate (beyond metadata): the type is fixed, immutable secrets stay as they are. */
export function validateSecretUpdate(o: Obj, old: Obj): ErrorList {
  const errs = validateImmutableField(str(o.type), str(old.type), Path.of('type'))
  if (old.immutable === true) {
    if (o.immutable !== true) errs.push(forbidden(Path.of('immutable'), IMMUTABLE_MSG))
    if (!semanticEqual(o.data, old.data)) errs.push(forbidden(Path.of('data'), IMMUTABLE_MSG))
  }
  return [...errs, ...validateSecret(o)]
}
