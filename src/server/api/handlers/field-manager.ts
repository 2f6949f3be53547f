/**
 * The server's side of managedFields: the manager of a request (the `fieldManager` query, else
 * the User-Agent's product as the reference does), the type and reset fields of the served
 * kind, and the store hook that records a create, update or patch as an Update entry.
 */
import { DEDUCED, type FieldManagerScope, type TypeNode, builtInType, crdType, nowRfc3339, onlyStatus, updateManagedFields, withoutStatus } from '../../../core/apply/index.js'
import type { GenericStore } from '../registry/generic-store.js'
import type { KubeObject } from '../registry/object.js'
import { errors } from '../status-errors.js'
import type { Scope } from './scope.js'

const FIELD_MANAGER_MAX_LENGTH = 128

/**
 * The `fieldManager` of the request, checked as the reference's ValidateFieldManager (`kind` is
 * the options kind of the verb: CreateOptions, UpdateOptions, PatchOptions).
 */
export function requestedFieldManager(scope: Scope, kind: string): string {
  const manager = scope.query.get('fieldManager') ?? ''
  const invalid = (message: string) =>
    errors.invalid('meta.k8s.io', kind, '', [{ reason: message.startsWith('Too long') ? 'FieldValueTooLong' : 'FieldValueInvalid', message, field: 'fieldManager' }])
  if (manager.length > FIELD_MANAGER_MAX_LENGTH) throw invalid(`Too long: may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`)
  if (/[\u0000-\u001f\u007f]/.test(manager)) throw invalid(`Invalid value: ${JSON.stringify(manager)}: must only contain printable characters`)
  return manager
}

/** The manager of a non-apply write: `fieldManager`, else the User-Agent up to its first `/`. */
export function managerOf(scope: Scope, kind: string): string {
  const manager = requestedFieldManager(scope, kind)
  if (manager !== '') return manager
  const agent = scope.req.headers['user-agent']
  return (Array.isArray(agent) ? (agent[0] ?? '') : (agent ?? '')).split('/')[0]!
}

const crdTypes = new WeakMap<object, TypeNode>()

/** The type of the store's kind: built-in schema, the CRD's schema, or deduced. */
export function typeOf(store: GenericStore): TypeNode {
  const { strategy } = store
  if (!strategy.customResource) return builtInType(store.apiVersion, strategy.kind) ?? DEDUCED
  const schema = strategy.openAPIV3Schema
  if (typeof schema !== 'object' || schema === null) return DEDUCED
  let type = crdTypes.get(schema)
  if (!type) crdTypes.set(schema, (type = crdType(schema)))
  return type
}

export function fieldManagerScope(store: GenericStore, subresource?: string): FieldManagerScope {
  const hasStatus = store.strategy.subresources?.includes('status') === true
  return {
    type: typeOf(store),
    apiVersion: store.apiVersion,
    ...(subresource ? { subresource } : {}),
    ...(subresource === 'status' ? { resetFields: onlyStatus } : hasStatus && !subresource ? { resetFields: withoutStatus } : {}),
    now: nowRfc3339(),
  }
}

/**
 * The write's managedFields hook for the manager of the request (checked either way), unless
 * the registry records none (RegistryOptions.managedFields).
 */
export function tracking(scope: Scope, kind: string, subresource?: string): { trackFields?: (obj: KubeObject, current?: KubeObject) => void } {
  const manager = managerOf(scope, kind)
  return scope.managedFields === false ? {} : { trackFields: trackFields(scope.store, manager, subresource) }
}

/** The store hook recording the write of `manager` in the object's managedFields. */
export function trackFields(store: GenericStore, manager: string, subresource?: string): (obj: KubeObject, current?: KubeObject) => void {
  return (obj, current) => {
    const scope = fieldManagerScope(store, subresource)
    const tracked = updateManagedFields(current as Record<string, unknown> | undefined, obj as unknown as Record<string, unknown>, manager, scope) as unknown as KubeObject
    if (tracked.metadata.managedFields === undefined) delete obj.metadata.managedFields
    else obj.metadata.managedFields = tracked.metadata.managedFields
  }
}
