/**
 * Environment variables, their sources, and the downward API (pkg/apis/core/validation:
 * ValidateEnv, validateEnvVarValueFrom, ValidateEnvFrom, validateObjectFieldSelector,
 * validateContainerResourceFieldSelector, validateDownwardAPIVolumeFile).
 */
import { type ErrorList, type Path, invalid, notSupported, required } from '../field/index.js'
import { type Obj, arr, obj, str } from '../helpers.js'
import { nameIsDNSSubdomain } from '../names.js'
import { isConfigMapKey, isRelaxedEnvVarName } from '../strings.js'
import { FILE_MODE_ERROR_MSG, validFileMode, validateQualifiedName } from './common.js'
import { validateLocalNonReservedPath } from './paths.js'
import { parseQuantity, quantityString } from '../quantity.js'

const has = (o: Obj, k: string) => o[k] !== undefined && o[k] !== null

/** ValidateEnv (RelaxedEnvironmentVariableValidation is on by default since 1.34). */
export function validateEnv(vars: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const list = arr(vars)
  for (let i = 0; i < list.length; i++) {
    const ev = obj(list[i])
    const idxPath = fldPath.index(i)
    const name = str(ev.name)
    if (!name) errs.push(required(idxPath.child('name')))
    else for (const m of isRelaxedEnvVarName(name)) errs.push(invalid(idxPath.child('name'), name, m))
    errs.push(...validateEnvVarValueFrom(ev, idxPath.child('valueFrom')))
  }
  return errs
}

const ENV_FIELD_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'].sort()
const VOLUME_FIELD_PATHS = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'].sort()
const RESOURCE_FIELD_PATHS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory']
const HUGEPAGES_PREFIXES = ['limits.hugepages-', 'requests.hugepages-']

function validateEnvVarValueFrom(ev: Obj, fldPath: Path): ErrorList {
  if (!has(ev, 'valueFrom')) return []
  const from = obj(ev.valueFrom)
  const errs: ErrorList = []
  let numSources = 0
  if (has(from, 'fieldRef')) {
    numSources++
    errs.push(...validateObjectFieldSelector(obj(from.fieldRef), ENV_FIELD_PATHS, fldPath.child('fieldRef')))
  }
  if (has(from, 'resourceFieldRef')) {
    numSources++
    errs.push(...validateContainerResourceFieldSelector(obj(from.resourceFieldRef), fldPath.child('resourceFieldRef'), false))
  }
  if (has(from, 'configMapKeyRef')) {
    numSources++
    errs.push(...validateKeySelector(obj(from.configMapKeyRef), fldPath.child('configMapKeyRef')))
  }
  if (has(from, 'secretKeyRef')) {
    numSources++
    errs.push(...validateKeySelector(obj(from.secretKeyRef), fldPath.child('secretKeyRef')))
  }
  if (numSources === 0) errs.push(invalid(fldPath, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'))
  else if (str(ev.value).length !== 0) errs.push(invalid(fldPath, '', 'may not be specified when `value` is not empty'))
  else if (numSources > 1) errs.push(invalid(fldPath, '', 'may not have more than one field specified at a time'))
  return errs
}

/** The v1 pod fields the downward API converts (podshelper.ConvertDownwardAPIFieldLabel). */
const CONVERTIBLE = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
])

/** fieldpath.SplitMaybeSubscriptedPath: `metadata.labels['key']`. */
function splitSubscript(fieldPath: string): { path: string; subscript?: string } {
  if (!fieldPath.endsWith("']")) return { path: fieldPath }
  const open = fieldPath.indexOf("['")
  if (open < 0) return { path: fieldPath }
  return { path: fieldPath.slice(0, open), subscript: fieldPath.slice(open + 2, -2) }
}

export function validateObjectFieldSelector(fs: Obj, expressions: readonly string[], fldPath: Path): ErrorList {
  const apiVersion = str(fs.apiVersion)
  if (!apiVersion) return [required(fldPath.child('apiVersion'))]
  const fieldPath = str(fs.fieldPath)
  if (!fieldPath) return [required(fldPath.child('fieldPath'))]
  if (apiVersion !== 'v1') return [invalid(fldPath.child('fieldPath'), fieldPath, `error converting fieldPath: unsupported pod version: ${apiVersion}`)]
  const { path, subscript } = splitSubscript(fieldPath)
  if (subscript !== undefined) {
    if (path === 'metadata.annotations') return validateQualifiedName(subscript.toLowerCase(), fldPath)
    if (path === 'metadata.labels') return validateQualifiedName(subscript, fldPath)
    if (!CONVERTIBLE.has(path)) return [invalid(fldPath.child('fieldPath'), fieldPath, `error converting fieldPath: field label not supported: ${fieldPath}`)]
    return [invalid(fldPath, path, 'does not support subscript')]
  }
  if (!CONVERTIBLE.has(path)) return [invalid(fldPath.child('fieldPath'), fieldPath, `error converting fieldPath: field label not supported: ${fieldPath}`)]
  if (!expressions.includes(path)) return [notSupported(fldPath.child('fieldPath'), path, expressions)]
  return []
}

