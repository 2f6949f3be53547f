/**
 * The structured authorization configuration (`--authorization-config`,
 * apiserver.config.k8s.io AuthorizationConfiguration v1beta1 and v1): the chain of authorizers,
 * each named, with webhooks that have their own connection, timeout, SubjectAccessReview
 * version, caches and failure policy, decoded and validated as the reference validates it (its
 * field errors). The server builds its chain from it (src/server/authorization/config.ts);
 * `flags validate` checks a file with it.
 */
import { jsYaml } from '../util/yaml.js'
import { type MatchCondition, compileMatchCondition } from './authorization-match-conditions.js'

export class AuthorizationConfigFileError extends Error {}

export const CONFIG_API_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1beta1']
const TYPES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Node', 'RBAC', 'Webhook']

export interface WebhookSettings {
  timeoutMs: number
  subjectAccessReviewVersion: 'v1' | 'v1beta1'
  authorizedTtlMs: number
  unauthorizedTtlMs: number
  failurePolicy: 'NoOpinion' | 'Deny'
  kubeConfigFile: string
  /** Compiled CEL conditions: all true for the webhook to be asked. */
  matchConditions: MatchCondition[]
}

export interface ConfiguredAuthorizer {
  type: string
  name: string
  webhook?: WebhookSettings
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined)

/** A Go duration as the config writes it (`3s`, `5m`, `1m30s`, `500ms`); NaN when not one. */
function durationMs(v: unknown): number {
  if (typeof v !== 'string') return NaN
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 }
  let total = 0
  const re = /(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/y
  let pos = 0
  if (v === '0') return 0
  while (pos < v.length) {
    re.lastIndex = pos
    const m = re.exec(v)
    if (!m) return NaN
    total += Number(m[1]) * units[m[2]!]!
    pos = re.lastIndex
  }
  return pos === 0 ? NaN : total
}

const goQuote = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v))
const supported = (values: string[]) => `supported values: ${values.map((v) => JSON.stringify(v)).join(', ')}`

