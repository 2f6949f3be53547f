/**
 * resource.k8s.io (dynamic resource allocation): ResourceClaims and their templates,
 * DeviceClasses, ResourceSlices and DeviceTaintRules, with the v1 defaults (defaults.go),
 * validation (../validation/resource.ts) and the reference printer's columns.
 */
import {
  validateDeviceClass,
  validateDeviceTaintRule,
  validateDeviceTaintRuleUpdate,
  validateResourceClaim,
  validateResourceClaimStatusUpdate,
  validateResourceClaimTemplate,
  validateResourceClaimTemplateUpdate,
  validateResourceClaimUpdate,
  validateResourceSlice,
  validateResourceSliceUpdate,
} from '../validation/resource.js'
import { AGE_COLUMN, DEFAULT_COLUMNS, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { arr, col, obj, str } from './values.js'

/**
 * resource.k8s.io/v1 defaults (SetDefaults_ExactDeviceRequest, SetDefaults_DeviceSubRequest,
 * SetDefaults_DeviceToleration): ExactCount of one device, tolerations with operator Equal.
 */
function deviceClaimDefaults(devices: unknown): void {
  const exact = (r: Record<string, unknown>) => {
    r.allocationMode ||= 'ExactCount'
    if (r.allocationMode === 'ExactCount' && !r.count) r.count = 1
    for (const t of arr(r.tolerations)) obj(t).operator ||= 'Equal'
  }
  for (const request of arr(obj(devices).requests)) {
    const r = obj(request)
    if (r.exactly !== undefined && r.exactly !== null) exact(obj(r.exactly))
    // resource.k8s.io/v1beta1 keeps the exact request's fields on the request (SetDefaults_DeviceRequest).
    else if (typeof r.deviceClassName === 'string' && arr(r.firstAvailable).length === 0) exact(r)
    for (const sub of arr(r.firstAvailable)) exact(obj(sub))
  }
}

export const RESOURCE: KindTable = {
  'resource.k8s.io/v1/resourceclaims': {
    statusOwnedBySubresource: true,
    defaults: (o) => deviceClaimDefaults(obj(o.spec).devices),
    prepareForCreate(o) {
      o.status = {}
    },
    validate: validateResourceClaim,
    validateUpdate: validateResourceClaimUpdate,
    validateStatusUpdate: validateResourceClaimStatusUpdate,
    table: {
      definitions: [NAME_COLUMN, col('State', 'A summary of the current state (allocated, pending, reserved, etc.).'), AGE_COLUMN],
      cells: (o, now) => {
        const status = obj(o.status)
        const states: string[] = []
        if (o.metadata.deletionTimestamp) states.push('deleted')
        if (status.allocation === undefined || status.allocation === null) {
          if (!o.metadata.deletionTimestamp) states.push('pending')
        } else {
          states.push('allocated')
          if (arr(status.reservedFor).length > 0) states.push('reserved')
        }
        return [o.metadata.name, states.join(','), age(o, now)]
      },
    },
  },
  // No GA version yet: the beta and alpha versions share the rules (their shapes agree on them).
  'resource.k8s.io/v1beta2/devicetaintrules': { validate: validateDeviceTaintRule, validateUpdate: validateDeviceTaintRuleUpdate },
  'resource.k8s.io/v1alpha3/devicetaintrules': { validate: validateDeviceTaintRule, validateUpdate: validateDeviceTaintRuleUpdate },
  'resource.k8s.io/v1/deviceclasses': { generation: true, validate: validateDeviceClass, table: DEFAULT_COLUMNS },
  'resource.k8s.io/v1/resourceclaimtemplates': {
    defaults: (o) => deviceClaimDefaults(obj(obj(o.spec).spec).devices),
    validate: validateResourceClaimTemplate,
    validateUpdate: validateResourceClaimTemplateUpdate,
    table: DEFAULT_COLUMNS,
  },
  'resource.k8s.io/v1/resourceslices': {
    generation: true,
    validate: validateResourceSlice,
    validateUpdate: validateResourceSliceUpdate,
    selectableFields: ['spec.nodeName', 'spec.driver'],
    fields: (o) => ({ 'spec.nodeName': str(obj(o.spec).nodeName), 'spec.driver': str(obj(o.spec).driver) }),
    table: {
      definitions: [
        NAME_COLUMN,
        col('Node', 'NodeName identifies the node which provides the resources in this pool.'),
        col('Driver', 'Driver identifies the DRA driver providing the capacity information.'),
        col('Pool', 'Name is used to identify the pool.'),
        AGE_COLUMN,
      ],
      cells: (o, now) => {
        const spec = obj(o.spec)
        return [o.metadata.name, str(spec.nodeName), str(spec.driver), str(obj(spec.pool).name), age(o, now)]
      },
    },
  },
}
