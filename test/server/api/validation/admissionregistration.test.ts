/**
 * admissionregistration.k8s.io validation, table-driven: webhook configurations, validating
 * admission policies and their bindings. Expected texts are the reference's
 * (`pkg/apis/admissionregistration/validation/validation.go` and its `validation_test.go`;
 * `k8s.io/apiserver/pkg/util/webhook/validation.go` for client configurations; cel-go's
 * `undeclared reference` issue for an expression naming an unknown variable).
 */
import { type Case, type Json, kindTable, strategyOf, updateTable } from './groups-support.js'

const SUB =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const QUALIFIED =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
const FORM = '; desired format: https://host[/path]'
const undeclared = (name: string, expression: string, column = 1) =>
  `compilation failed: ERROR: <input>:1:${column}: undeclared reference to '${name}' (in container '')\n | ${expression}\n | ${'.'.repeat(column - 1)}^`

const webhook = (): Json => ({
  name: 'check.example.com',
  clientConfig: { service: { namespace: 'default', name: 'hook', path: '/validate' } },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
})

/** The rules both webhook kinds share (validateValidatingWebhook and validateMutatingWebhook are the same there). */
const WEBHOOK_CASES: Case[] = [
  ['a webhook name of two segments', (o) => (o.webhooks[0].name = 'check.example'), ['webhooks[0].name: Invalid value: "check.example": should be a domain with at least three segments separated by dots']],
  ['a webhook without a name', (o) => delete o.webhooks[0].name, ['webhooks[0].name: Required value']],
  ['a webhook name that is not a DNS subdomain', (o) => (o.webhooks[0].name = 'Check.example.com'), [`webhooks[0].name: Invalid value: "Check.example.com": ${SUB}`]],
  ['two webhooks of one name', (o) => o.webhooks.push(webhook()), ['webhooks[1].name: Duplicate value: "check.example.com"']],
  ['no sideEffects', (o) => delete o.webhooks[0].sideEffects, ['webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun']],
  ['sideEffects Some', (o) => (o.webhooks[0].sideEffects = 'Some'), ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"']],
  ['a timeout over 30 seconds', (o) => (o.webhooks[0].timeoutSeconds = 31), ['webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds']],
  ['a timeout of 0', (o) => (o.webhooks[0].timeoutSeconds = 0), ['webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds']],
  ['an unknown failurePolicy', (o) => (o.webhooks[0].failurePolicy = 'Maybe'), ['webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"']],
  ['an unknown matchPolicy', (o) => (o.webhooks[0].matchPolicy = 'Loose'), ['webhooks[0].matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"']],
  ['no admissionReviewVersions', (o) => delete o.webhooks[0].admissionReviewVersions, ['webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1']],
  ['only an unknown review version', (o) => (o.webhooks[0].admissionReviewVersions = ['v2']), ['webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1']],
  ['a review version twice', (o) => (o.webhooks[0].admissionReviewVersions = ['v1', 'v1']), ['webhooks[0].admissionReviewVersions[1]: Invalid value: "v1": duplicate version']],
  ['a review version that is not a DNS-1035 label', (o) => (o.webhooks[0].admissionReviewVersions = ['v1', 'V2']), [`webhooks[0].admissionReviewVersions[1]: Invalid value: "V2": ${DNS1035}`]],
  ['both a url and a service', (o) => (o.webhooks[0].clientConfig.url = 'https://hook.example.com'), ['webhooks[0].clientConfig: Required value: exactly one of url or service is required']],
  ['neither a url nor a service', (o) => (o.webhooks[0].clientConfig = {}), ['webhooks[0].clientConfig: Required value: exactly one of url or service is required']],
  ['an http url', (o) => (o.webhooks[0].clientConfig = { url: 'http://hook.example.com/check' }), [`webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme${FORM}`]],
  ['a url without scheme nor host', (o) => (o.webhooks[0].clientConfig = { url: 'hook.example.com/check' }), [
    `webhooks[0].clientConfig.url: Invalid value: "": 'https' is the only allowed URL scheme${FORM}`,
    `webhooks[0].clientConfig.url: Invalid value: "": host must be specified${FORM}`,
  ]],
  ['a url with user, query and fragment', (o) => (o.webhooks[0].clientConfig = { url: 'https://admin@hook.example.com/check?x=1#top' }), [
    'webhooks[0].clientConfig.url: Invalid value: "admin": user information is not permitted in the URL',
    'webhooks[0].clientConfig.url: Invalid value: "top": fragments are not permitted in the URL',
    'webhooks[0].clientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL',
  ]],
  ['a service without name and namespace', (o) => (o.webhooks[0].clientConfig.service = { path: '/validate' }), ['webhooks[0].clientConfig.service.name: Required value', 'webhooks[0].clientConfig.service.namespace: Required value']],
  ['a service port of 0', (o) => (o.webhooks[0].clientConfig.service.port = 0), ['webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive']],
  ['a service path without a leading slash', (o) => (o.webhooks[0].clientConfig.service.path = 'validate'), ["webhooks[0].clientConfig.service.path: Invalid value: \"validate\": must start with a '/'"]],
  ['a service path with an upper-case segment', (o) => (o.webhooks[0].clientConfig.service.path = '/hooks/Validate'), [`webhooks[0].clientConfig.service.path: Invalid value: "/hooks/Validate": segment[1]: ${SUB}`]],
  ['a service path with an empty segment', (o) => (o.webhooks[0].clientConfig.service.path = '/hooks//validate'), ['webhooks[0].clientConfig.service.path: Invalid value: "/hooks//validate": segment[1] may not be empty']],
  ['a rule without operations', (o) => (o.webhooks[0].rules[0].operations = []), ['webhooks[0].rules[0].operations: Required value']],
  ['a rule with * and another operation', (o) => (o.webhooks[0].rules[0].operations = ['*', 'CREATE']), ['webhooks[0].rules[0].operations: Invalid value: ["*","CREATE"]: if \'*\' is present, must not specify other operations']],
  ['an unknown operation', (o) => (o.webhooks[0].rules[0].operations = ['PATCH']), ['webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"']],
  ['a rule without API groups and versions', (o) => Object.assign(o.webhooks[0].rules[0], { apiGroups: [], apiVersions: [] }), ['webhooks[0].rules[0].apiGroups: Required value', 'webhooks[0].rules[0].apiVersions: Required value']],
  ['* with another API group', (o) => (o.webhooks[0].rules[0].apiGroups = ['*', 'apps']), ['webhooks[0].rules[0].apiGroups: Invalid value: ["*","apps"]: if \'*\' is present, must not specify other API groups']],
  ['*/* with another resource', (o) => (o.webhooks[0].rules[0].resources = ['*/*', 'pods']), ['webhooks[0].rules[0].resources: Invalid value: ["*/*","pods"]: if \'*/*\' is present, must not specify other resources']],
  ['pods/* and pods/status', (o) => (o.webhooks[0].rules[0].resources = ['pods/*', 'pods/status']), ["webhooks[0].rules[0].resources[1]: Invalid value: \"pods/status\": if 'pods/*' is present, must not specify pods/status"]],
  ['an empty resource', (o) => (o.webhooks[0].rules[0].resources = ['pods', '']), ['webhooks[0].rules[0].resources[1]: Required value']],
  ['an unknown scope', (o) => (o.webhooks[0].rules[0].scope = 'Global'), ['webhooks[0].rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"']],
  ['a namespace selector with a bad operator', (o) => (o.webhooks[0].namespaceSelector = { matchExpressions: [{ key: 'env', operator: 'Near' }] }), ['webhooks[0].namespaceSelector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator']],
  ['a match condition naming an unknown variable', (o) => (o.webhooks[0].matchConditions[0].expression = 'user == "x"'), [`webhooks[0].matchConditions[0].expression: Invalid value: "user == \\"x\\"": ${undeclared('user', 'user == "x"')}`]],
  ['a match condition that is not a bool', (o) => (o.webhooks[0].matchConditions[0].expression = "'yes'"), ['webhooks[0].matchConditions[0].expression: Invalid value: "\'yes\'": must evaluate to bool']],
  ['a match condition using params (no paramKind on webhooks)', (o) => (o.webhooks[0].matchConditions[0].expression = 'params.enabled'), [`webhooks[0].matchConditions[0].expression: Invalid value: "params.enabled": ${undeclared('params', 'params.enabled')}`]],
  ['a match condition without expression', (o) => (o.webhooks[0].matchConditions[0].expression = '  '), ['webhooks[0].matchConditions[0].expression: Required value']],
  ['a match condition name that is not a qualified name', (o) => (o.webhooks[0].matchConditions[0].name = 'not system'), [`webhooks[0].matchConditions[0].name: Invalid value: "not system": ${QUALIFIED}`]],
  ['two match conditions of one name', (o) => o.webhooks[0].matchConditions.push({ name: 'not-system', expression: 'true' }), ['webhooks[0].matchConditions[1].name: Duplicate value: "not-system"']],
  ['65 match conditions', (o) => (o.webhooks[0].matchConditions = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }))), ['webhooks[0].matchConditions: Too many: 65: must have at most 64 items']],
  ['a match condition using the authorizer', (o) => (o.webhooks[0].matchConditions[0].expression = "authorizer.group('apps').resource('deployments').check('create').allowed()"), []],
  ['a url client configuration', (o) => (o.webhooks[0].clientConfig = { url: 'https://hook.example.com:8443/check' }), []],
]

