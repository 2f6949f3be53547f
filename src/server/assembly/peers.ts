/**
 * The parts of a server among peers on one store: its identity (always; the identity Lease is
 * written with APIServerIdentity on, as by default), and with UnknownVersionInteroperabilityProxy
 * on, the mixed-version proxy over the peers' discovery (pkg/controlplane/apiserver/peer.go
 * BuildPeerProxy, which needs the proxy client certificate).
 */
import { readFileSync } from 'node:fs'
import type { Registry as MetricsRegistry } from 'prom-client'
import type { Registry } from '../api/registry/registry.js'
import type { ServerConfig } from '../config.js'
import { StartupError } from '../lifecycle/startup-error.js'
import type { Logger } from '../log/logger.js'
import { type ApiserverIdentity, apiserverIdentity } from '../peers/apiserver-id.js'
import { reroutedRequestCounter } from '../peers/metrics.js'
import { PeerDiscovery } from '../peers/peer-discovery.js'
import { PeerProxy } from '../peers/peer-proxy.js'
import type { PeerTls } from '../peers/peer-request.js'
import type { Store } from '../store/types.js'

export const MIXED_VERSION_PROXY_GATE = 'UnknownVersionInteroperabilityProxy'

export interface Peers {
  readonly identity: ApiserverIdentity
  /** With the gate on. */
  readonly proxy?: PeerProxy
}

function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    throw new StartupError(`error building peer proxy handler, failed to read ${what} ${file}: ${(err as Error).message}`)
  }
}

/** The peer connections' TLS material, as BuildPeerProxy requires it. */
function peerTls(config: ServerConfig): PeerTls {
  if (!config.proxyClientCertFile) throw new StartupError('error building peer proxy handler, proxy-cert-file not specified')
  if (!config.proxyClientKeyFile) throw new StartupError('error building peer proxy handler, proxy-key-file not specified')
  return {
    cert: readPem(config.proxyClientCertFile, '--proxy-client-cert-file'),
    key: readPem(config.proxyClientKeyFile, '--proxy-client-key-file'),
    ...(config.peerCaFile ? { ca: readPem(config.peerCaFile, '--peer-ca-file') } : {}),
  }
}

export function peersFromConfig(
  config: ServerConfig,
  parts: { advertiseAddress: string; registry: () => Registry | undefined; store: () => Store | undefined; log: Logger; metrics: MetricsRegistry },
): Peers {
  const identity = apiserverIdentity(config, parts.advertiseAddress)
  if (config.featureGates.get(MIXED_VERSION_PROXY_GATE) !== true) return { identity }
  const tls = peerTls(config)
  const discovery = new PeerDiscovery({ serverId: identity.id, tls, registry: parts.registry, store: parts.store, log: (level, message) => parts.log.v(level, message) })
  return { identity, proxy: new PeerProxy(discovery, tls, parts.registry, reroutedRequestCounter(parts.metrics)) }
}
