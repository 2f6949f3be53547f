/**
 * Structural schemas, after the reference's
 * `staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/validation.go`
 * (ValidateStructural): a CRD schema must declare a type for every specified field and item,
 * keep `type`, `default`, `description`, `nullable` and the x-kubernetes extensions out of
 * anyOf/allOf/oneOf/not, restrict `metadata` at the root to name and generateName, and use
 * the x-kubernetes extensions consistently. The reference sorts the errors by their text
 * (its Go maps iterate randomly), so these are sorted the same way.
 */
import { type ErrorList, type Path, forbidden, invalid, required } from './field/index.js'
import { type Obj, obj } from './helpers.js'
import { isPlainObject } from '../registry/object.js'

type Level = 'root' | 'item' | 'field'

const JUNCTORS = ['allOf', 'anyOf', 'oneOf'] as const

/** ValidateStructural. */
export function validateStructural(fldPath: Path, schema: Obj): ErrorList {
  const errs = [...structuralInvariants(schema, 'root', fldPath), ...completeness(schema, fldPath)]
  return errs.sort((a, b) => {
    const x = a.toString()
    const y = b.toString()
    return x < y ? -1 : x > y ? 1 : 0
  })
}

/** The x-kubernetes-int-or-string anyOf of exactly `{type: integer}` and `{type: string}`. */
function isIntOrStringAnyOf(anyOf: unknown): boolean {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return false
  const only = (s: unknown, t: string) => isPlainObject(s) && Object.keys(s).length === 1 && s.type === t
  return only(anyOf[0], 'integer') && only(anyOf[1], 'string')
}