describe('validation/admissionregistration: ValidatingWebhookConfiguration', () => {
  const strategy = strategyOf('admissionregistration.k8s.io', 'validatingwebhookconfigurations')
  const config = (): Json => ({ metadata: { name: 'hooks' }, webhooks: [webhook()] })
  kindTable(strategy, config, [...WEBHOOK_CASES, ['a name that is not a DNS subdomain', (o) => (o.metadata.name = 'Hooks'), [`metadata.name: Invalid value: "Hooks": ${SUB}`]]], it)
  updateTable(strategy, config, [
    ['sideEffects may not become Some', (o) => (o.webhooks[0].sideEffects = 'Some'), ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"']],
    ['a new match condition is compiled', (o) => o.webhooks[0].matchConditions.push({ name: 'x', expression: 'nope' }), [`webhooks[0].matchConditions[1].expression: Invalid value: "nope": ${undeclared('nope', 'nope')}`]],
    ['the timeout may change', (o) => (o.webhooks[0].timeoutSeconds = 5), []],
  ], it)
})

describe('validation/admissionregistration: MutatingWebhookConfiguration', () => {
  const strategy = strategyOf('admissionregistration.k8s.io', 'mutatingwebhookconfigurations')
  const config = (): Json => ({ metadata: { name: 'hooks' }, webhooks: [webhook()] })
  kindTable(strategy, config, [
    ...WEBHOOK_CASES,
    ['an unknown reinvocationPolicy', (o) => (o.webhooks[0].reinvocationPolicy = 'Always'), ['webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"']],
    ['reinvocation IfNeeded', (o) => (o.webhooks[0].reinvocationPolicy = 'IfNeeded'), []],
  ], it)
  updateTable(strategy, config, [
    ['two webhooks of one name', (o) => o.webhooks.push(webhook()), ['webhooks[1].name: Duplicate value: "check.example.com"']],
    ['the rules may change', (o) => (o.webhooks[0].rules[0].operations = ['CREATE', 'UPDATE']), []],
  ], it)
})

describe('validation/admissionregistration: ValidatingAdmissionPolicy', () => {
  const strategy = strategyOf('admissionregistration.k8s.io', 'validatingadmissionpolicies')
  const policy = (): Json => ({
    metadata: { name: 'replicas.example.com' },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] },
      validations: [{ expression: 'object.spec.replicas <= 5', message: 'at most 5 replicas' }],
    },
  })
  kindTable(strategy, policy, [
    ['an unknown failurePolicy', (o) => (o.spec.failurePolicy = 'Maybe'), ['spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"']],
    ['no matchConstraints', (o) => delete o.spec.matchConstraints, ['spec.matchConstraints: Required value']],
    ['matchConstraints without resource rules', (o) => (o.spec.matchConstraints = {}), ['spec.matchConstraints.resourceRules: Required value']],
    ['an unknown match policy', (o) => (o.spec.matchConstraints.matchPolicy = 'Loose'), ['spec.matchConstraints.matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"']],
    ['a resource name with a slash', (o) => (o.spec.matchConstraints.resourceRules[0].resourceNames = ['a/b']), ["spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: \"a/b\": may not contain '/'"]],
    ['a resource name twice', (o) => (o.spec.matchConstraints.excludeResourceRules = [{ ...o.spec.matchConstraints.resourceRules[0], resourceNames: ['web', 'web'] }]), ['spec.matchConstraints.excludeResourceRules[0].resourceNames[1]: Duplicate value: "web"']],
    ['neither validations nor audit annotations', (o) => delete o.spec.validations, [
      'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
      'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
    ]],
    ['a validation without expression', (o) => (o.spec.validations[0].expression = ' '), ['spec.validations[0].expression: Required value: expression is not specified']],
    ['a validation naming an unknown variable', (o) => (o.spec.validations[0].expression = 'replicas <= 5'), [`spec.validations[0].expression: Invalid value: "replicas <= 5": ${undeclared('replicas', 'replicas <= 5')}`]],
    ['params without a paramKind', (o) => (o.spec.validations[0].expression = 'object.spec.replicas <= params.max'), [
      `spec.validations[0].expression: Invalid value: "object.spec.replicas <= params.max": ${undeclared('params', 'object.spec.replicas <= params.max', 25)}`,
    ]],
    ['a message expression that is not a string', (o) => (o.spec.validations[0].messageExpression = '1'), ['spec.validations[0].messageExpression: Invalid value: "1": must evaluate to string']],
    ['a message expression of blanks', (o) => (o.spec.validations[0].messageExpression = '  '), ['spec.validations[0].messageExpression: Invalid value: "  ": must be non-empty if specified']],
    ['a message with a line break', (o) => (o.spec.validations[0].message = 'at most\n5'), ['spec.validations[0].message: Invalid value: "at most\\n5": message must not contain line breaks']],
    ['a message of blanks', (o) => (o.spec.validations[0].message = '   '), ['spec.validations[0].message: Invalid value: "   ": message must be non-empty if specified']],
    ['an unknown reason', (o) => (o.spec.validations[0].reason = 'Conflict'), ['spec.validations[0].reason: Unsupported value: "Conflict": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"']],
    ['a paramKind without kind', (o) => (o.spec.paramKind = { apiVersion: 'v1' }), ['spec.paramKind.kind: Required value']],
    ['a paramKind apiVersion of three parts', (o) => (o.spec.paramKind = { apiVersion: 'a/b/c', kind: 'ConfigMap' }), ['spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c']],
    ['a paramKind without a version', (o) => (o.spec.paramKind = { apiVersion: 'example.com/', kind: 'Limit' }), ['spec.paramKind.apiVersion: Invalid value: "example.com/": version must be specified']],
    ['a paramKind kind with an underscore', (o) => (o.spec.paramKind = { apiVersion: 'v1', kind: 'Config_Map' }), [`spec.paramKind.kind: Invalid value: "Config_Map": may have mixed case, but should otherwise match: ${DNS1035}`]],
    ['a variable named after a reserved word', (o) => (o.spec.variables = [{ name: 'in', expression: 'object.spec.replicas' }]), ['spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier']],
    ['a variable without expression', (o) => (o.spec.variables = [{ name: 'replicas', expression: '' }]), ['spec.variables[0].expression: Required value: expression is not specified']],
    ['an audit annotation key that is not a qualified name', (o) => (o.spec.auditAnnotations = [{ key: 'bad key', valueExpression: "'x'" }]), [`spec.auditAnnotations[0].key: Invalid value: "replicas.example.com/bad key": ${QUALIFIED}`]],
    ['an audit annotation key twice', (o) => (o.spec.auditAnnotations = [{ key: 'a', valueExpression: "'x'" }, { key: 'a', valueExpression: "'y'" }]), ['spec.auditAnnotations[1].key: Duplicate value: "a"']],
    ['an audit annotation without value expression', (o) => (o.spec.auditAnnotations = [{ key: 'a', valueExpression: '' }]), ['spec.auditAnnotations[0].valueExpression: Required value: valueExpression is not specified']],
    ['params with a paramKind', (o) => Object.assign(o.spec, { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: "object.spec.replicas <= int(params.data.max)" }] }), []],
    ['an authorizer check and a message expression', (o) => (o.spec.validations = [{ expression: "authorizer.group('apps').resource('deployments').check('scale').allowed()", messageExpression: "'denied: ' + object.metadata.name" }]), []],
  ], it)
  updateTable(strategy, policy, [
    ['a validation is compiled on update', (o) => (o.spec.validations[0].expression = 'nope'), [`spec.validations[0].expression: Invalid value: "nope": ${undeclared('nope', 'nope')}`]],
    ['the failure policy may change', (o) => (o.spec.failurePolicy = 'Ignore'), []],
  ], it)
  updateTable(strategy, policy, [
    ['a type-checking warning without text', (o) => (o.status = { typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: '' }] } }), ['status.typeChecking.expressionWarnings[0].warning: Required value']],
    ['a type-checking warning without field', (o) => (o.status = { typeChecking: { expressionWarnings: [{ fieldRef: '', warning: 'w' }] } }), ['status.typeChecking.expressionWarnings[0].fieldRef: Required value']],
    ['a status with a warning', (o) => (o.status = { observedGeneration: 1, typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: 'w' }] } }), []],
  ], it, 'status')
})

