/**
 * A custom resource against its OpenAPI v3 schema, as the reference validates it: kube-openapi's
 * `pkg/validation/validate` SchemaValidator (the validators of one schema node in its order:
 * type, allOf/anyOf/oneOf/not, string, format, number, array, enum, object; errors with the
 * texts of `pkg/validation/errors`, a repeated text reported once), then apiextensions'
 * `kubeOpenAPIResultToFieldErrors` turning them into field errors (Required, Unsupported value,
 * Too long, Too many, Invalid value), and the ratcheting of updates
 * (`pkg/apiserver/validation/ratcheting.go`: errors of a value equal to the old one are dropped).
 */
import { deepEqual } from '../../../core/patch/index.js'
import type { Cause } from '../status-errors.js'
import { checkFormat, isSupportedFormat } from './formats.js'
import { fieldValue, goFloat, goJSON, goNumber, goQuote, isGoInt } from './go-value.js'

type Json = Record<string, unknown>

/** One error of the validator: a kube-openapi `errors.Validation` (with a code) or a composite message. */
interface VError {
  code: Code
  name: string
  message: string
  value?: unknown
  valid?: number
  values?: unknown[]
}

type Code = 'type' | 'required' | 'tooLong' | 'tooShort' | 'pattern' | 'enum' | 'multipleOf' | 'max' | 'min' | 'unique' | 'maxItems' | 'minItems' | 'tooFewProperties' | 'tooManyProperties' | 'unallowedProperty' | 'multipleOfMustBePositive' | 'composite'

class Result {
  errors: VError[] = []
  matchCount = 0
  add(...errs: VError[]): void {
    for (const e of errs) if (!this.errors.some((x) => x.message === e.message)) this.errors.push(e)
  }
  merge(...others: (Result | undefined)[]): this {
    for (const o of others) {
      if (!o) continue
      this.add(...o.errors)
      this.matchCount += o.matchCount
    }
    return this
  }
  get valid(): boolean {
    return this.errors.length === 0
  }
}

function single(e: VError): Result {
  const r = new Result()
  r.errors.push(e)
  return r
}

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The JSON type name of a decoded value, as the type validator infers it. */
function schemaTypeOf(v: unknown): string {
  if (typeof v === 'boolean') return 'boolean'
  if (typeof v === 'string') return 'string'
  if (typeof v === 'number') return isGoInt(v) ? 'integer' : 'number'
  if (Array.isArray(v)) return 'array'
  return 'object'
}

/** The Go format the type validator infers for a decoded value (int64, float64 or none). */
function inferredFormat(v: unknown): string {
  if (typeof v === 'number') return isGoInt(v) ? 'int64' : 'float64'
  return ''
}

/** The schema's types: `type`, or integer and string for x-kubernetes-int-or-string. */
function typesOf(schema: Json): string[] {
  if (schema['x-kubernetes-int-or-string'] === true) return ['integer', 'string']
  return typeof schema.type === 'string' && schema.type !== '' ? [schema.type] : []
}

/** The format the validator sees: the reference strips formats it does not support. */
function formatOf(schema: Json): string {
  return typeof schema.format === 'string' && isSupportedFormat(schema.format) ? schema.format : ''
}

function invalidType(name: string, typeName: string, value: unknown): VError {
  const message = typeof value === 'string' ? `${name} in body must be of type ${typeName}: ${goQuote(value)}` : `${name} in body must be of type ${typeName}`
  return { code: 'type', name, value, message }
}

