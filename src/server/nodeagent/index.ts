/**
 * The subresources served by node agents, as the resource API's connect handlers: `pods/log`,
 * `pods/exec`, `pods/attach`, `pods/portforward`, and the proxies (`pods/proxy`,
 * `nodes/proxy`, `services/proxy`).
 */
import type { VirtualHandler } from '../api/index.js'
import type { Authorizer } from '../authorization/authorizer.js'
import type { EgressDialer } from '../egress/dialer.js'
import { INSTALLED_DIALER } from '../egress/installed.js'
import { NodeAgentClient } from './client.js'
import { podLogHandler } from './pod-log.js'
import { podStreamHandler } from './pod-stream.js'
import { proxyHandler } from './proxy.js'

export interface NodeAgentConfig {
  caFile?: string
  certFile?: string
  keyFile?: string
  preferredAddressTypes: readonly string[]
  timeoutMs: number
  /** The `cluster` egress selection; direct when absent. */
  dialer?: EgressDialer
  /** The authorizer of the WebSocket upgrades' `create` check; absent when the gate is off. */
  upgradeCreateAuthorizer?: Authorizer
}

export function nodeAgentApi(config: NodeAgentConfig): Array<[string, VirtualHandler]> {
  const client = new NodeAgentClient({
    ...(config.caFile ? { caFile: config.caFile } : {}),
    ...(config.certFile ? { certFile: config.certFile } : {}),
    ...(config.keyFile ? { keyFile: config.keyFile } : {}),
    preferredAddressTypes: config.preferredAddressTypes,
    timeoutMs: config.timeoutMs,
    dialer: config.dialer ?? INSTALLED_DIALER,
  })
  const stream = { client, ...(config.upgradeCreateAuthorizer ? { upgradeCreateAuthorizer: config.upgradeCreateAuthorizer } : {}) }
  return [
    ['/v1/pods/log', podLogHandler(client)],
    ['/v1/pods/exec', podStreamHandler('exec', stream)],
    ['/v1/pods/attach', podStreamHandler('attach', stream)],
    ['/v1/pods/portforward', podStreamHandler('portforward', stream)],
    ['/v1/pods/proxy', proxyHandler('pods', client)],
    ['/v1/nodes/proxy', proxyHandler('nodes', client)],
    ['/v1/services/proxy', proxyHandler('services', client)],
  ]
}
