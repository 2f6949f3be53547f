/**
 * The egress selector of `--egress-selector-config-file` (the reference's NewEgressSelector):
 * one dialer per configured network (Direct, HTTPConnect over TCP or a Unix socket, GRPC
 * konnectivity over a Unix socket) and
 * straight connections for the networks the file does not name. The file is read at start-up;
 * a file that cannot be read, decoded or validated, or whose TLS files cannot be loaded, stops
 * the start-up with the reference's text.
 */
import { readFileSync } from 'node:fs'
import {
  EGRESS_SELECTION_NAMES,
  type EgressSelection,
  EgressSelectorConfigError,
  type EgressSelectorConfiguration,
  egressSelectionFor,
  readEgressSelectorConfiguration,
} from '../../core/config-files/egress-selector-config.js'
import { StartupError } from '../lifecycle/startup-error.js'
import { DIRECT_DIALER, type EgressDialer, type EgressNetwork, dialDirect } from './dialer.js'
import { dialHttpConnect, type ProxyEndpoint } from './http-connect.js'
import { dialKonnectivity } from './konnectivity.js'

type NetworkDial = (host: string, port: number) => Promise<import('node:net').Socket | import('node:stream').Duplex>

/** The proxy endpoint of an HTTPConnect selection, its TLS files loaded now. */
function proxyEndpoint(selection: EgressSelection): ProxyEndpoint {
  const transport = selection.transport!
  if (transport.uds) return { kind: 'uds', path: transport.uds.udsName }
  const tcp = transport.tcp!
  const url = new URL(tcp.url)
  const tlsConfig = tcp.tlsConfig
  if (url.protocol !== 'https:' || !tlsConfig) return { kind: 'tcp', url }
  return {
    kind: 'tcp',
    url,
    tls: {
      ...(tlsConfig.caBundle ? { ca: readFileSync(tlsConfig.caBundle) } : {}),
      cert: readFileSync(tlsConfig.clientCert!),
      key: readFileSync(tlsConfig.clientKey!),
    },
  }
}

function networkDial(selection: EgressSelection | undefined): NetworkDial {
  if (!selection || selection.proxyProtocol === 'Direct') return dialDirect
  if (selection.proxyProtocol === 'GRPC') {
    const udsName = selection.transport!.uds!.udsName
    return (host, port) => dialKonnectivity(udsName, host, port)
  }
  const proxy = proxyEndpoint(selection)
  return (host, port) => dialHttpConnect(proxy, host, port)
}

/** The dialer of a decoded, validated configuration. */
export function egressDialerFor(config: EgressSelectorConfiguration): EgressDialer {
  const dials = new Map<EgressNetwork, NetworkDial>(EGRESS_SELECTION_NAMES.map((name) => [name, networkDial(egressSelectionFor(config, name))]))
  return { dial: (network, host, port) => dials.get(network)!(host, port) }
}

/**
 * The dialer of `--egress-selector-config-file` (DIRECT_DIALER without one); a bad file is a
 * StartupError. `warnEtcd` (given when the store is etcd) hears that a non-Direct `etcd`
 * selection is not applied: the etcd clients (etcd3 on grpc-js, the KV client on node:http2)
 * open their connections synchronously and connect directly.
 */
export function egressDialerFromFile(path: string | undefined, warnEtcd?: (message: string) => void): EgressDialer {
  if (!path) return DIRECT_DIALER
  let config: EgressSelectorConfiguration
  try {
    config = readEgressSelectorConfiguration(path)
  } catch (err) {
    if (err instanceof EgressSelectorConfigError) throw new StartupError(err.message, { cause: err })
    throw err
  }
  const etcd = egressSelectionFor(config, 'etcd')
  if (warnEtcd && etcd && etcd.proxyProtocol !== 'Direct') warnEtcd(`the egress selection "etcd" (proxyProtocol ${etcd.proxyProtocol}) is not applied: the etcd clients connect to --store-servers directly`)
  try {
    return egressDialerFor(config)
  } catch (err) {
    throw new StartupError(`failed to setup egress selector with config ${path}: ${(err as Error).message}`, { cause: err })
  }
}
