/** core/v1 Namespace: cluster-scoped, DNS-1123 label names, phase Active, the name label. */
import { deepEqual } from '../../../core/patch/index.js'
import type { KubeObject } from '../registry/object.js'
import type { Strategy } from '../registry/strategy.js'
import { nameIsDNSLabel } from '../validation/names.js'
import { validateNamespace, validateNamespaceFinalizeUpdate, validateNamespaceStatusUpdate } from '../validation/core.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'

const IMMORTAL = new Set(['default', 'kube-system', 'kube-public'])
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
  deleteForbidden: (name) => (IMMORTAL.has(name) ? 'this namespace may not be deleted' : undefined),
}
