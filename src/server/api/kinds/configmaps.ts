/** core/v1 ConfigMap: namespaced, DNS-1123 subdomain names, config-key validation, DATA column. */
import { deepEqual } from '../../../core/patch/index.js'
import { isPlainObject, type KubeObject } from '../registry/object.js'
import type { Strategy } from '../registry/strategy.js'
import { nameIsDNSSubdomain } from '../validation/names.js'
import { validateConfigMap, validateConfigMapUpdate } from '../validation/core.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'

function dataCount(obj: KubeObject): number {
  const n = (m: unknown) => (isPlainObject(m) ? Object.keys(m).length : 0)
  return n(obj.data) + n(obj.binaryData)
}

export const configmaps: Strategy = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  resource: 'configmaps',
  singular: 'configmap',
  shortNames: ['cm'],
  namespaced: true,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  // The reference's strategy keeps no generation for this kind.
  generation: false,
  validateName: nameIsDNSSubdomain,
  prepareForCreate: () => {},
  prepareForUpdate: () => {},
  validate: validateConfigMap,
  validateUpdate: validateConfigMapUpdate,
  specChanged: (obj, old) => !deepEqual(obj.data, old.data) || !deepEqual(obj.binaryData, old.binaryData) || !deepEqual(obj.immutable, old.immutable),
  selectableFields: ['metadata.name', 'metadata.namespace'],
  fields: (obj) => ({ 'metadata.name': obj.metadata.name ?? '', 'metadata.namespace': obj.metadata.namespace ?? '' }),
  table: {
    definitions: [
      NAME_COLUMN,
      { name: 'Data', type: 'string', format: '', description: 'Data contains the configuration data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.', priority: 0 },
      AGE_COLUMN,
    ],
    cells: (obj, now) => [obj.metadata.name, dataCount(obj), age(obj, now)],
  },
}
