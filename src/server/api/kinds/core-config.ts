/**
 * The core group's configuration and identity kinds: ConfigMaps (a strategy of their own, not
 * generated: DNS-1123 subdomain names, config-key validation, DATA column), Secrets (stringData
 * folded into data), ServiceAccounts (their `token` subresource is a handler of its own),
 * LimitRanges and ResourceQuotas.
 */
import { deepEqual } from '../../../core/patch/index.js'
import { isPlainObject, type KubeObject } from '../registry/object.js'
import type { Strategy } from '../registry/strategy.js'
import { nameIsDNSSubdomain } from '../validation/names.js'
import {
  validateConfigMap,
  validateConfigMapUpdate,
  validateLimitRange,
  validateResourceQuota,
  validateResourceQuotaStatusUpdate,
  validateResourceQuotaUpdate,
  validateSecret,
  validateSecretUpdate,
} from '../validation/core.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { arr, col, obj, str } from './values.js'

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

/** The reference's secrets fold stringData into data (base64) on write. */
function foldStringData(o: KubeObject): void {
  if (!isPlainObject(o.stringData)) return
  const data = obj(o.data)
  for (const [k, v] of Object.entries(o.stringData)) data[k] = Buffer.from(str(v)).toString('base64')
  o.data = data
  delete o.stringData
}

export const CORE_CONFIG: KindTable = {
  '/v1/secrets': {
    defaults(o) {
      o.type ??= 'Opaque'
    },
    validate: validateSecret,
    validateUpdate: validateSecretUpdate,
    selectableFields: ['type'],
    fields: (o) => ({ type: str(o.type) }),
    table: {
      definitions: [NAME_COLUMN, col('Type', 'The type of the secret'), col('Data', 'The number of data entries in the secret', 0, 'integer'), AGE_COLUMN],
      cells: (o, now) => [o.metadata.name, str(o.type), Object.keys(obj(o.data)).length, age(o, now)],
    },
    prepareForCreate: (o) => foldStringData(o),
    prepareForUpdate: (o) => foldStringData(o),
  },
  '/v1/serviceaccounts': {
    virtualSubresources: ['token'],
    table: {
      definitions: [NAME_COLUMN, col('Secrets', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.', 0, 'integer'), AGE_COLUMN],
      cells: (o, now) => [o.metadata.name, arr(o.secrets).length, age(o, now)],
    },
  },
  '/v1/limitranges': { validate: validateLimitRange, createOnUpdate: true },
  '/v1/resourcequotas': {
    statusOwnedBySubresource: true,
    validate: validateResourceQuota,
    validateUpdate: validateResourceQuotaUpdate,
    validateStatusUpdate: validateResourceQuotaStatusUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('Request', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
        col('Limit', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
        AGE_COLUMN,
      ],
      cells: (o, now) => {
        const status = obj(o.status)
        const hard = obj(status.hard)
        const used = obj(status.used)
        const requests: string[] = []
        const limits: string[] = []
        for (const r of Object.keys(hard).sort()) {
          const text = `${r}: ${str(used[r], '0')}/${str(hard[r])}`
          if (r.split('.').length > 1 && r.split('.')[0] === 'limits') limits.push(text)
          else requests.push(text)
        }
        return [o.metadata.name, requests.join(', '), limits.join(', '), age(o, now)]
      },
    },
  },
}
