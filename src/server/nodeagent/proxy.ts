/**
 * `pods/<id>/proxy`, `nodes/<id>/proxy` and `services/<id>/proxy`, with their sub-paths (the
 * reference's ProxyREST of each kind and UpgradeAwareHandler): the request, its method, body
 * and query, sent to the location the kind resolves, under the path after `proxy/`; an upgrade
 * request is relayed both ways as exec's is. The client's credentials are not passed on.
 */
import { request as httpRequest } from 'node:http'
import type { Duplex } from 'node:stream'
import type { VirtualHandler, VirtualScope } from '../api/index.js'
import type { KubeObject } from '../api/registry/object.js'
import { errors } from '../api/status-errors.js'
import { isUpgrade } from '../http/upgrade.js'
import { backendError } from './backend-error.js'
import { type NodeAgentClient, hostPort } from './client.js'
import { admitConnect } from './connect-checks.js'
import { type ProxyLocation, nodeProxyLocation, podProxyLocation, serviceProxyLocation } from './proxy-location.js'
import { forwardedHeader, proxyUpgrade } from './upgrade-proxy.js'

export type ProxiedResource = 'pods' | 'nodes' | 'services'

const PROXY_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'])
const OPTIONS_KIND: Record<ProxiedResource, string> = { pods: 'PodProxyOptions', nodes: 'NodeProxyOptions', services: 'ServiceProxyOptions' }

/** Headers of the backend's answer that belong to its connection, not to the response. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer'])

/** The path after `proxy/`, with the request's trailing slash kept (as UpgradeAwareHandler keeps it). */
function proxiedPath(scope: VirtualScope): string {
  const rest = (scope.ctx.info.parts ?? []).slice(3).join('/')
  const trailing = scope.ctx.info.path.endsWith('/') && rest !== '' && !rest.endsWith('/') ? '/' : ''
  return `/${rest}${trailing}`
}

export function proxyHandler(resource: ProxiedResource, client: NodeAgentClient): VirtualHandler {
  return async (scope) => {
    const { req, res, registry } = scope
    if (!PROXY_METHODS.has(req.method ?? '')) throw errors.methodNotAllowed()
    const id = scope.name!
    const path = proxiedPath(scope)
    await admitConnect(scope, resource, 'proxy', { kind: OPTIONS_KIND[resource], apiVersion: 'v1', path } as unknown as KubeObject)
    const namespace = scope.namespace ?? ''
    const location =
      resource === 'pods'
        ? await podProxyLocation(registry, namespace, id)
        : resource === 'nodes'
          ? await nodeProxyLocation(registry, client, id)
          : await serviceProxyLocation(registry, namespace, id)
    const target = scope.ctx.rawQuery ? `${path}?${scope.ctx.rawQuery}` : path
    const connect = (): Promise<Duplex> => (location.agent ? client.connect(location) : client.connectProxy(location, location.scheme))
    if (isUpgrade(req)) return proxyUpgrade(req, res, connect, location, target)
    return proxyRequest(scope, connect, location, target)
  }
}

/** One request through: the body streamed to the backend, its status, headers and body streamed back. */
async function proxyRequest(scope: VirtualScope, connect: () => Promise<Duplex>, location: ProxyLocation, target: string): Promise<void> {
  const { req, res } = scope
  const url = `${location.scheme}://${hostPort(location)}${target}`
  let socket: Duplex
  try {
    socket = await connect()
  } catch (err) {
    throw backendError(`error trying to reach service: ${(err as Error).message}`)
  }
  const headers: Record<string, string | string[]> = { Host: hostPort(location) }
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || !forwardedHeader(name) || HOP_BY_HOP.has(name)) continue
    headers[name] = value
  }
  await new Promise<void>((resolve, reject) => {
    const backendReq = httpRequest({ method: req.method, path: target, headers, createConnection: () => socket as import('node:net').Socket })
    backendReq.on('error', (err) => {
      if (res.headersSent) {
        res.destroy()
        resolve()
      } else reject(backendError(`error trying to reach service: ${err.message} (${url})`))
    })
    backendReq.on('response', (backendRes) => {
      const out: Record<string, string | string[]> = {}
      for (const [name, value] of Object.entries(backendRes.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value
      try {
        res.writeHead(backendRes.statusCode ?? 502, out)
      } catch (err) {
        backendReq.destroy()
        reject(err)
        return
      }
      backendRes.pipe(res as NodeJS.WritableStream)
      backendRes.on('end', () => resolve())
      res.on('close', () => {
        backendReq.destroy()
        resolve()
      })
    })
    ;(req as NodeJS.ReadableStream).pipe(backendReq)
  })
}
