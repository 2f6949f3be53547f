/**
 * The egress selector configuration (`--egress-selector-config-file`), read and validated as
 * the reference's ReadEgressSelectorConfiguration and ValidateEgressSelectorConfiguration
 * (k8s.io/apiserver/pkg/server/egressselector/config.go): the file is decoded as an
 * `apiserver.k8s.io` v1beta1 EgressSelectorConfiguration whatever its apiVersion says (the
 * reference checks only the kind; v1alpha1 files share the v1beta1 fields), the legacy name
 * `master` becomes `controlplane` as the reference's conversion does, and every error carries
 * the reference's text.
 */
import { existsSync, readFileSync } from 'node:fs'
import { goPathErrorText } from '../client/file-errors.js'
import { goQuote } from '../util/go-quote.js'
import { loadYaml } from '../util/yaml.js'
import { goJsonType } from '../util/go-json-type.js'

export class EgressSelectorConfigError extends Error {}

/** The reference's selection names (validEgressSelectorNames), sorted as its sets.List() gives them. */
export const EGRESS_SELECTION_NAMES = ['cluster', 'controlplane', 'etcd'] as const
export type EgressSelectionName = (typeof EGRESS_SELECTION_NAMES)[number]
export const PROXY_PROTOCOLS = ['Direct', 'HTTPConnect', 'GRPC'] as const

export interface EgressTLSConfig {
  caBundle?: string
  clientCert?: string
  clientKey?: string
}

export interface EgressTransport {
  tcp?: { url: string; tlsConfig?: EgressTLSConfig }
  uds?: { udsName: string }
}

export interface EgressSelection {
  /** Lower-cased, `master` as `controlplane`. */
  name: string
  proxyProtocol: string
  transport?: EgressTransport
}

export interface EgressSelectorConfiguration {
  egressSelections: EgressSelection[]
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)


/** A string field, or the decoder's type error. */
function stringField(o: Obj, field: string, struct: string): string {
  const v = o[field]
  if (v === undefined || v === null) return ''
  if (typeof v !== 'string') throw new EgressSelectorConfigError(`error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goJsonType(v)} into Go struct field ${struct}.${field} of type string`)
  return v
}

/** An object field (undefined when absent), or the decoder's type error. */
function objectField(o: Obj, field: string, struct: string, type: string): Obj | undefined {
  const v = o[field]
  if (v === undefined || v === null) return undefined
  if (!isObj(v)) throw new EgressSelectorConfigError(`error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goJsonType(v)} into Go struct field ${struct}.${field} of type ${type}`)
  return v
}

function decodeTransport(o: Obj | undefined): EgressTransport | undefined {
  if (!o) return undefined
  const transport: EgressTransport = {}
  const tcp = objectField(o, 'tcp', 'Transport', 'v1beta1.TCPTransport')
  if (tcp) {
    const tls = objectField(tcp, 'tlsConfig', 'TCPTransport', 'v1beta1.TLSConfig')
    transport.tcp = { url: stringField(tcp, 'url', 'TCPTransport') }
    if (tls) {
      transport.tcp.tlsConfig = {
        caBundle: stringField(tls, 'caBundle', 'TLSConfig'),
        clientCert: stringField(tls, 'clientCert', 'TLSConfig'),
        clientKey: stringField(tls, 'clientKey', 'TLSConfig'),
      }
    }
  }
  const uds = objectField(o, 'uds', 'Transport', 'v1beta1.UDSTransport')
  if (uds) transport.uds = { udsName: stringField(uds, 'udsName', 'UDSTransport') }
  return transport
}

/** Decodes the file's text (the reference's yaml.Unmarshal into v1beta1, then its conversion). */
export function decodeEgressSelectorConfiguration(data: string): EgressSelectorConfiguration {
  let doc: unknown
  try {
    doc = loadYaml(data)
  } catch (err) {
    throw new EgressSelectorConfigError(`error converting YAML to JSON: ${(err as Error).message}`)
  }
  const o = isObj(doc) ? doc : {}
  const kind = stringField(o, 'kind', 'EgressSelectorConfiguration')
  if (kind !== 'EgressSelectorConfiguration') throw new EgressSelectorConfigError(`invalid service configuration object ${goQuote(kind)}`)
  const list = o.egressSelections
  if (list !== undefined && list !== null && !Array.isArray(list)) {
    throw new EgressSelectorConfigError(`error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goJsonType(list)} into Go struct field EgressSelectorConfiguration.egressSelections of type []v1beta1.EgressSelection`)
  }
  const egressSelections = (list ?? []).map((item: unknown): EgressSelection => {
    const selection = isObj(item) ? item : {}
    const connection = objectField(selection, 'connection', 'EgressSelection', 'v1beta1.Connection') ?? {}
    const name = stringField(selection, 'name', 'EgressSelection')
    const transport = decodeTransport(objectField(connection, 'transport', 'Connection', 'v1beta1.Transport'))
    // The reference's v1beta1 conversion: the deprecated `master` is `controlplane`.
    return { name: name === 'master' ? 'controlplane' : name, proxyProtocol: stringField(connection, 'proxyProtocol', 'Connection'), ...(transport ? { transport } : {}) }
  })
  return { egressSelections }
}

const supported = (values: readonly string[]) => `supported values: ${values.map((v) => JSON.stringify(v)).join(', ')}`

