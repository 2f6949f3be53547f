/**
 * `pods/<name>/exec`, `attach` and `portforward` (the reference's ExecREST, AttachREST and
 * PortForwardREST with ExecLocation, AttachLocation, PortForwardLocation): GET (WebSocket) or
 * POST (SPDY), the options of the query sent on to the node agent's `/exec/<ns>/<pod>/<c>`,
 * `/attach/...` or `/portForward/<ns>/<pod>` in the reference's form, and the upgraded
 * connection relayed both ways.
 */
import type { VirtualHandler, VirtualScope } from '../api/index.js'
import type { KubeObject } from '../api/registry/object.js'
import { errors } from '../api/status-errors.js'
import type { Authorizer } from '../authorization/authorizer.js'
import type { NodeAgentClient } from './client.js'
import { admitConnect, authorizeUpgradeCreate } from './connect-checks.js'
import { getPod, noHostAssigned, validateContainer } from './pod-container.js'
import { boolParam, intParam, stringParam } from './query-options.js'
import { proxyUpgrade } from './upgrade-proxy.js'

export type StreamSubresource = 'exec' | 'attach' | 'portforward'

export interface StreamOptions {
  client: NodeAgentClient
  /** Set when the WebSocket upgrade must also be allowed as `create` (the 1.35 gate). */
  upgradeCreateAuthorizer?: Authorizer
}

const OPTIONS_KIND: Record<StreamSubresource, string> = { exec: 'PodExecOptions', attach: 'PodAttachOptions', portforward: 'PodPortForwardOptions' }

/** The options object of the query (for admission) and the agent's query (streamParams, keys sorted as url.Values.Encode). */
function streamOptions(sub: StreamSubresource, query: URLSearchParams): { object: KubeObject; container: string; agentQuery: URLSearchParams } {
  const agentQuery = new URLSearchParams()
  const object: Record<string, unknown> = { kind: OPTIONS_KIND[sub], apiVersion: 'v1' }
  if (sub === 'portforward') {
    const ports = query.getAll('ports').map((value) => intParam(new URLSearchParams([['port', value]]), 'port')!)
    if (ports.length > 0) {
      object.ports = ports
      agentQuery.append('port', ports.join(','))
    }
    return { object: object as KubeObject, container: '', agentQuery }
  }
  const flags = { stdin: boolParam(query, 'stdin'), stdout: boolParam(query, 'stdout'), stderr: boolParam(query, 'stderr'), tty: boolParam(query, 'tty') }
  const container = stringParam(query, 'container')
  const command = sub === 'exec' ? query.getAll('command') : []
  if (sub === 'exec') for (const c of command) agentQuery.append('command', c)
  if (flags.stderr) agentQuery.append('error', '1')
  if (flags.stdin) agentQuery.append('input', '1')
  if (flags.stdout) agentQuery.append('output', '1')
  if (flags.tty) agentQuery.append('tty', '1')
  Object.assign(object, flags, container ? { container } : {}, command.length > 0 ? { command } : {})
  return { object: object as KubeObject, container, agentQuery }
}

export function podStreamHandler(sub: StreamSubresource, options: StreamOptions): VirtualHandler {
  return async (scope: VirtualScope) => {
    const { req, res, registry, query } = scope
    if (req.method !== 'GET' && req.method !== 'POST') throw errors.methodNotAllowed()
    const name = scope.name!
    const namespace = scope.namespace ?? ''
    await authorizeUpgradeCreate(scope, sub, options.upgradeCreateAuthorizer)
    const parsed = streamOptions(sub, query)
    await admitConnect(scope, 'pods', sub, parsed.object)
    const pod = await getPod(registry, namespace, name)
    const container = sub === 'portforward' ? '' : validateContainer(parsed.container, pod)
    if (pod.nodeName === '') throw noHostAssigned(name)
    const location = await options.client.location(registry, pod.nodeName)
    const path = sub === 'portforward' ? `/portForward/${pod.namespace}/${pod.name}` : `/${sub}/${pod.namespace}/${pod.name}/${container}`
    const encoded = parsed.agentQuery.toString()
    await proxyUpgrade(req, res, () => options.client.connect(location), location, encoded === '' ? path : `${path}?${encoded}`)
  }
}
