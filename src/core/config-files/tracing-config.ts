/**
 * The tracing configuration (`--tracing-config-file`), read as the reference's
 * ReadTracingConfiguration (k8s.io/apiserver/pkg/server/options/tracing.go: the strict
 * universal decoder over the TracingConfiguration kinds its scheme registers, in
 * apiserver.config.k8s.io v1, v1beta1 and v1alpha1) and validated as
 * ValidateTracingConfiguration (k8s.io/component-base/tracing/api/v1/config.go). Errors carry
 * the reference's text, wrapped as its TracingOptions.ApplyTo wraps them.
 */
import { readFileSync } from 'node:fs'
import { goPathErrorText } from '../client/file-errors.js'
import { goQuote } from '../util/go-quote.js'
import { loadYaml } from '../util/yaml.js'
import { goJsonType } from '../util/go-json-type.js'

export class TracingConfigError extends Error {}

export const TRACING_CONFIG_API_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1beta1', 'apiserver.config.k8s.io/v1alpha1']

/** The OTLP gRPC exporter's own default endpoint (the reference leaves it unset). */
export const DEFAULT_TRACING_ENDPOINT = 'localhost:4317'

export interface TracingConfiguration {
  /** host:port, `dns://`, `unix://` or `unix-abstract:` target; undefined: localhost:4317. */
  endpoint?: string
  /** Spans per million root requests; undefined or 0: only requests whose parent is sampled. */
  samplingRatePerMillion?: number
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)


/** The reference's strict decoding of the file's text. */
export function decodeTracingConfiguration(data: string): TracingConfiguration {
  let doc: unknown
  try {
    doc = loadYaml(data)
  } catch (err) {
    throw new TracingConfigError(`error converting YAML to JSON: ${(err as Error).message}`)
  }
  const o = isObj(doc) ? doc : {}
  const kind = typeof o.kind === 'string' ? o.kind : ''
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : ''
  if (kind === '') throw new TracingConfigError(`Object 'Kind' is missing in '${data.trim()}'`)
  if (!TRACING_CONFIG_API_VERSIONS.includes(apiVersion) || kind !== 'TracingConfiguration') {
    throw new TracingConfigError(`no kind ${goQuote(kind)} is registered for version ${goQuote(apiVersion)} in scheme "pkg/runtime/scheme.go:100"`)
  }
  const unknown = Object.keys(o).filter((k) => !['apiVersion', 'kind', 'endpoint', 'samplingRatePerMillion'].includes(k))
  if (unknown.length > 0) throw new TracingConfigError(`strict decoding error: ${unknown.map((k) => `unknown field ${goQuote(k)}`).join(', ')}`)
  const config: TracingConfiguration = {}
  if (o.endpoint !== undefined && o.endpoint !== null) {
    if (typeof o.endpoint !== 'string') throw new TracingConfigError(`json: cannot unmarshal ${goJsonType(o.endpoint)} into Go struct field TracingConfiguration.endpoint of type string`)
    config.endpoint = o.endpoint
  }
  const rate = o.samplingRatePerMillion
  if (rate !== undefined && rate !== null) {
    if (typeof rate !== 'number' || !Number.isInteger(rate) || rate > 2 ** 31 - 1 || rate < -(2 ** 31)) {
      throw new TracingConfigError(`json: cannot unmarshal ${typeof rate === 'number' ? `number ${rate}` : goJsonType(rate)} into Go struct field TracingConfiguration.samplingRatePerMillion of type int32`)
    }
    config.samplingRatePerMillion = rate
  }
  return config
}

/** The reference's validateEndpoint: a gRPC target of the dns, unix or unix-abstract scheme. */
function validateEndpoint(endpoint: string): string[] {
  const target = endpoint.includes('//') ? endpoint : `dns://${endpoint}`
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(target)?.[1]?.toLowerCase() ?? ''
  if (scheme === 'dns' || scheme === 'unix' || scheme === 'unix-abstract') return []
  return [`endpoint: Invalid value: ${goQuote(target)}: unsupported scheme: ${scheme}.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md`]
}

/** The reference's ValidateTracingConfiguration: its field errors, in its order. */
export function validateTracingConfiguration(config: TracingConfiguration): string[] {
  const errors: string[] = []
  const rate = config.samplingRatePerMillion
  if (rate !== undefined) {
    if (rate < 0) errors.push(`samplingRatePerMillion: Invalid value: ${rate}: sampling rate must be positive`)
    if (rate > 1_000_000) errors.push(`samplingRatePerMillion: Invalid value: ${rate}: sampling rate per million must be less than or equal to one million`)
  }
  if (config.endpoint !== undefined) errors.push(...validateEndpoint(config.endpoint))
  return errors
}

/** Reads, decodes and validates the file as the reference's TracingOptions.ApplyTo does. */
export function readTracingConfiguration(path: string): TracingConfiguration {
  let data: string
  try {
    data = readFileSync(path, 'utf8')
  } catch (err) {
    throw new TracingConfigError(`failed to read tracing config: unable to read tracing configuration from ${goQuote(path)}: ${goPathErrorText(err, path)}`)
  }
  let config: TracingConfiguration
  try {
    config = decodeTracingConfiguration(data)
  } catch (err) {
    throw new TracingConfigError(`failed to read tracing config: unable to decode tracing configuration data: ${(err as Error).message}`)
  }
  const errors = validateTracingConfiguration(config)
  if (errors.length > 0) throw new TracingConfigError(`failed to validate tracing configuration: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`)
  return config
}