/** Go's DeepEqual after the conversion the enum check does (int64 and float64 compare by value). */
function sameValue(a: unknown, b: unknown): boolean {
  return deepEqual(a, b)
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

/** swag.IsFloat64AJSONInteger, as multipleOf's quotient test. */
function isJSONInteger(f: number): boolean {
  if (!Number.isFinite(f)) return false
  if (Number.isInteger(f)) return true
  const g = Math.trunc(f)
  const diff = Math.abs(f - g)
  return diff / (Math.abs(f) + Math.abs(g)) < 1e-9
}

/** Where the old object's counterpart of a value is, for ratcheting (undefined: none). */
interface Old {
  value: unknown
}

function validateType(schema: Json, data: unknown, path: string): Result | undefined {
  const types = typesOf(schema)
  const format = formatOf(schema)
  if (types.length === 0 && format === '') return undefined
  const r = new Result()
  if (data === null) {
    if (types.length > 0 && !types.includes('null') && schema.nullable !== true) return single(invalidType(path, types.join(','), 'null'))
    r.matchCount++
    return r
  }
  const schType = schemaTypeOf(data)
  const dataFormat = inferredFormat(data)
  const isFloatInt = schType === 'number' && Number.isInteger(data) && types.includes('integer')
  const isIntFloat = schType === 'integer' && types.includes('number')
  const isLowerFloat = format === 'float64' && dataFormat === 'float32'
  const stringOrSlice = typeof data === 'string' || Array.isArray(data)
  if (!stringOrSlice && format !== '' && !(types.includes(schType) || dataFormat === format || isFloatInt || isIntFloat || isLowerFloat)) {
    return single(invalidType(path, format, dataFormat))
  }
  r.matchCount++
  if (!(types.includes('number') || types.includes('integer')) && format !== '' && stringOrSlice) return r
  if (!(types.includes(schType) || isFloatInt || isIntFloat)) return single(invalidType(path, types.join(','), schType))
  return r
}

function validateSchemaProps(schema: Json, data: unknown, path: string, old: Old | undefined): Result | undefined {
  const anyOf = Array.isArray(schema.anyOf) ? (schema.anyOf as Json[]) : []
  const oneOf = Array.isArray(schema.oneOf) ? (schema.oneOf as Json[]) : []
  const allOf = Array.isArray(schema.allOf) ? (schema.allOf as Json[]) : []
  const not = isObj(schema.not) ? schema.not : undefined
  const main = new Result()
  if (anyOf.length > 0) {
    let best: Result | undefined
    let first: Result | undefined
    let succeeded = false
    for (const s of anyOf) {
      const r = validateNode(s, data, path, old)
      if (r.valid) {
        best = undefined
        succeeded = true
        first ??= r
        break
      }
      if (!best || r.matchCount > best.matchCount) best = r
    }
    if (!succeeded) main.add({ code: 'composite', name: path, message: `${JSON.stringify(path)} must validate at least one schema (anyOf)` })
    if (best) main.merge(best)
    else if (first) main.merge(first)
  }
  if (oneOf.length > 0) {
    let best: Result | undefined
    let first: Result | undefined
    let validated = 0
    for (const s of oneOf) {
      const r = validateNode(s, data, path, old)
      if (r.valid) {
        validated++
        best = undefined
        first ??= r
        continue
      }
      if (validated === 0 && (!best || r.matchCount > best.matchCount)) best = r
    }
    if (validated !== 1) {
      const extra = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`
      main.add({ code: 'composite', name: path, message: `${JSON.stringify(path)} must validate one and only one schema (oneOf). ${extra}` })
      if (best) main.merge(best)
    } else if (first) main.merge(first)
  }
  if (allOf.length > 0) {
    let validated = 0
    for (const s of allOf) {
      const r = validateNode(s, data, path, old)
      if (r.valid) validated++
      main.merge(r)
    }
    if (validated !== allOf.length) {
      main.add({ code: 'composite', name: path, message: `${JSON.stringify(path)} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}` })
    }
  }
  if (not && validateNode(not, data, path, old).valid) main.add({ code: 'composite', name: path, message: `${JSON.stringify(path)} must not validate the schema (not)` })
  main.matchCount++
  return main
}

function validateString(schema: Json, data: string, path: string): Result | undefined {
  const length = [...data].length
  const maxLength = num(schema.maxLength)
  if (maxLength !== undefined && length > maxLength) return single({ code: 'tooLong', name: path, value: data, valid: maxLength, message: `${path} in body should be at most ${maxLength} chars long` })
  const minLength = num(schema.minLength)
  if (minLength !== undefined && length < minLength) return single({ code: 'tooShort', name: path, value: data, valid: minLength, message: `${path} in body should be at least ${minLength} chars long` })
  if (typeof schema.pattern === 'string' && schema.pattern !== '') {
    const re = compilePattern(schema.pattern)
    if (re instanceof Error) return single({ code: 'pattern', name: path, value: data, message: `${path} in body should match '${schema.pattern}, but pattern is invalid: ${re.message}'` })
    if (!re.test(data)) return single({ code: 'pattern', name: path, value: data, message: `${path} in body should match '${schema.pattern}'` })
  }
  return undefined
}

const patterns = new Map<string, RegExp | Error>()

/** The schema's pattern as a JavaScript regular expression (ECMA syntax, as the schema declares it). */
function compilePattern(pattern: string): RegExp | Error {
  let re = patterns.get(pattern)
  if (!re) {
    try {
      re = new RegExp(pattern, 'u')
    } catch {
      try {
        re = new RegExp(pattern)
      } catch (err) {
        re = err instanceof Error ? err : new Error(String(err))
      }
    }
    patterns.set(pattern, re)
  }
  return re
}

function validateFormat(schema: Json, data: string, path: string): Result | undefined {
  const format = formatOf(schema)
  if (format === '' || checkFormat(format, data)) return undefined
  return single(invalidType(path, format, data))
}

function validateNumber(schema: Json, data: number, path: string): Result {
  const res = new Result()
  const int = isGoInt(data)
  const multipleOf = num(schema.multipleOf)
  if (multipleOf !== undefined) {
    if (int) {
      const factor = Math.trunc(multipleOf)
      if (factor <= 0) res.add({ code: 'multipleOfMustBePositive', name: path, value: factor, message: `factor MultipleOf declared for ${path} must be positive: ${factor}` })
      else if (data % factor !== 0) res.add({ code: 'multipleOf', name: path, value: data, message: `${path} in body should be a multiple of ${factor}` })
    } else if (multipleOf <= 0) {
      res.add({ code: 'multipleOfMustBePositive', name: path, value: multipleOf, message: `factor MultipleOf declared for ${path} must be positive: ${goFloat(multipleOf)}` })
    } else {
      const mult = multipleOf < 1 ? (1 / multipleOf) * data : data / multipleOf
      if (!isJSONInteger(mult)) res.add({ code: 'multipleOf', name: path, value: data, message: `${path} in body should be a multiple of ${goFloat(multipleOf)}` })
    }
  }
  const bound = (b: number): string => (int ? String(Math.trunc(b)) : goFloat(b))
  const minimum = num(schema.minimum)
  if (minimum !== undefined) {
    const m = int ? Math.trunc(minimum) : minimum
    const exclusive = schema.exclusiveMinimum === true
    if (exclusive ? data <= m : data < m) res.add({ code: 'min', name: path, value: data, message: `${path} in body should be greater than ${exclusive ? '' : 'or equal to '}${bound(minimum)}` })
  }
  const maximum = num(schema.maximum)
  if (maximum !== undefined) {
    const m = int ? Math.trunc(maximum) : maximum
    const exclusive = schema.exclusiveMaximum === true
    if (exclusive ? data >= m : data > m) res.add({ code: 'max', name: path, value: data, message: `${path} in body should be less than ${exclusive ? '' : 'or equal to '}${bound(maximum)}` })
  }
  res.matchCount++
  return res
}

/** The index in the old list of the item a list-type map item stands for (same key values). */
function correlatedItem(schema: Json, item: unknown, old: Old | undefined): Old | undefined {
  if (!old || !Array.isArray(old.value) || schema['x-kubernetes-list-type'] !== 'map' || !isObj(item)) return undefined
  const keys = Array.isArray(schema['x-kubernetes-list-map-keys']) ? (schema['x-kubernetes-list-map-keys'] as string[]) : []
  const found = old.value.find((o) => isObj(o) && keys.every((k) => sameValue(o[k], item[k])))
  return found === undefined ? undefined : { value: found }
}

function validateSlice(schema: Json, data: unknown[], path: string, old: Old | undefined): Result {
  const res = new Result()
  if (isObj(schema.items)) {
    data.forEach((item, i) => res.merge(validateNode(schema.items as Json, item, `${path}[${i}]`, correlatedItem(schema, item, old))))
  } else if (Array.isArray(schema.items)) {
    ;(schema.items as Json[]).forEach((s, i) => {
      if (i < data.length) res.merge(validateNode(s, data[i], `${path}[${i}]`, undefined))
    })
  }
  const minItems = num(schema.minItems)
  if (minItems !== undefined && data.length < minItems) res.add({ code: 'minItems', name: path, value: data.length, valid: minItems, message: `${path} in body should have at least ${minItems} items` })
  const maxItems = num(schema.maxItems)
  if (maxItems !== undefined && data.length > maxItems) res.add({ code: 'maxItems', name: path, value: data.length, valid: maxItems, message: `${path} in body should have at most ${maxItems} items` })
  if (schema.uniqueItems === true && data.some((v, i) => data.slice(0, i).some((u) => sameValue(u, v)))) {
    res.add({ code: 'unique', name: path, message: `${path} in body shouldn't contain duplicates` })
  }
  res.matchCount++
  return res
}

function validateEnum(schema: Json, data: unknown, path: string): Result | undefined {
  if (!Array.isArray(schema.enum) || schema.enum.length === 0) return undefined
  if (data !== null && schema.enum.some((e) => e !== null && sameValue(data, e))) return undefined
  return single({ code: 'enum', name: path, value: data, values: schema.enum, message: `${path} in body should be one of ${goSliceV(schema.enum)}` })
}

/** fmt's `%v` of a []interface{} (the enum values in the message). */
function goSliceV(values: unknown[]): string {
  const v = (x: unknown): string => {
    if (x === null || x === undefined) return '<nil>'
    if (typeof x === 'number') return goNumber(x)
    if (Array.isArray(x)) return `[${x.map(v).join(' ')}]`
    if (isObj(x)) return `map[${Object.keys(x).sort().map((k) => `${k}:${v(x[k])}`).join(' ')}]`
    return String(x)
  }
  return v(values)
}

function childPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`
}

const TYPE_META = new Set(['apiVersion', 'kind', 'metadata'])

function validateObject(schema: Json, data: Json, path: string, old: Old | undefined): Result {
  const res = new Result()
  const keys = Object.keys(data)
  const minProperties = num(schema.minProperties)
  if (minProperties !== undefined && keys.length < minProperties) {
    res.add({ code: 'tooFewProperties', name: path, value: keys.length, valid: minProperties, message: `${path} in body should have at least ${minProperties} properties` })
  }
  const maxProperties = num(schema.maxProperties)
  if (maxProperties !== undefined && keys.length > maxProperties) {
    res.add({ code: 'tooManyProperties', name: path, value: keys.length, valid: maxProperties, message: `${path} in body should have at most ${maxProperties} properties` })
  }
  const properties = isObj(schema.properties) ? (schema.properties as Record<string, Json>) : {}
  const oldObj = old && isObj(old.value) ? old.value : undefined
  const oldChild = (key: string): Old | undefined => (oldObj && Object.hasOwn(oldObj, key) && !(path === '' && TYPE_META.has(key)) ? { value: oldObj[key] } : undefined)
  if (schema.additionalProperties === false) {
    for (const k of keys) if (!Object.hasOwn(properties, k)) res.add({ code: 'unallowedProperty', name: path, value: k, message: `${path}.${k} in body is a forbidden property` })
  } else if (isObj(schema.additionalProperties)) {
    for (const k of keys) {
      if (!Object.hasOwn(properties, k)) res.merge(validateNode(schema.additionalProperties, data[k], `${path}.${k}`, oldChild(k)))
    }
  }
  for (const [name, prop] of Object.entries(properties)) {
    if (Object.hasOwn(data, name) && isObj(prop)) res.merge(validateNode(prop, data[name], childPath(path, name), oldChild(name)))
  }
  for (const k of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
    if (!Object.hasOwn(data, k)) res.add({ code: 'required', name: `${path}.${k}`, message: `${path}.${k} in body is required` })
  }
  return res
}

/** One schema node's validators, in kube-openapi's order, with ratcheting against `old`. */
function validateNode(schema: Json, data: unknown, path: string, old: Old | undefined): Result {
  const result = new Result()
  if (data === null || data === undefined) {
    result.merge(validateType(schema, null, path), validateEnum(schema, null, path))
    return ratchet(result, null, old)
  }
  const steps: (() => Result | undefined)[] = [
    () => validateType(schema, data, path),
    () => validateSchemaProps(schema, data, path, old),
    () => (typeof data === 'string' ? (validateString(schema, data, path) ?? new Result()) : undefined),
    () => (typeof data === 'string' && formatOf(schema) !== '' ? (validateFormat(schema, data, path) ?? new Result()) : undefined),
    () => (typeof data === 'number' ? validateNumber(schema, data, path) : undefined),
    () => (Array.isArray(data) ? validateSlice(schema, data, path, old) : undefined),
    () => validateEnum(schema, data, path) ?? new Result(),
    () => (isObj(data) ? validateObject(schema, data, path, old) : undefined),
  ]
  for (const step of steps) {
    const r = step()
    if (r === undefined) continue
    result.merge(r)
    result.matchCount++
  }
  result.matchCount++
  return ratchet(result, data, old)
}

/** An invalid value equal to its old counterpart keeps its errors only as warnings (dropped here). */
function ratchet(result: Result, data: unknown, old: Old | undefined): Result {
  if (result.valid || !old || !sameValue(data, old.value)) return result
  const kept = new Result()
  kept.matchCount = result.matchCount
  return kept
}

function cause(reason: string, field: string, body: string): Cause {
  return { reason, message: body, field }
}

/** apiextensions' kubeOpenAPIResultToFieldErrors: one field error per validator error. */
function toCauses(prefix: string, errors: VError[]): Cause[] {
  return errors.map((e) => {
    // A nil field.Path prints as <nil>: the reference's field for errors of the root.
    const root = prefix === '' ? '<nil>' : prefix
    if (e.code === 'composite') return cause('FieldValueInvalid', root, `Invalid value: "": ${e.message}`)
    const name = e.name.startsWith('.') ? e.name.slice(1) : e.name
    const field = name === '' || e.name === '.' ? root : prefix === '' ? name : `${prefix}.${name}`
    const value = e.value === undefined || e.value === null ? '' : e.value
    switch (e.code) {
      case 'required':
        return cause('FieldValueRequired', field, 'Required value')
      case 'enum': {
        const values = (e.values ?? []).map((v) => (typeof v === 'string' ? v : goJSON(v)))
        return cause('FieldValueNotSupported', field, `Unsupported value: ${fieldValue(e.value ?? null)}${values.length > 0 ? `: supported values: ${values.map(goQuote).join(', ')}` : ''}`)
      }
      case 'tooLong':
        return cause('FieldValueTooLong', field, `Too long: may not be more than ${e.valid} byte${e.valid === 1 ? '' : 's'}`)
      case 'maxItems':
      case 'tooManyProperties':
        return cause('FieldValueTooMany', field, `Too many: ${String(e.value)}: must have at most ${e.valid} item${e.valid === 1 ? '' : 's'}`)
      case 'type':
        return cause('FieldValueTypeInvalid', field, `Invalid value: ${fieldValue(value)}: ${e.message}`)
      default:
        return cause('FieldValueInvalid', field, `Invalid value: ${fieldValue(value)}: ${e.message}`)
    }
  })
}

/**
 * The field errors of `value` against an OpenAPI v3 `schema` (ValidateCustomResource), under
 * the field path `prefix` (`status` for the status subresource). With `old` (an update), the
 * errors of values left unchanged are dropped, as CRDValidationRatcheting does.
 */
export function validateOpenAPI(schema: Json, value: unknown, prefix = '', old?: { value: unknown }): Cause[] {
  const result = validateNode(schema, value, '', old)
  return toCauses(prefix, result.errors)
}
