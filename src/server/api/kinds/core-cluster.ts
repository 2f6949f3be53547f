/**
 * The core group's cluster kinds: Namespaces (a strategy of their own, not generated:
 * cluster-scoped, DNS-1123 label names, phase Active, the name label, and the DELETE that marks
 * them Terminating for the namespace controller), Nodes and ComponentStatuses.
 */
import { deepEqual } from '../../../core/patch/index.js'
import { finalizersForPropagation } from '../registry/deletion.js'
import { type KubeObject, isPlainObject, nowTimestamp } from '../registry/object.js'
import type { KindDeleteOptions, KindDeleteResult, StoreHooksContext } from '../registry/store-hooks.js'
import type { Strategy } from '../registry/strategy.js'
import { errors } from '../status-errors.js'
import { nameIsDNSLabel } from '../validation/names.js'
import { validateNamespace, validateNamespaceFinalizeUpdate, validateNamespaceStatusUpdate, validateNode, validateNodeUpdate } from '../validation/core.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { arr, col, obj, str } from './values.js'

const NAME_LABEL = 'kubernetes.io/metadata.name'

function setNameLabel(obj: KubeObject): void {
  if (obj.metadata.name) obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [NAME_LABEL]: obj.metadata.name }
}

export const namespaces: Strategy = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  resource: 'namespaces',
  singular: 'namespace',
  shortNames: ['ns'],
  namespaced: false,
  // No deletecollection: the reference does not serve it for namespaces.
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  // finalize: the namespace controller's PUT of spec.finalizers.
  subresources: ['finalize', 'status'],
  // The reference's strategy keeps no generation for this kind.
  generation: false,
  validateName: nameIsDNSLabel,
  prepareForCreate(obj) {
    obj.status = { phase: 'Active' }
    const spec = (obj.spec ?? {}) as Record<string, unknown>
    const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : []
    obj.spec = { ...spec, finalizers: finalizers.includes('kubernetes') ? finalizers : [...finalizers, 'kubernetes'] }
    setNameLabel(obj)
  },
  prepareForUpdate(obj, old) {
    // Spec (finalizers) and status are changed through subresources only.
    if (old.spec === undefined) delete obj.spec
    else obj.spec = old.spec
    if (old.status === undefined) delete obj.status
    else obj.status = old.status
    setNameLabel(obj)
  },
  validate: validateNamespace,
  // Updates keep the stored spec (see prepareForUpdate); finalize writes it, with these rules.
  validateUpdate: validateNamespaceFinalizeUpdate,
  validateStatusUpdate: validateNamespaceStatusUpdate,
  specChanged: (obj, old) => !deepEqual(obj.spec, old.spec),
  selectableFields: ['metadata.name', 'status.phase'],
  fields: (obj) => ({
    'metadata.name': obj.metadata.name ?? '',
    'status.phase': String((obj.status as { phase?: string } | undefined)?.phase ?? ''),
  }),
  table: {
    definitions: [NAME_COLUMN, { name: 'Status', type: 'string', format: '', description: 'The status of the namespace', priority: 0 }, AGE_COLUMN],
    cells: (obj, now) => [obj.metadata.name, (obj.status as { phase?: string } | undefined)?.phase ?? '', age(obj, now)],
  },
  storeHooks: (ctx) => ({ delete: (current, options, proceed) => deleteNamespace(ctx, current, options, proceed) }),
}

/**
 * The namespace registry's DELETE: the first one marks the namespace (deletionTimestamp,
 * phase Terminating, the propagation policy's finalizers) and answers it; the namespace
 * controller then empties it. Until spec.finalizers is empty a DELETE answers the namespace;
 * then the generic deletion runs.
 */
async function deleteNamespace(
  { lookup, options: registryOptions }: StoreHooksContext,
  current: KubeObject,
  options: KindDeleteOptions,
  proceed: () => Promise<KindDeleteResult>,
): Promise<KindDeleteResult> {
  const name = current.metadata.name!
  const store = lookup('', 'v1', 'namespaces')!
  if (!current.metadata.deletionTimestamp) {
    const marked = await store.rewrite(
      undefined,
      name,
      (obj) => {
        if (options.preconditions?.uid && obj.metadata.uid !== options.preconditions.uid) throw errors.conflict({ group: '', resource: 'namespaces' }, name)
        obj.metadata.deletionTimestamp ??= nowTimestamp()
        obj.status = { ...(isPlainObject(obj.status) ? obj.status : {}), phase: 'Terminating' }
        const finalizers = registryOptions.garbageCollector === true ? finalizersForPropagation(namespaces, obj, options) : undefined
        if (finalizers) {
          if (finalizers.length > 0) obj.metadata.finalizers = finalizers
          else delete obj.metadata.finalizers
        }
      },
      options.dryRun,
    )
    return { object: marked, deleted: false, updated: true }
  }
  const spec = isPlainObject(current.spec) ? current.spec : {}
  if (Array.isArray(spec.finalizers) && spec.finalizers.length > 0) return { object: current, deleted: false, updated: true }
  return proceed()
}

export const CORE_CLUSTER: KindTable = {
  '/v1/nodes': {
    // Unlike other kinds, a Node keeps the status it is created with (the kubelet registers with
    // its capacity and conditions: the reference's nodeStrategy.PrepareForCreate drops only
    // disabled fields); an update keeps the stored status, which only nodes/status writes.
    prepareForUpdate: (o, old) => {
      if (old.status === undefined) delete o.status
      else o.status = old.status
    },
    virtualSubresources: ['proxy'],
    validate: validateNode,
    validateUpdate: validateNodeUpdate,
    validateStatusUpdate: validateNodeUpdate,
    selectableFields: ['spec.unschedulable'],
    fields: (o) => ({ 'spec.unschedulable': String(obj(o.spec).unschedulable === true) }),
    table: {
      definitions: [NAME_COLUMN, col('Status', 'The status of the node'), col('Roles', 'The roles of the node'), AGE_COLUMN, col('Version', 'Kubelet Version reported by the node.')],
      cells: (o, now) => {
        const ready = arr(obj(o.status).conditions).map(obj).find((c) => c.type === 'Ready')
        const status = ready?.status === 'True' ? 'Ready' : ready ? 'NotReady' : 'Unknown'
        const roles = Object.keys(o.metadata.labels ?? {})
          .filter((k) => k.startsWith('node-role.kubernetes.io/'))
          .map((k) => k.slice('node-role.kubernetes.io/'.length))
        return [o.metadata.name, obj(o.spec).unschedulable === true ? `${status},SchedulingDisabled` : status, roles.join(',') || '<none>', age(o, now), str(obj(obj(o.status).nodeInfo).kubeletVersion)]
      },
    },
  },
  '/v1/componentstatuses': {
    table: {
      definitions: [NAME_COLUMN, col('Status', 'Status of the component conditions'), col('Message', 'Message of the component conditions'), col('Error', 'Error of the component conditions')],
      cells: (o) => {
        const healthy = arr(o.conditions).map(obj).find((c) => c.type === 'Healthy')
        const status = !healthy ? 'Unknown' : healthy.status === 'True' ? 'Healthy' : 'Unhealthy'
        return [o.metadata.name, status, str(healthy?.message), str(healthy?.error)]
      },
    },
  },
}
