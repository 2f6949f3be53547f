/**
 * MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding validation (admissionregistration
 * v1beta1), table-driven. Expected texts are the reference's:
 * `pkg/apis/admissionregistration/validation/validation.go` (validateMutatingAdmissionPolicySpec,
 * validateMutation, validateMutatingAdmissionPolicyBindingSpec, supportedMutatingOperations)
 * and the cases of its `validation_test.go` (TestValidateMutatingAdmissionPolicy,
 * TestValidateMutatingAdmissionPolicyBinding); cel-go's `undeclared reference` and `undefined
 * field` issues for the expressions.
 */
import assert from 'node:assert/strict'
import { type Json, kindTable, strategyOf, updateTable } from './groups-support.js'

const GROUP = 'admissionregistration.k8s.io'
const SUB =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const undeclared = (name: string, expression: string, column = 1) =>
  `compilation failed: ERROR: <input>:1:${column}: undeclared reference to '${name}' (in container '')\n | ${expression}\n | ${'.'.repeat(column - 1)}^`
const MUTATING_OPS = 'supported values: "*", "CONNECT", "CREATE", "UPDATE"'

describe('validation/admissionregistration: MutatingAdmissionPolicy', () => {
  const strategy = strategyOf(GROUP, 'mutatingadmissionpolicies', 'v1beta1')
  const policy = (): Json => ({
    metadata: { name: 'sidecar.example.com' },
    spec: {
      reinvocationPolicy: 'Never',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"injected": "true"}}}' } }],
    },
  })
  kindTable(strategy, policy, [
    ['an empty spec', (o) => (o.spec = {}), [
      'spec.matchConstraints: Required value',
      'spec.mutations: Required value: mutations must contain at least one item',
      'spec.reinvocationPolicy: Required value',
    ]],
    ['an unknown failurePolicy', (o) => (o.spec.failurePolicy = 'other'), ['spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"']],
    ['an unknown reinvocationPolicy', (o) => (o.spec.reinvocationPolicy = 'other'), ['spec.reinvocationPolicy: Unsupported value: "other": supported values: "Never", "IfNeeded"']],
    ['an unknown patchType', (o) => (o.spec.mutations[0].patchType = 'other'), ['spec.mutations[0].patchType: Unsupported value: "other": supported values: "ApplyConfiguration", "JSONPatch"']],
    ['a mutation without patchType', (o) => delete o.spec.mutations[0].patchType, ['spec.mutations[0].patchType: Required value']],
    ['JSONPatch with an apply configuration', (o) => (o.spec.mutations[0].patchType = 'JSONPatch'), [
      'spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch',
      'spec.mutations[0].applyConfiguration: Invalid value: "{applyConfiguration}": must not be specified when patchType is JSONPatch',
    ]],
    ['ApplyConfiguration with a JSON patch', (o) => (o.spec.mutations = [{ patchType: 'ApplyConfiguration', jsonPatch: { expression: '[]' } }]), [
      'spec.mutations[0].applyConfiguration: Required value: must be specified when patchType is ApplyConfiguration',
      'spec.mutations[0].jsonPatch: Invalid value: "{jsonPatch}": must not be specified when patchType is ApplyConfiguration',
    ]],
    ['a blank JSON patch expression', (o) => (o.spec.mutations = [{ patchType: 'JSONPatch', jsonPatch: { expression: '  ' } }]), ['spec.mutations[0].jsonPatch.expression: Required value']],
    ['an empty apply configuration expression', (o) => (o.spec.mutations[0].applyConfiguration.expression = ''), ['spec.mutations[0].applyConfiguration.expression: Required value']],
    ['matchConstraints without resource rules', (o) => (o.spec.matchConstraints.resourceRules = []), ['spec.matchConstraints.resourceRules: Required value']],
    ['a DELETE rule', (o) => (o.spec.matchConstraints.resourceRules[0].operations = ['DELETE']), [`spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": ${MUTATING_OPS}`]],
    ['an unknown operation', (o) => (o.spec.matchConstraints.resourceRules[0].operations = ['PATCH']), [
      'spec.matchConstraints.resourceRules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      `spec.matchConstraints.resourceRules.operations: Unsupported value: "PATCH": ${MUTATING_OPS}`,
    ]],
    ['a paramKind without kind', (o) => (o.spec.paramKind = { apiVersion: 'v1' }), ['spec.paramKind.kind: Required value']],
    ['a match condition without name', (o) => (o.spec.matchConditions = [{ expression: 'true' }]), ['spec.matchConditions[0].name: Required value']],
    ['a variable without expression', (o) => (o.spec.variables = [{ name: 'x', expression: '' }]), ['spec.variables[0].expression: Required value: expression is not specified']],
    ['an apply configuration naming an unknown variable', (o) => (o.spec.mutations[0].applyConfiguration.expression = 'thing'), [
      `spec.mutations[0].applyConfiguration.expression: Invalid value: "thing": ${undeclared('thing', 'thing')}`,
    ]],
    ['params in a JSON patch without paramKind', (o) => (o.spec.mutations = [{ patchType: 'JSONPatch', jsonPatch: { expression: 'params' } }]), [
      `spec.mutations[0].jsonPatch.expression: Invalid value: "params": ${undeclared('params', 'params')}`,
    ]],
    ['a JSONPatch with a field it does not have', (o) => (o.spec.mutations = [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", pth: "/x"}]' } }]), [
      `spec.mutations[0].jsonPatch.expression: Invalid value: "[JSONPatch{op: \\"add\\", pth: \\"/x\\"}]": compilation failed: ERROR: <input>:1:23: undefined field 'pth'\n | [JSONPatch{op: "add", pth: "/x"}]\n | ......................^`,
    ]],
    // The result types of the reference's ApplyConfigurationCondition and JSONPatchCondition
    // (mutating/compilation_test.go: "must evaluate to Object but got string").
    ['an apply configuration that is a string', (o) => (o.spec.mutations[0].applyConfiguration.expression = `"I'm a teapot!"`), [
      `spec.mutations[0].applyConfiguration.expression: Invalid value: "\\"I'm a teapot!\\"": must evaluate to Object but got string`,
    ]],
    ['an apply configuration rooted below Object', (o) => (o.spec.mutations[0].applyConfiguration.expression = 'Object.spec.metadata{}'), [
      'spec.mutations[0].applyConfiguration.expression: Invalid value: "Object.spec.metadata{}": must evaluate to Object but got Object.spec.metadata',
    ]],
    ['a JSON patch that is one operation, not a list', (o) => (o.spec.mutations = [{ patchType: 'JSONPatch', jsonPatch: { expression: 'JSONPatch{op: "remove", path: "/x"}' } }]), [
      'spec.mutations[0].jsonPatch.expression: Invalid value: "JSONPatch{op: \\"remove\\", path: \\"/x\\"}": must evaluate to list(JSONPatch) but got JSONPatch',
    ]],
    ['a JSON patch with params and a paramKind', (o) => Object.assign(o.spec, {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/x", value: params.data.x}]' } }],
    }), []],
    ['a JSON patch path built with jsonpatch.escapeKey', (o) => (o.spec.mutations = [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("app.kubernetes.io/name"), value: "web"}]' } }]), []],
    ['CREATE, UPDATE and CONNECT', (o) => (o.spec.matchConstraints.resourceRules[0].operations = ['CREATE', 'UPDATE', 'CONNECT']), []],
    ['IfNeeded reinvocation and an authorizer check', (o) => Object.assign(o.spec, { reinvocationPolicy: 'IfNeeded', matchConditions: [{ name: 'allowed', expression: "authorizer.group('').resource('pods').check('create').allowed()" }] }), []],
  ], it)
  updateTable(strategy, policy, [
    ['the mutations are checked on update', (o) => (o.spec.mutations = []), ['spec.mutations: Required value: mutations must contain at least one item']],
    ['the reinvocationPolicy may change', (o) => (o.spec.reinvocationPolicy = 'IfNeeded'), []],
  ], it)

  it('defaults failurePolicy and the match constraints, not reinvocationPolicy', () => {
    const o = policy()
    delete o.spec.reinvocationPolicy
    const created = { ...o, metadata: { name: 'x' } } as Json
    strategy.prepareForCreate(created as never)
    assert.equal(created.spec.failurePolicy, 'Fail')
    assert.deepEqual(created.spec.matchConstraints.resourceRules[0].scope, '*')
    assert.equal(created.spec.matchConstraints.matchPolicy, 'Equivalent')
    assert.equal(created.spec.reinvocationPolicy, undefined)
  })

})

