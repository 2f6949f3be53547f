/**
 * admissionregistration.k8s.io: the webhook configurations and the validating and mutating
 * admission policies with their bindings, served as stored objects: their defaulting
 * (admissionregistration/v1 defaults.go), validation and the reference printer's columns.
 */
import type { KubeObject } from '../registry/object.js'
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
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindOverrides, KindTable } from './kind.js'
import { arr, col, obj, str } from './values.js'

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

export const ADMISSION_REGISTRATION: KindTable = {
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
    statusOwnedBySubresource: true,
    generation: true,
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
    generation: true,
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
}
