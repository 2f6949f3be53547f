/**
 * What a connect request passes before it reaches the node agent, beyond the chain's own
 * authorization: the `create` check of a WebSocket upgrade to exec, attach or port-forward
 * (feature gate AuthorizePodWebsocketUpgradeCreatePermission, on by default since 1.35: a GET
 * is authorized as `get`, and must be allowed as `create` too, as SPDY's POST is), and the
 * admission chain with operation CONNECT, the options object (PodExecOptions ...) as the
 * object, as the reference's ConnectResource admits it.
 */
import type { VirtualScope } from '../api/index.js'
import type { AdmissionAttributes } from '../api/registry/admission-hook.js'
import type { KubeObject } from '../api/registry/object.js'
import { ApiError } from '../api/status-errors.js'
import type { Attributes, Authorizer } from '../authorization/authorizer.js'
import { requestForbidden } from '../authorization/forbidden.js'

/** The compound `create` check; nothing when the server authorizes nothing or the gate is off. */
export async function authorizeUpgradeCreate(scope: VirtualScope, subresource: string, authorizer: Authorizer | undefined): Promise<void> {
  if (!authorizer || scope.req.method !== 'GET') return
  const info = scope.ctx.info
  const attributes: Attributes = {
    user: scope.ctx.user ?? { name: '', groups: [] },
    verb: 'create',
    resourceRequest: true,
    path: info.path,
    namespace: scope.namespace ?? '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource,
    name: scope.name ?? '',
  }
  const { decision, reason } = await authorizer.authorize(attributes)
  if (decision !== 'allow') throw new ApiError(requestForbidden(attributes, reason))
}

/** Mutating then validating admission of the connect; plugins see the options, not the pod. */
export async function admitConnect(scope: VirtualScope, resource: string, subresource: string, options: KubeObject): Promise<void> {
  const hook = scope.registry.options.admission
  if (!hook) return
  const attributes: AdmissionAttributes = {
    operation: 'CONNECT',
    kind: { group: '', version: 'v1', kind: resource === 'pods' ? 'Pod' : resource === 'nodes' ? 'Node' : 'Service' },
    resource: { group: '', version: 'v1', resource },
    subresource,
    namespace: scope.namespace ?? '',
    name: scope.name ?? '',
    object: options,
    dryRun: false,
    ...(scope.ctx.user ? { userInfo: scope.ctx.user } : {}),
  }
  await hook.admit(attributes)
  await hook.validate(attributes)
}