/** Parses and validates the file's text; throws with the reference's field errors. */
export function parseAuthorizationConfig(text: string): ConfiguredAuthorizer[] {
  let doc: Obj | undefined
  try {
    doc = obj(jsYaml().load(text))
  } catch (err) {
    throw new AuthorizationConfigFileError(`error decoding: ${(err as Error).message}`)
  }
  if (!doc) throw new AuthorizationConfigFileError("Object 'Kind' is missing")
  if (doc.kind !== 'AuthorizationConfiguration' || !CONFIG_API_VERSIONS.includes(String(doc.apiVersion))) {
    throw new AuthorizationConfigFileError(`no kind ${goQuote(doc.kind ?? '')} is registered for version ${goQuote(doc.apiVersion ?? '')} in scheme`)
  }
  const errors: string[] = []
  const list = Array.isArray(doc.authorizers) ? doc.authorizers : []
  if (list.length === 0) errors.push('authorizers: Required value: at least one authorization mode must be defined')
  const seenTypes = new Set<string>()
  const seenNames = new Set<string>()
  const out: ConfiguredAuthorizer[] = []
  list.forEach((raw, i) => {
    const a = obj(raw) ?? {}
    const path = `authorizers[${i}]`
    const type = typeof a.type === 'string' ? a.type : ''
    const name = typeof a.name === 'string' ? a.name : ''
    if (!type) errors.push(`${path}.type: Required value`)
    else if (!TYPES.includes(type)) errors.push(`${path}.type: Unsupported value: ${goQuote(type)}: ${supported(TYPES)}`)
    else if (type !== 'Webhook' && seenTypes.has(type)) errors.push(`${path}.type: Duplicate value: ${goQuote(type)}`)
    seenTypes.add(type)
    if (!name) errors.push(`${path}.name: Required value`)
    else if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(name) || name.length > 253) {
      errors.push(`${path}.name: Invalid value: ${goQuote(name)}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`)
    } else if (seenNames.has(name)) errors.push(`${path}.name: Duplicate value: ${goQuote(name)}`)
    seenNames.add(name)
    const w = obj(a.webhook)
    if (type !== 'Webhook') {
      if (a.webhook !== undefined && a.webhook !== null) errors.push(`${path}.webhook: Invalid value: "non-null": may only be specified when type=Webhook`)
      out.push({ type, name })
      return
    }
    if (!w) {
      errors.push(`${path}.webhook: Required value: required when type=Webhook`)
      return
    }
    const wp = `${path}.webhook`
    const timeoutMs = durationMs(w.timeout)
    if (w.timeout === undefined) errors.push(`${wp}.timeout: Required value`)
    else if (!(timeoutMs > 0 && timeoutMs <= 30_000)) errors.push(`${wp}.timeout: Invalid value: ${goQuote(w.timeout)}: must be > 0s and <= 30s`)
    const version = w.subjectAccessReviewVersion
    if (version === undefined || version === '') errors.push(`${wp}.subjectAccessReviewVersion: Required value`)
    else if (version !== 'v1' && version !== 'v1beta1') errors.push(`${wp}.subjectAccessReviewVersion: Unsupported value: ${goQuote(version)}: ${supported(['v1', 'v1beta1'])}`)
    const policy = w.failurePolicy
    if (policy === undefined || policy === '') errors.push(`${wp}.failurePolicy: Required value`)
    else if (policy !== 'NoOpinion' && policy !== 'Deny') errors.push(`${wp}.failurePolicy: Unsupported value: ${goQuote(policy)}: ${supported(['NoOpinion', 'Deny'])}`)
    const connection = obj(w.connectionInfo) ?? {}
    const kubeConfigFile = typeof connection.kubeConfigFile === 'string' ? connection.kubeConfigFile : ''
    if (connection.type === undefined || connection.type === '') errors.push(`${wp}.connectionInfo.type: Required value`)
    else if (connection.type === 'InClusterConfig') errors.push(`${wp}.connectionInfo.type: Invalid value: "InClusterConfig": this server runs outside a cluster; use KubeConfigFile`)
    else if (connection.type !== 'KubeConfigFile') errors.push(`${wp}.connectionInfo.type: Unsupported value: ${goQuote(connection.type)}: ${supported(['InClusterConfig', 'KubeConfigFile'])}`)
    else if (!kubeConfigFile) errors.push(`${wp}.connectionInfo.kubeConfigFile: Required value`)
    else if (!kubeConfigFile.startsWith('/')) errors.push(`${wp}.connectionInfo.kubeConfigFile: Invalid value: ${goQuote(kubeConfigFile)}: must be an absolute path`)
    const conditionsList = Array.isArray(w.matchConditions) ? w.matchConditions : []
    const conditionsVersion = w.matchConditionSubjectAccessReviewVersion
    if (conditionsVersion === undefined || conditionsVersion === '') {
      if (conditionsList.length > 0) errors.push(`${wp}.matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified`)
    } else if (conditionsVersion !== 'v1') {
      errors.push(`${wp}.matchConditionSubjectAccessReviewVersion: Unsupported value: ${goQuote(conditionsVersion)}: ${supported(['v1'])}`)
    }
    const matchConditions: MatchCondition[] = []
    if (conditionsList.length > 64) {
      errors.push(`${wp}.matchConditions: Too many: ${conditionsList.length}: must have at most 64 items`)
    } else {
      const seenExpressions = new Set<string>()
      conditionsList.forEach((rawCondition, j) => {
        const cp = `${wp}.matchConditions[${j}].expression`
        const expression = typeof obj(rawCondition)?.expression === 'string' ? (obj(rawCondition)!.expression as string) : ''
        if (expression.trim() === '') return void errors.push(`${cp}: Required value`)
        if (seenExpressions.has(expression)) return void errors.push(`${cp}: Duplicate value: ${goQuote(expression)}`)
        seenExpressions.add(expression)
        const compiled = compileMatchCondition(expression)
        if ('error' in compiled) errors.push(`${cp}: Invalid value: ${goQuote(expression)}: ${compiled.error}`)
        else matchConditions.push(compiled)
      })
    }
    const ttl = (v: unknown, fallback: number, field: string) => {
      if (v === undefined) return fallback
      const ms = durationMs(v)
      if (Number.isNaN(ms) || ms < 0) errors.push(`${wp}.${field}: Invalid value: ${goQuote(v)}: must be a non-negative duration`)
      return ms
    }
    const authorizedTtlMs = w.cacheAuthorizedRequests === false ? 0 : ttl(w.authorizedTTL, 300_000, 'authorizedTTL')
    const unauthorizedTtlMs = w.cacheUnauthorizedRequests === false ? 0 : ttl(w.unauthorizedTTL, 30_000, 'unauthorizedTTL')
    out.push({
      type,
      name,
      webhook: {
        timeoutMs,
        subjectAccessReviewVersion: version === 'v1' ? 'v1' : 'v1beta1',
        authorizedTtlMs,
        unauthorizedTtlMs,
        failurePolicy: policy === 'Deny' ? 'Deny' : 'NoOpinion',
        kubeConfigFile,
        matchConditions,
      },
    })
  })
  if (errors.length) throw new AuthorizationConfigFileError(errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`)
  return out
}
