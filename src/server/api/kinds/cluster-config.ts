/**
 * The cluster's configuration kinds served as stored objects: flowcontrol.apiserver.k8s.io
 * FlowSchemas and PriorityLevelConfigurations, admissionregistration.k8s.io webhook
 * configurations and admission policies, apiregistration.k8s.io APIServices and the
 * resource.k8s.io (dynamic resource allocation) kinds. Their defaulting (each group's
 * defaults.go) and the reference printer's columns; no behaviour beyond serving them.
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
import { validateAPIService, validateAPIServiceStatusUpdate } from '../validation/apiregistration.js'
import { pathSegmentName } from '../validation/names.js'
import { validateFlowSchema, validateFlowSchemaStatusUpdate, validatePriorityLevelConfiguration, validatePriorityLevelConfigurationStatusUpdate } from '../validation/flowcontrol.js'
import {
  validateMutatingWebhookConfiguration,
  validateMutatingWebhookConfigurationUpdate,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicyStatusUpdate,
  validateValidatingAdmissionPolicyUpdate,
  validateValidatingWebhookConfiguration,
  validateValidatingWebhookConfigurationUpdate,
} from '../validation/admissionregistration.js'
import { validateMutatingAdmissionPolicy, validateMutatingAdmissionPolicyBinding, validateMutatingAdmissionPolicyUpdate } from '../validation/admissionregistration-mutating.js'
import { AGE_COLUMN, DEFAULT_COLUMNS, NAME_COLUMN, age } from '../table.js'
import type { KubeObject } from '../registry/object.js'
import type { KindOverrides } from './builtin.js'
import { arr, col, num, obj, str } from './values.js'

const paramKind = (spec: Record<string, unknown>) => {
  const pk = spec.paramKind
  return pk === undefined || pk === null ? '<unset>' : `${str(obj(pk).apiVersion)}/${str(obj(pk).kind)}`
}

const paramRef = (spec: Record<string, unknown>) => {
  const pr = spec.paramRef
  if (pr === undefined || pr === null) return '<unset>'
  const ref = obj(pr)
  if (str(ref.name)) return ref.namespace ? `${str(ref.namespace)}/${str(ref.name)}` : `*/${str(ref.name)}`
  if (ref.selector !== undefined) {
    return Object.entries(obj(obj(ref.selector).matchLabels)).map(([k, v]) => `${k}=${str(v)}`).join(',')
  }
  return '<unset>'
}

function webhookDefaults(o: Record<string, unknown>, mutating: boolean): void {
  for (const w of arr(o.webhooks)) {
    const hook = obj(w)
    hook.failurePolicy ??= 'Fail'
    hook.matchPolicy ??= 'Equivalent'
    hook.namespaceSelector ??= {}
    hook.objectSelector ??= {}
    hook.timeoutSeconds ??= 10
    if (mutating) hook.reinvocationPolicy ??= 'Never'
    for (const r of arr(hook.rules)) obj(r).scope ??= '*'
    const service = obj(obj(hook.clientConfig).service)
    if (hook.clientConfig !== undefined && obj(hook.clientConfig).service !== undefined) service.port ??= 443
  }
}

/** SetDefaults_MatchResources (admissionregistration/v1 defaults.go), with the rules' scope. */
function matchResourcesDefaults(value: unknown): void {
  if (value === undefined || value === null) return
  const mr = obj(value)
  mr.matchPolicy ??= 'Equivalent'
  mr.namespaceSelector ??= {}
  mr.objectSelector ??= {}
  for (const r of [...arr(mr.resourceRules), ...arr(mr.excludeResourceRules)]) obj(r).scope ??= '*'
}

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

const webhookTable = {
  definitions: [NAME_COLUMN, col('Webhooks', 'Webhooks indicates the number of webhooks registered in this configuration', 0, 'integer'), AGE_COLUMN],
  cells: (o: Parameters<NonNullable<KindOverrides['table']>['cells']>[0], now: number) => [o.metadata.name, arr(o.webhooks).length, age(o, now)],
}

/** The defaults of both admission policy binding kinds: their match resources, and SetDefaults_ParamRef. */
function bindingDefaults(o: KubeObject): void {
  const spec = obj(o.spec)
  matchResourcesDefaults(spec.matchResources)
  if (spec.paramRef !== undefined && spec.paramRef !== null) obj(spec.paramRef).parameterNotFoundAction ??= 'Deny'
  o.spec = spec
}

const bindingTable = {
  definitions: [
    NAME_COLUMN,
    col('PolicyName', 'PolicyName indicates the policy definition which the policy binding binded to'),
    col('ParamRef', 'ParamRef indicates the param resource which sets the configration param'),
    AGE_COLUMN,
  ],
  cells: (o: Parameters<NonNullable<KindOverrides['table']>['cells']>[0], now: number) => [o.metadata.name, str(obj(o.spec).policyName), paramRef(obj(o.spec)), age(o, now)],
}

export const CLUSTER_CONFIG: Record<string, KindOverrides> = {
  'flowcontrol.apiserver.k8s.io/v1/flowschemas': {
    defaults(o) {
      const spec = obj(o.spec)
      // An int32 without pointer: zero is unset (SetDefaults_FlowSchemaSpec).
      if (!spec.matchingPrecedence) spec.matchingPrecedence = 1000
      o.spec = spec
    },
    prepareForCreate(o) {
      o.status = {}
    },
    validate: validateFlowSchema,
    validateStatusUpdate: validateFlowSchemaStatusUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('PriorityLevel', '`name` is the name of the priority level configuration being referenced Required.'),
        col('MatchingPrecedence', '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request.'),
        col('DistinguisherMethod', '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema.'),
        AGE_COLUMN,
        col('MissingPL', 'references a broken or non-existent PriorityLevelConfiguration'),
      ],
      cells: (o, now) => {
        const spec = obj(o.spec)
        const dangling = arr(obj(o.status).conditions).map(obj).find((c) => c.type === 'Dangling')
        return [o.metadata.name, str(obj(spec.priorityLevelConfiguration).name), num(spec.matchingPrecedence), spec.distinguisherMethod ? str(obj(spec.distinguisherMethod).type) : '<none>', age(o, now), dangling ? str(dangling.status) : '?']
      },
      // FlowSchemaSequence: by matching precedence, then name.
      order: (a, b) => num(obj(a.spec).matchingPrecedence) - num(obj(b.spec).matchingPrecedence) || str(a.metadata.name).localeCompare(str(b.metadata.name)),
    },
  },
  'flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations': {
    defaults(o) {
      const spec = obj(o.spec)
      if (spec.type === 'Limited' || spec.limited !== undefined) {
        const limited = obj(spec.limited)
        limited.nominalConcurrencyShares ??= 30
        limited.lendablePercent ??= 0
        const response = obj(limited.limitResponse)
        if (response.type === 'Queue' || response.queuing !== undefined) {
          const queuing = obj(response.queuing)
          // int32 fields without pointers: zero is unset (SetDefaults_QueuingConfiguration).
          if (!queuing.queues) queuing.queues = 64
          if (!queuing.handSize) queuing.handSize = 8
          if (!queuing.queueLengthLimit) queuing.queueLengthLimit = 50
          response.queuing = queuing
        }
        limited.limitResponse = response
        spec.limited = limited
      }
      if (spec.type === 'Exempt' || spec.exempt !== undefined) {
        const exempt = obj(spec.exempt)
        exempt.nominalConcurrencyShares ??= 0
        exempt.lendablePercent ??= 0
        spec.exempt = exempt
      }
      o.spec = spec
    },
    prepareForCreate(o) {
      o.status = {}
    },
    validate: validatePriorityLevelConfiguration,
    validateStatusUpdate: validatePriorityLevelConfigurationStatusUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('Type', '`type` indicates whether this priority level is subject to limitation on request execution.'),
        col('NominalConcurrencyShares', '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.'),
        col('Queues', '`queues` is the number of queues for this priority level.'),
        col('HandSize', '`handSize` is a small positive number that configures the shuffle sharding of requests into queues.'),
        col('QueueLengthLimit', '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time.'),
        AGE_COLUMN,
      ],
      cells: (o, now) => {
        const spec = obj(o.spec)
        const limited = spec.limited === undefined ? undefined : obj(spec.limited)
        const queuing = limited ? obj(limited.limitResponse).queuing : undefined
        const q = queuing === undefined ? undefined : obj(queuing)
        return [o.metadata.name, str(spec.type), limited ? num(limited.nominalConcurrencyShares) : '<none>', q ? num(q.queues) : '<none>', q ? num(q.handSize) : '<none>', q ? num(q.queueLengthLimit) : '<none>', age(o, now)]
      },
    },
  },
  'admissionregistration.k8s.io/v1/mutatingwebhookconfigurations': {
    defaults: (o) => webhookDefaults(o, true),
    validate: validateMutatingWebhookConfiguration,
    validateUpdate: validateMutatingWebhookConfigurationUpdate,
    table: webhookTable,
  },
  'admissionregistration.k8s.io/v1/validatingwebhookconfigurations': {
    defaults: (o) => webhookDefaults(o, false),
    validate: validateValidatingWebhookConfiguration,
    validateUpdate: validateValidatingWebhookConfigurationUpdate,
    table: webhookTable,
  },
  'admissionregistration.k8s.io/v1/validatingadmissionpolicies': {
    defaults(o) {
      const spec = obj(o.spec)
      spec.failurePolicy ??= 'Fail'
      matchResourcesDefaults(spec.matchConstraints)
      o.spec = spec
    },
    prepareForCreate(o) {
      o.status = {}
    },
    validate: validateValidatingAdmissionPolicy,
    validateUpdate: validateValidatingAdmissionPolicyUpdate,
    validateStatusUpdate: validateValidatingAdmissionPolicyStatusUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('Validations', 'Validations indicates the number of validation rules defined in this configuration', 0, 'integer'),
        col('ParamKind', 'ParamKind specifies the kind of resources used to parameterize this policy'),
        AGE_COLUMN,
      ],
      cells: (o, now) => [o.metadata.name, arr(obj(o.spec).validations).length, paramKind(obj(o.spec)), age(o, now)],
    },
  },
  'admissionregistration.k8s.io/v1/validatingadmissionpolicybindings': {
    defaults: bindingDefaults,
    validate: validateValidatingAdmissionPolicyBinding,
    table: bindingTable,
  },
  'admissionregistration.k8s.io/v1/mutatingadmissionpolicies': {
    defaults(o) {
      // SetDefaults_MutatingAdmissionPolicySpec: failurePolicy Fail (no default reinvocationPolicy).
      const spec = obj(o.spec)
      spec.failurePolicy ??= 'Fail'
      matchResourcesDefaults(spec.matchConstraints)
      o.spec = spec
    },
    validate: validateMutatingAdmissionPolicy,
    validateUpdate: validateMutatingAdmissionPolicyUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('Mutations', 'Mutation indicates the number of mutations rules defined in this configuration', 0, 'integer'),
        col('ParamKind', 'ParamKind specifies the kind of resources used to parameterize this policy'),
        AGE_COLUMN,
      ],
      cells: (o, now) => [o.metadata.name, arr(obj(o.spec).mutations).length, paramKind(obj(o.spec)), age(o, now)],
    },
  },
  'admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings': {
    defaults: bindingDefaults,
    validate: validateMutatingAdmissionPolicyBinding,
    table: bindingTable,
  },
  'apiregistration.k8s.io/v1/apiservices': {
    unconditionalUpdate: false,
    defaults(o) {
      // SetDefaults_ServiceReference.
      const service = obj(o.spec).service
      if (service !== undefined && service !== null) obj(service).port ??= 443
    },
    validateName: pathSegmentName,
    validate: validateAPIService,
    validateStatusUpdate: validateAPIServiceStatusUpdate,
    prepareForCreate(o) {
      o.status = { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: o.metadata.creationTimestamp, reason: 'Local', message: 'Local APIServices are always available' }] }
    },
    table: {
      definitions: [NAME_COLUMN, col('Service', 'The reference to the service that hosts this API endpoint.'), col('Available', 'Whether this service is available.'), AGE_COLUMN],
      cells: (o, now) => {
        const service = obj(obj(o.spec).service)
        const available = arr(obj(o.status).conditions).map(obj).find((c) => c.type === 'Available')
        const state = !available ? 'Unknown' : available.status === 'True' ? 'True' : `${str(available.status)} (${str(available.reason)})`
        return [o.metadata.name, obj(o.spec).service ? `${str(service.namespace)}/${str(service.name)}` : 'Local', state, age(o, now)]
      },
    },
  },
  'resource.k8s.io/v1/resourceclaims': {
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
  'resource.k8s.io/v1/deviceclasses': { validate: validateDeviceClass, table: DEFAULT_COLUMNS },
  'resource.k8s.io/v1/resourceclaimtemplates': {
    defaults: (o) => deviceClaimDefaults(obj(obj(o.spec).spec).devices),
    validate: validateResourceClaimTemplate,
    validateUpdate: validateResourceClaimTemplateUpdate,
    table: DEFAULT_COLUMNS,
  },
  'resource.k8s.io/v1/resourceslices': {
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