describe('validation/admissionregistration: MutatingAdmissionPolicyBinding', () => {
  const strategy = strategyOf(GROUP, 'mutatingadmissionpolicybindings', 'v1beta1')
  const binding = (): Json => ({ metadata: { name: 'sidecar-binding' }, spec: { policyName: 'sidecar.example.com', paramRef: { name: 'config', parameterNotFoundAction: 'Deny' } } })
  const rules = (operations: string[]) => ({ resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations, resources: ['pods'] }] })
  kindTable(strategy, binding, [
    ['no policyName', (o) => (o.spec.policyName = ''), ['spec.policyName: Required value']],
    ['a policyName that is not a subdomain', (o) => (o.spec.policyName = '!!!'), [`spec.policyName: Invalid value: "!!!": ${SUB}`]],
    ['a paramRef without name or selector', (o) => (o.spec.paramRef = { parameterNotFoundAction: 'Deny' }), ['spec.paramRef: Required value: one of name or selector must be specified']],
    ['a paramRef with name and selector', (o) => (o.spec.paramRef.selector = {}), [
      'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
    ]],
    ['an unknown parameterNotFoundAction', (o) => (o.spec.paramRef.parameterNotFoundAction = 'Skip'), ['spec.paramRef.parameterNotFoundAction: Unsupported value: "Skip": supported values: "Deny", "Allow"']],
    ['a paramRef name with a slash', (o) => (o.spec.paramRef.name = 'a/b'), ["spec.paramRef.name: Invalid value: \"a/b\": may not contain '/'"]],
    ['match resources matching DELETE', (o) => (o.spec.matchResources = rules(['DELETE'])), [`spec.matchResources.resourceRules.operations: Unsupported value: "DELETE": ${MUTATING_OPS}`]],
    ['match resources with an unknown match policy', (o) => (o.spec.matchResources = { ...rules(['CREATE']), matchPolicy: 'Loose' }), [
      'spec.matchResources.matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"',
    ]],
    ['a resource rule without resources', (o) => (o.spec.matchResources = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: [] }] }), [
      'spec.matchResources.resourceRules[0].resources: Required value',
    ]],
    ['a resource rule with a wildcard and another group', (o) => (o.spec.matchResources = { resourceRules: [{ apiGroups: ['*', 'apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] }), [
      'spec.matchResources.resourceRules[0].apiGroups: Invalid value: ["*","apps"]: if \'*\' is present, must not specify other API groups',
    ]],
    ['a bad selector label', (o) => (o.spec.paramRef = { selector: { matchLabels: { 'a b': 'x' } }, parameterNotFoundAction: 'Allow' }), [
      "spec.paramRef.selector.matchLabels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]],
    ['a paramRef name without action gets Deny', (o) => (o.spec.paramRef = { name: 'config' }), []],
    ['match resources for CREATE and UPDATE', (o) => (o.spec.matchResources = rules(['CREATE', 'UPDATE'])), []],
  ], it)
  updateTable(strategy, binding, [
    ['the policy name is checked on update', (o) => (o.spec.policyName = ''), ['spec.policyName: Required value']],
    ['the policy name may change', (o) => (o.spec.policyName = 'other.example.com'), []],
  ], it)
})
