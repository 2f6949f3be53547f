/**
 * The plugin's configuration (the reference's imagepolicy/config.go): `imagePolicy` with
 * `kubeConfigFile` (the webhook's server and credentials), `allowTTL` and `denyTTL` (seconds an
 * answer is cached), `retryBackoff` (milliseconds before the first retry) and `defaultAllow`
 * (allow when the webhook cannot answer). Decoded as Go's encoding/json decodes the
 * reference's struct (field names in any case, durations as integers); 0 means the default
 * (5 minutes, 30 seconds, 500 ms), -1 disables, anything else must lie in the reference's
 * range, or the start-up stops with its text.
 */
import { formatGoDuration } from '../../../core/options/go-syntax.js'
import { type Obj, isObj, jsonValue, typeError } from '../go-json-errors.js'

export interface ImagePolicyWebhookConfig {
  kubeConfigFile: string
  allowTtlMs: number
  denyTtlMs: number
  retryBackoffMs: number
  defaultAllow: boolean
}

const MS = 1
const SECOND = 1000
const NS = 1e-6

interface Range {
  scaleMs: number
  minMs: number
  maxMs: number
  defaultMs: number
}

const RETRY_BACKOFF: Range = { scaleMs: MS, minMs: NS, maxMs: 5 * 60 * SECOND, defaultMs: 500 * MS }
const ALLOW_TTL: Range = { scaleMs: SECOND, minMs: SECOND, maxMs: 30 * 60 * SECOND, defaultMs: 5 * 60 * SECOND }
const DENY_TTL: Range = { scaleMs: SECOND, minMs: SECOND, maxMs: 30 * 60 * SECOND, defaultMs: 30 * SECOND }


/** The field of `o` named `name`, matched without regard to case as encoding/json does. */
function field(o: Obj, name: string): unknown {
  if (name in o) return o[name]
  const key = Object.keys(o).find((k) => k.toLowerCase() === name.toLowerCase())
  return key === undefined ? undefined : o[key]
}

function duration(section: Obj, name: string): number {
  const v = field(section, name)
  if (v === undefined || v === null) return 0
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw typeError(v, 'imagePolicyWebhookConfig', `imagePolicy.${name}`, 'time.Duration')
  return v
}

/**
 * normalizeConfigDuration: -1 disables (0), 0 takes the default, else the value in its unit,
 * which must be above the minimum and at most the maximum.
 */
function normalize(value: number, range: Range): number {
  if (value === -1) return 0
  if (value === 0) return range.defaultMs
  const ms = value * range.scaleMs
  if (ms <= range.minMs || ms > range.maxMs) throw new Error(`valid value is between ${formatGoDuration(range.minMs)} and ${formatGoDuration(range.maxMs)}, got ${formatGoDuration(ms)}`)
  return ms
}

/** The configuration from the plugin's decoded file; throws the reference's text. */
export function readImagePolicyConfig(pluginConfig: unknown): ImagePolicyWebhookConfig {
  if (pluginConfig === undefined) throw new Error('no config specified')
  if (!isObj(pluginConfig)) throw new Error(`json: cannot unmarshal ${jsonValue(pluginConfig).split(' ')[0]} into Go value of type imagepolicy.AdmissionConfig`)
  const raw = field(pluginConfig, 'imagePolicy')
  if (raw !== undefined && raw !== null && !isObj(raw)) throw typeError(raw, 'AdmissionConfig', 'imagePolicy', 'imagepolicy.imagePolicyWebhookConfig')
  const section: Obj = isObj(raw) ? raw : {}
  const kubeConfigFile = field(section, 'kubeConfigFile') ?? ''
  if (typeof kubeConfigFile !== 'string') throw typeError(kubeConfigFile, 'imagePolicyWebhookConfig', 'imagePolicy.kubeConfigFile', 'string')
  const defaultAllow = field(section, 'defaultAllow') ?? false
  if (typeof defaultAllow !== 'boolean') throw typeError(defaultAllow, 'imagePolicyWebhookConfig', 'imagePolicy.defaultAllow', 'bool')
  const allowTTL = duration(section, 'allowTTL')
  const denyTTL = duration(section, 'denyTTL')
  const retryBackoff = duration(section, 'retryBackoff')
  // normalizeWebhookConfig's order: the backoff, then the allow and deny TTLs.
  const retryBackoffMs = normalize(retryBackoff, RETRY_BACKOFF)
  const allowTtlMs = normalize(allowTTL, ALLOW_TTL)
  const denyTtlMs = normalize(denyTTL, DENY_TTL)
  return { kubeConfigFile, allowTtlMs, denyTtlMs, retryBackoffMs, defaultAllow }
}