function structuralInvariants(s: Obj, lvl: Level, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const type = typeof s.type === 'string' ? s.type : ''
  const items = isPlainObject(s.items) ? s.items : undefined
  if (type === 'array' && !items) errs.push(required(fldPath.child('items'), 'must be specified'))
  if (items) errs.push(...structuralInvariants(items, 'item', fldPath.child('items')))
  const properties = obj(s.properties)
  for (const [k, v] of Object.entries(properties)) errs.push(...structuralInvariants(obj(v), 'field', fldPath.child('properties').key(k)))
  // validateGeneric
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (lvl === 'root') errs.push(forbidden(fldPath.child('additionalProperties'), 'must not be used at the root'))
    if (isPlainObject(s.additionalProperties)) errs.push(...structuralInvariants(s.additionalProperties, 'field', fldPath.child('additionalProperties')))
  }
  // validateExtensions
  const intOrString = s['x-kubernetes-int-or-string'] === true
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true
  const embedded = s['x-kubernetes-embedded-resource'] === true
  if (intOrString && preserve) errs.push(invalid(fldPath.child('x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'))
  if (intOrString && embedded) errs.push(invalid(fldPath.child('x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'))
  // validateValueValidation, skipping the two int-or-string patterns
  const skipAnyOf = isIntOrStringAnyOf(s.anyOf)
  const allOf = Array.isArray(s.allOf) ? s.allOf : []
  const skipFirstAllOfAnyOf = allOf.length >= 1 && isIntOrStringAnyOf(obj(allOf[0]).anyOf)
  errs.push(...valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, lvl, fldPath))

  const checkMetadata = lvl === 'root' || embedded
  if (embedded && type !== 'object') {
    if (type === '') errs.push(required(fldPath.child('type'), 'must be object if x-kubernetes-embedded-resource is true'))
    else errs.push(invalid(fldPath.child('type'), type, 'must be object if x-kubernetes-embedded-resource is true'))
  } else if (type === '' && !intOrString && !preserve) {
    const detail = lvl === 'root' ? 'must not be empty at the root' : lvl === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields'
    errs.push(required(fldPath.child('type'), detail))
  }
  if (embedded && s.additionalProperties !== undefined && s.additionalProperties !== null) errs.push(forbidden(fldPath.child('additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'))
  if (lvl === 'root' && type !== '' && type !== 'object') errs.push(invalid(fldPath.child('type'), type, 'must be object at the root'))

  const typeOf = (k: string): string => str(obj(properties[k]).type)
  if (checkMetadata && Object.hasOwn(properties, 'kind') && typeOf('kind') !== 'string') errs.push(invalid(fldPath.child('properties').key('kind').child('type'), typeOf('kind'), 'must be string'))
  if (checkMetadata && Object.hasOwn(properties, 'apiVersion') && typeOf('apiVersion') !== 'string') errs.push(invalid(fldPath.child('properties').key('apiVersion').child('type'), typeOf('apiVersion'), 'must be string'))
  if (checkMetadata && Object.hasOwn(properties, 'metadata') && typeOf('metadata') !== 'object') errs.push(invalid(fldPath.child('properties').key('metadata').child('type'), typeOf('metadata'), 'must be object'))
  if (lvl === 'root' && Object.hasOwn(properties, 'metadata') && !metadataOnlyNames(obj(properties.metadata))) {
    errs.push(forbidden(fldPath.child('properties').key('metadata'), 'must not specify anything other than name and generateName, but metadata is implicitly specified'))
  }
  if (embedded && !preserve && Object.keys(properties).length === 0) {
    errs.push(required(fldPath.child('properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'))
  }
  return errs
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** The reference's metadata check: apart from type and default, at most name and generateName properties. */
function metadataOnlyNames(metadata: Obj): boolean {
  const props = obj(metadata.properties)
  const keys = Object.keys(props)
  const onlyNames = keys.length === 0 || keys.every((k) => k === 'name' || k === 'generateName')
  const rest = Object.keys(metadata).filter((k) => k !== 'type' && k !== 'default' && k !== 'properties')
  // Value validations (minLength, pattern, ...) and extensions on metadata itself are specifications too.
  return onlyNames && rest.every((k) => k === 'nullable' ? metadata[k] !== true : metadata[k] === undefined || metadata[k] === '' || metadata[k] === false)
}

function valueValidation(v: Obj, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (!skipAnyOf && Array.isArray(v.anyOf)) v.anyOf.forEach((n, i) => errs.push(...nestedValueValidation(obj(n), false, lvl, fldPath.child('anyOf').index(i))))
  if (Array.isArray(v.allOf)) v.allOf.forEach((n, i) => errs.push(...nestedValueValidation(obj(n), skipFirstAllOfAnyOf && i === 0, lvl, fldPath.child('allOf').index(i))))
  if (Array.isArray(v.oneOf)) v.oneOf.forEach((n, i) => errs.push(...nestedValueValidation(obj(n), false, lvl, fldPath.child('oneOf').index(i))))
  if (isPlainObject(v.not)) errs.push(...nestedValueValidation(v.not, false, lvl, fldPath.child('not')))
  return errs
}

/** validateNestedValueValidation: no generic fields nor extensions under a junctor. */
function nestedValueValidation(v: Obj, skipAnyOf: boolean, lvl: Level, fldPath: Path): ErrorList {
  const errs = valueValidation(v, skipAnyOf, false, lvl, fldPath)
  if (isPlainObject(v.items)) errs.push(...nestedValueValidation(v.items, false, lvl, fldPath.child('items')))
  for (const [k, p] of Object.entries(obj(v.properties))) errs.push(...nestedValueValidation(obj(p), false, 'field', fldPath.child('properties').key(k)))
  if (str(v.type) !== '') errs.push(forbidden(fldPath.child('type'), 'must be empty to be structural'))
  if (v.additionalProperties !== undefined && v.additionalProperties !== null) errs.push(forbidden(fldPath.child('additionalProperties'), 'must be undefined to be structural'))
  if (v.default !== undefined && v.default !== null) errs.push(forbidden(fldPath.child('default'), 'must be undefined to be structural'))
  if (str(v.title) !== '') errs.push(forbidden(fldPath.child('title'), 'must be empty to be structural'))
  if (str(v.description) !== '') errs.push(forbidden(fldPath.child('description'), 'must be empty to be structural'))
  if (v.nullable === true) errs.push(forbidden(fldPath.child('nullable'), 'must be false to be structural'))
  if (v['x-kubernetes-preserve-unknown-fields'] === true) errs.push(forbidden(fldPath.child('x-kubernetes-preserve-unknown-fields'), 'must be false to be structural'))
  if (v['x-kubernetes-embedded-resource'] === true) errs.push(forbidden(fldPath.child('x-kubernetes-embedded-resource'), 'must be false to be structural'))
  if (v['x-kubernetes-int-or-string'] === true) errs.push(forbidden(fldPath.child('x-kubernetes-int-or-string'), 'must be false to be structural'))
  if (Array.isArray(v['x-kubernetes-list-map-keys']) && v['x-kubernetes-list-map-keys'].length > 0) errs.push(forbidden(fldPath.child('x-kubernetes-list-map-keys'), 'must be empty to be structural'))
  if (typeof v['x-kubernetes-list-type'] === 'string') errs.push(forbidden(fldPath.child('x-kubernetes-list-type'), 'must be undefined to be structural'))
  if (Object.hasOwn(obj(v.properties), 'metadata')) errs.push(forbidden(fldPath.child('properties').key('metadata'), 'must not be specified in a nested context'))
  return errs
}

/**
 * validateStructuralCompleteness: every property and items a junctor speaks of is also
 * specified outside of it (`Required value: because it is defined in <path>`).
 */
function completeness(s: Obj, fldPath: Path): ErrorList {
  return valueCompleteness(s, s, fldPath, fldPath)
}

function valueCompleteness(v: Obj, s: Obj | undefined, sPath: Path, vPath: Path): ErrorList {
  const errs: ErrorList = []
  if (isPlainObject(v.not)) errs.push(...nestedCompleteness(v.not, s, sPath, vPath.child('not')))
  for (const j of JUNCTORS) if (Array.isArray(v[j])) (v[j] as unknown[]).forEach((n, i) => errs.push(...nestedCompleteness(obj(n), s, sPath, vPath.child(j).index(i))))
  return errs
}

function nestedCompleteness(v: Obj, s: Obj | undefined, sPath: Path, vPath: Path): ErrorList {
  if (!s) return [required(sPath, `because it is defined in ${vPath.toString()}`)]
  const errs = valueCompleteness(v, s, sPath, vPath)
  if (isPlainObject(v.items)) errs.push(...nestedCompleteness(v.items, isPlainObject(s.items) ? s.items : undefined, sPath.child('items'), vPath.child('items')))
  const sProps = obj(s.properties)
  for (const [k, p] of Object.entries(obj(v.properties))) {
    const sp = Object.hasOwn(sProps, k) ? obj(sProps[k]) : isPlainObject(s.additionalProperties) ? s.additionalProperties : undefined
    errs.push(...nestedCompleteness(obj(p), sp, sPath.child('properties').key(k), vPath.child('properties').key(k)))
  }
  return errs
}
