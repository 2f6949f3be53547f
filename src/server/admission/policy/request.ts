/**
 * The `request` and `namespaceObject` variables of admission expressions (the reference's
 * plugin/cel CreateAdmissionRequest and CreateNamespaceObject): the AdmissionRequest with the
 * kind and resource the policy matched (an equivalent one under `matchPolicy: Equivalent`) and
 * the request's own as requestKind/requestResource, without the objects; and the namespace's
 * metadata (its identifying fields, labels, annotations, finalizers), spec and status.
 */
import { isPlainObject, type KubeObject } from '../../api/registry/object.js'
import { type AdmissionAttributes, operationOptions } from '../attributes.js'
import type { GroupVersionKind } from './kinds.js'
import type { GroupVersionResource } from './matching.js'

type Obj = Record<string, unknown>

/** The request as the JSON the reference converts to CEL (omitempty fields left out). */
export function createAdmissionRequest(attributes: AdmissionAttributes, resource: GroupVersionResource, kind: GroupVersionKind): Obj {
  const { userInfo } = attributes
  const user: Obj = {}
  if (userInfo?.name) user.username = userInfo.name
  if (userInfo?.uid) user.uid = userInfo.uid
  if (userInfo?.groups?.length) user.groups = userInfo.groups
  user.extra = userInfo?.extra ?? {}
  return {
    uid: '',
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    resource: { group: resource.group, version: resource.version, resource: resource.resource },
    ...(attributes.subresource ? { subResource: attributes.subresource } : {}),
    requestKind: { ...attributes.kind },
    requestResource: { ...attributes.resource },
    ...(attributes.subresource ? { requestSubResource: attributes.subresource } : {}),
    ...(attributes.name ? { name: attributes.name } : {}),
    ...(attributes.namespace ? { namespace: attributes.namespace } : {}),
    operation: attributes.operation,
    userInfo: user,
    dryRun: attributes.dryRun,
    options: operationOptions(attributes),
  }
}

const NAMESPACE_METADATA = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'finalizers']

/** The namespace as policies see it: no managedFields, owner references or kind. */
export function createNamespaceObject(namespace: KubeObject | undefined): Obj | null {
  if (!namespace) return null
  const metadata: Obj = {}
  for (const key of NAMESPACE_METADATA) {
    const value = (namespace.metadata as Obj)[key]
    if (value !== undefined) metadata[key] = value
  }
  return { metadata, spec: namespace.spec ?? {}, status: namespace.status ?? {} }
}