describe('validation/admissionregistration: ValidatingAdmissionPolicyBinding', () => {
  const strategy = strategyOf('admissionregistration.k8s.io', 'validatingadmissionpolicybindings')
  const binding = (): Json => ({ metadata: { name: 'replicas-binding' }, spec: { policyName: 'replicas.example.com', validationActions: ['Deny'] } })
  const DENY_AND_WARN = 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'
  kindTable(strategy, binding, [
    ['no policy name', (o) => delete o.spec.policyName, ['spec.policyName: Required value']],
    ['a policy name that is not a DNS subdomain', (o) => (o.spec.policyName = 'Replicas'), [`spec.policyName: Invalid value: "Replicas": ${SUB}`]],
    ['no validation actions', (o) => delete o.spec.validationActions, ['spec.validationActions: Required value: at least one validation action is required']],
    ['Deny and Warn', (o) => (o.spec.validationActions = ['Deny', 'Warn']), [`spec.validationActions: Invalid value: ["Deny","Warn"]: ${DENY_AND_WARN}`]],
    ['an unknown action', (o) => (o.spec.validationActions = ['Block']), ['spec.validationActions[0]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"']],
    ['an action twice', (o) => (o.spec.validationActions = ['Audit', 'Audit']), ['spec.validationActions[1]: Duplicate value: "Audit"']],
    ['a paramRef without name or selector', (o) => (o.spec.paramRef = {}), ['spec.paramRef: Required value: one of name or selector must be specified']],
    ['a paramRef with name and selector', (o) => (o.spec.paramRef = { name: 'limits', selector: {} }), [
      'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
    ]],
    ['a paramRef name with a slash', (o) => (o.spec.paramRef = { name: 'a/b' }), ["spec.paramRef.name: Invalid value: \"a/b\": may not contain '/'"]],
    ['an unknown parameterNotFoundAction', (o) => (o.spec.paramRef = { name: 'limits', parameterNotFoundAction: 'Ignore' }), ['spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"']],
    ['match resources with an unknown match policy (the reference spells matchResouces)', (o) => (o.spec.matchResources = { matchPolicy: 'Loose' }), ['spec.matchResouces.matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"']],
    ['a match resource rule without operations', (o) => (o.spec.matchResources = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }] }), ['spec.matchResouces.resourceRules[0].operations: Required value']],
    ['a paramRef by selector, Audit and Warn', (o) => Object.assign(o.spec, { paramRef: { selector: { matchLabels: { env: 'prod' } } }, validationActions: ['Audit', 'Warn'] }), []],
  ], it)
  updateTable(strategy, binding, [
    ['the actions are validated on update', (o) => (o.spec.validationActions = []), ['spec.validationActions: Required value: at least one validation action is required']],
    ['the policy may change', (o) => (o.spec.policyName = 'other.example.com'), []],
  ], it)
})