/** Go's %#v of the TCP transport the "both set" error shows. */
function goTcpValue(tcp: NonNullable<EgressTransport['tcp']>): string {
  return `apiserver.TCPTransport{URL:${goQuote(tcp.url)}, TLSConfig:(*apiserver.TLSConfig)(${tcp.tlsConfig ? '0xc000000000' : 'nil'})}`
}

function validateTLSConfig(tls: EgressTLSConfig | undefined, path: string): string[] {
  if (!tls) return [`${path}.tlsConfig: Required value: TLSConfig must be present when using HTTPS`]
  const errors: string[] = []
  if (tls.caBundle && !existsSync(tls.caBundle)) errors.push(`${path}.tlsConfig.caBundle: Invalid value: ${goQuote(tls.caBundle)}: TLS config ca bundle does not exist`)
  if (!tls.clientCert) errors.push(`${path}.tlsConfig.clientCert: Invalid value: "nil": Using TLS requires clientCert`)
  else if (!existsSync(tls.clientCert)) errors.push(`${path}.tlsConfig.clientCert: Invalid value: ${goQuote(tls.clientCert)}: TLS client cert does not exist`)
  // "requires requires" is the reference's text.
  if (!tls.clientKey) errors.push(`${path}.tlsConfig.clientKey: Invalid value: "nil": Using TLS requires requires clientKey`)
  else if (!existsSync(tls.clientKey)) errors.push(`${path}.tlsConfig.clientKey: Invalid value: ${goQuote(tls.clientKey)}: TLS client key does not exist`)
  return errors
}

function validateUDS(uds: { udsName: string }, path: string): string[] {
  return uds.udsName === '' ? [`${path}.udsName: Invalid value: "nil": UDSName should be present for UDS connections`] : []
}

function validateTCP(tcp: NonNullable<EgressTransport['tcp']>, path: string): string[] {
  if (tcp.url.startsWith('http://')) return tcp.tlsConfig ? [`${path}.tlsConfig: Invalid value: "nil": TLSConfig config should not be present when using HTTP`] : []
  if (tcp.url.startsWith('https://')) return validateTLSConfig(tcp.tlsConfig, path)
  return [`${path}.url: Invalid value: ${goQuote(tcp.url)}: supported connection protocols are http:// and https://`]
}

function validateConnection(selection: EgressSelection, path: string): string[] {
  const transport = selection.transport
  switch (selection.proxyProtocol) {
    case 'Direct':
      return transport ? [`${path}.transport: Invalid value: "direct": Transport config should be absent for direct connect`] : []
    case 'HTTPConnect':
      if (!transport) return [`${path}.transport: Required value: transport must be set for HTTPConnect`]
      if (transport.tcp && transport.uds) return [`${path}.tcp: Invalid value: ${goTcpValue(transport.tcp)}: TCP and UDS cannot both be set`]
      if (!transport.tcp && !transport.uds) return [`${path}.tcp: Required value: One of TCP or UDS must be set`]
      return transport.tcp ? validateTCP(transport.tcp, path) : validateUDS(transport.uds!, path)
    case 'GRPC':
      if (!transport) return [`${path}.transport: Required value: transport must be set for GRPC`]
      return transport.uds ? validateUDS(transport.uds, path) : [`${path}.uds: Required value: UDS must be set with GRPC`]
    default:
      return [`${path}.protocol: Unsupported value: ${goQuote(selection.proxyProtocol)}: ${supported(PROXY_PROTOCOLS)}`]
  }
}

/** The reference's ValidateEgressSelectorConfiguration: its field errors, in its order. */
export function validateEgressSelectorConfiguration(config: EgressSelectorConfiguration): string[] {
  const path = 'service.connection'
  const errors = config.egressSelections.flatMap((s) => validateConnection(s, path))
  const seen = new Set<string>()
  config.egressSelections.forEach((selection, i) => {
    const canonical = selection.name.toLowerCase()
    if (seen.has(canonical)) {
      errors.push(`${path}[${i}]: Duplicate value: ${goQuote(canonical)}`)
      return
    }
    seen.add(canonical)
    if (!(EGRESS_SELECTION_NAMES as readonly string[]).includes(canonical)) errors.push(`${path}: Unsupported value: ${goQuote(canonical)}: ${supported(EGRESS_SELECTION_NAMES)}`)
  })
  return errors
}

/**
 * Reads, decodes and validates the file as the reference's EgressSelectorOptions.ApplyTo; a
 * failure is an EgressSelectorConfigError with the reference's whole text.
 */
export function readEgressSelectorConfiguration(path: string): EgressSelectorConfiguration {
  let data: string
  try {
    data = readFileSync(path, 'utf8')
  } catch (err) {
    throw new EgressSelectorConfigError(`failed to read egress selector config: unable to read egress selector configuration from ${goQuote(path)} [${goPathErrorText(err, path)}]`)
  }
  let config: EgressSelectorConfiguration
  try {
    config = decodeEgressSelectorConfiguration(data)
  } catch (err) {
    throw new EgressSelectorConfigError(`failed to read egress selector config: ${(err as Error).message}`)
  }
  const errors = validateEgressSelectorConfiguration(config)
  if (errors.length > 0) throw new EgressSelectorConfigError(`failed to validate egress selector configuration: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`)
  return config
}

/** The selection configured for a network, undefined when the file does not name it (then Direct). */
export function egressSelectionFor(config: EgressSelectorConfiguration, name: EgressSelectionName): EgressSelection | undefined {
  return config.egressSelections.find((s) => s.name.toLowerCase() === name)
}