const CPU_DIVISORS = ['1m', '1']
const BYTE_DIVISORS = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei']

export function validateContainerResourceFieldSelector(fs: Obj, fldPath: Path, volume: boolean): ErrorList {
  const errs: ErrorList = []
  const resource = str(fs.resource)
  if (volume && !str(fs.containerName)) errs.push(required(fldPath.child('containerName')))
  else if (!resource) errs.push(required(fldPath.child('resource')))
  else if (!RESOURCE_FIELD_PATHS.includes(resource) && !HUGEPAGES_PREFIXES.some((p) => resource.startsWith(p))) {
    errs.push(notSupported(fldPath.child('resource'), resource, RESOURCE_FIELD_PATHS))
  }
  const divisor = parseQuantity(fs.divisor)
  if (divisor && divisor.digits !== 0n) {
    const d = quantityString(divisor)
    const check = (allowed: string[], what: string) => {
      if (!allowed.includes(d)) errs.push(invalid(fldPath.child('divisor'), resource, `only divisor's values ${allowed.join(', ')} are supported with the ${what}`))
    }
    if (resource === 'limits.cpu' || resource === 'requests.cpu') check(CPU_DIVISORS, 'cpu resource')
    else if (resource === 'limits.memory' || resource === 'requests.memory') check(BYTE_DIVISORS, 'memory resource')
    else if (resource === 'limits.ephemeral-storage' || resource === 'requests.ephemeral-storage') check(BYTE_DIVISORS, 'local ephemeral storage resource')
    if (HUGEPAGES_PREFIXES.some((p) => resource.startsWith(p))) check(BYTE_DIVISORS, 'hugepages resource')
  }
  return errs
}

/** validateConfigMapKeySelector / validateSecretKeySelector. */
function validateKeySelector(s: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const name = str(s.name)
  for (const m of nameIsDNSSubdomain(name, false)) errs.push(invalid(fldPath.child('name'), name, m))
  const key = str(s.key)
  if (!key) errs.push(required(fldPath.child('key')))
  else for (const m of isConfigMapKey(key)) errs.push(invalid(fldPath.child('key'), key, m))
  return errs
}

/** ValidateEnvFrom. */
export function validateEnvFrom(vars: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  arr(vars).forEach((v, i) => {
    const ev = obj(v)
    const idxPath = fldPath.index(i)
    const prefix = str(ev.prefix)
    if (prefix) for (const m of isRelaxedEnvVarName(prefix)) errs.push(invalid(idxPath.child('prefix'), prefix, m))
    let numSources = 0
    for (const kind of ['configMapRef', 'secretRef'] as const) {
      if (!has(ev, kind)) continue
      numSources++
      const name = str(obj(ev[kind]).name)
      const p = idxPath.child(kind)
      if (!name) errs.push(required(p.child('name')))
      else for (const m of nameIsDNSSubdomain(name, true)) errs.push(invalid(p.child('name'), name, m))
    }
    if (numSources === 0) errs.push(invalid(fldPath, '', 'must specify one of: `configMapRef` or `secretRef`'))
    else if (numSources > 1) errs.push(invalid(fldPath, '', 'may not have more than one field specified at a time'))
  })
  return errs
}

/** validateDownwardAPIVolumeFile (errors at the volume source's path, as the reference). */
export function validateDownwardAPIVolumeFile(file: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const path = str(file.path)
  if (!path) errs.push(required(fldPath.child('path')))
  errs.push(...validateLocalNonReservedPath(path, fldPath.child('path')))
  if (has(file, 'fieldRef')) {
    errs.push(...validateObjectFieldSelector(obj(file.fieldRef), VOLUME_FIELD_PATHS, fldPath.child('fieldRef')))
    if (has(file, 'resourceFieldRef')) errs.push(invalid(fldPath, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'))
  } else if (has(file, 'resourceFieldRef')) {
    errs.push(...validateContainerResourceFieldSelector(obj(file.resourceFieldRef), fldPath.child('resourceFieldRef'), true))
  } else errs.push(required(fldPath, 'one of fieldRef and resourceFieldRef is required'))
  if (!validFileMode(file.mode)) errs.push(invalid(fldPath.child('mode'), file.mode, FILE_MODE_ERROR_MSG))
  return errs
}
