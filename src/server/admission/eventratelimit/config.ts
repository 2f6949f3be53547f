/**
 * The plugin's Configuration (`eventratelimit.admission.k8s.io/v1alpha1`, the reference's
 * config.go LoadConfiguration, its apis/eventratelimit types and validation): `limits`, each
 * of a type (Server, Namespace, User, SourceAndObject) with `qps`, `burst` and, but for Server,
 * `cacheSize` (4096 when 0). Decoded as the reference's universal decoder does (kind and
 * apiVersion required, the field names exact, unknown fields ignored, int32 numbers), then
 * validated; either failure is the reference's text, which stops the start-up. Without any
 * configuration there are no limits, which the validation refuses, as the reference's does.
 */
import { type FieldError, aggregateMessage, invalid, notSupported } from '../../api/validation/field/errors.js'
import { Rendered } from '../../api/validation/field/go-format.js'
import { type Obj, isObj, jsonValue, typeError } from '../go-json-errors.js'

export const GROUP = 'eventratelimit.admission.k8s.io'
export const VERSION = 'v1alpha1'
export const KIND = 'Configuration'
/** The reference's scheme's name (runtime.NewScheme's call site), which its decoder errors quote. */
const SCHEME = 'k8s.io/kubernetes/plugin/pkg/admission/eventratelimit/config.go:31'

/** The limit types, in the reference's declaration order. */
export const LIMIT_TYPES = ['Server', 'Namespace', 'User', 'SourceAndObject'] as const
export type LimitType = (typeof LIMIT_TYPES)[number]

export interface Limit {
  type: string
  qps: number
  burst: number
  cacheSize: number
}

export interface Configuration {
  /** Undefined when the configuration names none (the reference's nil slice). */
  limits: Limit[] | undefined
}


/** JSON with every object's keys sorted: the bytes the reference quotes (its YAML converted). */
function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`
  if (isObj(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`).join(',')}}`
  return JSON.stringify(v) ?? 'null'
}

const INT32_MIN = -(2 ** 31)
const INT32_MAX = 2 ** 31 - 1

function int32(v: unknown, field: string): number {
  if (v === undefined || v === null) return 0
  if (typeof v !== 'number' || !Number.isInteger(v) || v < INT32_MIN || v > INT32_MAX) throw typeError(v, 'Limit', `limits.${field}`, 'int32')
  return v
}

function decodeLimit(v: unknown): Limit {
  if (v === null) return { type: '', qps: 0, burst: 0, cacheSize: 0 }
  if (!isObj(v)) throw typeError(v, 'Configuration', 'limits', 'v1alpha1.Limit')
  const type = v.type === undefined || v.type === null ? '' : v.type
  if (typeof type !== 'string') throw typeError(type, 'Limit', 'limits.type', 'v1alpha1.LimitType')
  return { type, qps: int32(v.qps, 'qps'), burst: int32(v.burst, 'burst'), cacheSize: int32(v.cacheSize, 'cacheSize') }
}

/** LoadConfiguration: the configuration decoded, or the reference's decoding error. */
export function loadConfiguration(pluginConfig: unknown): Configuration {
  if (pluginConfig === undefined) return { limits: undefined }
  if (!isObj(pluginConfig)) throw new Error(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonValue(pluginConfig).split(' ')[0]} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`)
  const kind = typeof pluginConfig.kind === 'string' ? pluginConfig.kind : ''
  const apiVersion = typeof pluginConfig.apiVersion === 'string' ? pluginConfig.apiVersion : ''
  if (kind === '') throw new Error(`Object 'Kind' is missing in '${sortedJson(pluginConfig)}'`)
  if (apiVersion === '') throw new Error(`Object 'apiVersion' is missing in '${sortedJson(pluginConfig)}'`)
  if (kind !== KIND || apiVersion !== `${GROUP}/${VERSION}`) throw new Error(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme ${JSON.stringify(SCHEME)}`)
  const limits = pluginConfig.limits
  if (limits === undefined || limits === null) return { limits: undefined }
  if (!Array.isArray(limits)) throw typeError(limits, 'Configuration', 'limits', '[]v1alpha1.Limit')
  return { limits: limits.map(decodeLimit) }
}

/** ValidateConfiguration: the reference's field errors, in its order. */
export function validateConfiguration(config: Configuration): FieldError[] {
  const errs: FieldError[] = []
  const limits = config.limits ?? []
  if (limits.length === 0) errs.push(invalid('limits', new Rendered(config.limits ? '[]eventratelimit.Limit{}' : '[]eventratelimit.Limit(nil)'), 'must not be empty'))
  limits.forEach((limit, i) => {
    const path = `limits[${i}]`
    // The reference lists the supported types from a map, in no fixed order; here in the order declared.
    if (!(LIMIT_TYPES as readonly string[]).includes(limit.type)) errs.push(notSupported(`${path}.type`, limit.type, LIMIT_TYPES))
    if (limit.burst <= 0) errs.push(invalid(`${path}.burst`, limit.burst, 'must be positive'))
    if (limit.qps <= 0) errs.push(invalid(`${path}.qps`, limit.qps, 'must be positive'))
    if (limit.type !== 'Server' && limit.cacheSize < 0) errs.push(invalid(`${path}.cacheSize`, limit.cacheSize, 'must not be negative'))
  })
  return errs
}

/** The configuration the plugin runs with; throws the reference's decoding or validation error. */
export function readConfiguration(pluginConfig: unknown): Limit[] {
  const config = loadConfiguration(pluginConfig)
  const errs = validateConfiguration(config)
  if (errs.length > 0) throw new Error(aggregateMessage(errs))
  return config.limits!
}
