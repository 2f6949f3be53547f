/**
 * rbac.authorization.k8s.io validation, table-driven per kind. Expected texts are the
 * reference's `pkg/apis/rbac/validation/validation.go` (ValidatePolicyRule,
 * ValidateRoleBindingSubject, the roleRef rules) and apimachinery's path segment names.
 */
import assert from 'node:assert/strict'
import { type Json, kindTable, strategyOf, updateErrors } from './groups-support.js'

const G = 'rbac.authorization.k8s.io'
const rule = (extra: Json = {}): Json => ({ apiGroups: [''], resources: ['pods'], verbs: ['get'], ...extra })

const ruleCases = (namespaced: boolean) =>
  [
    ['a rule without verbs', (o: Json) => (o.rules = [rule({ verbs: [] })]), ['rules[0].verbs: Required value: verbs must contain at least one value']],
    ['a rule without api groups', (o: Json) => (o.rules = [rule({ apiGroups: undefined })]), ['rules[0].apiGroups: Required value: resource rules must supply at least one api group']],
    ['a rule without resources', (o: Json) => (o.rules = [rule({ resources: [] })]), ['rules[0].resources: Required value: resource rules must supply at least one resource']],
    [
      'an empty rule',
      (o: Json) => (o.rules = [{}]),
      ['rules[0].verbs: Required value: verbs must contain at least one value', 'rules[0].apiGroups: Required value: resource rules must supply at least one api group', 'rules[0].resources: Required value: resource rules must supply at least one resource'],
    ],
    [
      'resources and non-resource URLs together',
      (o: Json) => (o.rules = [rule({ nonResourceURLs: ['/healthz'] })]),
      [...(namespaced ? ['rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs'] : []), 'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: rules cannot apply to both regular resources and non-resource URLs'],
    ],
    ['the second rule', (o: Json) => (o.rules = [rule(), rule({ verbs: undefined })]), ['rules[1].verbs: Required value: verbs must contain at least one value']],
    ['a name with a slash', (o: Json) => (o.metadata = { name: 'a/b' }), ["metadata.name: Invalid value: \"a/b\": may not contain '/'"]],
    ['a name with a percent', (o: Json) => (o.metadata = { name: 'a%b' }), ["metadata.name: Invalid value: \"a%b\": may not contain '%'"]],
    ['the name ..', (o: Json) => (o.metadata = { name: '..' }), ["metadata.name: Invalid value: \"..\": may not be '..'"]],
  ] as [string, (o: Json) => void, string[]][]

describe('validation/rbac: Role', () => {
  kindTable(strategyOf(G, 'roles'), () => ({ rules: [rule()] }), [
    ...ruleCases(true),
    ['a namespaced non-resource rule', (o) => (o.rules = [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }]), ['rules[0].nonResourceURLs: Invalid value: ["/metrics"]: namespaced rules cannot apply to non-resource URLs']],
  ], it)
  it('accepts names with colons (path segments)', () => {
    assert.deepEqual(updateErrors(strategyOf(G, 'roles'), { metadata: { name: 'system:reader' }, rules: [rule()] }, () => {}), [])
  })
})

describe('validation/rbac: ClusterRole', () => {
  kindTable(strategyOf(G, 'clusterroles'), () => ({ rules: [rule(), { verbs: ['get'], nonResourceURLs: ['/metrics'] }] }), [
    ...ruleCases(false),
    ['an aggregation rule without selectors', (o) => (o.aggregationRule = { clusterRoleSelectors: [] }), ['aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil']],
    [
      'an aggregation selector with a bad operator',
      (o) => (o.aggregationRule = { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Is' }] }] }),
      ['aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator', 'aggregationRule.clusterRoleSelectors[0]: Invalid value: {"matchExpressions":[{"key":"a","operator":"Is"}]}: invalid label selector.'],
    ],
  ], it)
})

const binding = (): Json => ({ roleRef: { apiGroup: G, kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'alice' }, { kind: 'ServiceAccount', name: 'default', namespace: 'default' }] })

describe('validation/rbac: RoleBinding', () => {
  const strategy = strategyOf(G, 'rolebindings')
  kindTable(strategy, binding, [
    ['a roleRef in another group', (o) => (o.roleRef.apiGroup = 'example.com'), [`roleRef.apiGroup: Unsupported value: "example.com": supported values: "${G}"`]],
    ['a roleRef of another kind', (o) => (o.roleRef.kind = 'Pod'), ['roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"']],
    ['a roleRef without name', (o) => (o.roleRef.name = ''), ['roleRef.name: Required value']],
    ['a roleRef name with a slash', (o) => (o.roleRef.name = 'a/b'), ["roleRef.name: Invalid value: \"a/b\": may not contain '/'"]],
    ['a subject without name', (o) => (o.subjects[0].name = ''), ['subjects[0].name: Required value']],
    ['a subject of another kind', (o) => (o.subjects[0].kind = 'Robot'), ['subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"']],
    ['a user in another group', (o) => (o.subjects[0].apiGroup = 'example.com'), [`subjects[0].apiGroup: Unsupported value: "example.com": supported values: "${G}"`]],
    ['a service account with an api group', (o) => (o.subjects[1].apiGroup = G), [`subjects[1].apiGroup: Unsupported value: "${G}": supported values: ""`]],
    [
      'a service account name that is not a subdomain',
      (o) => (o.subjects[1].name = 'Default'),
      [
        "subjects[1].name: Invalid value: \"Default\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    ['no roleRef at all', (o) => delete o.roleRef, ['roleRef.kind: Unsupported value: "": supported values: "Role", "ClusterRole"', 'roleRef.name: Required value']],
  ], it)
  it('defaults the roleRef and user subjects to the RBAC group', () => {
    assert.deepEqual(updateErrors(strategy, { roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'Group', name: 'g' }] }, () => {}), [])
  })
  it('update: the roleRef cannot change', () => {
    assert.deepEqual(updateErrors(strategy, binding(), (o) => (o.roleRef.name = 'writer')), [`roleRef: Invalid value: {"APIGroup":"${G}","Kind":"Role","Name":"writer"}: cannot change roleRef`])
  })
})

describe('validation/rbac: ClusterRoleBinding', () => {
  const strategy = strategyOf(G, 'clusterrolebindings')
  const cbinding = (): Json => ({ roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'default' }] })
  kindTable(strategy, cbinding, [
    ['a Role', (o) => (o.roleRef.kind = 'Role'), ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"']],
    ['a service account without namespace', (o) => delete o.subjects[0].namespace, ['subjects[0].namespace: Required value']],
    ['a roleRef in another group', (o) => (o.roleRef.apiGroup = 'x'), [`roleRef.apiGroup: Unsupported value: "x": supported values: "${G}"`]],
    ['a roleRef without name', (o) => delete o.roleRef.name, ['roleRef.name: Required value']],
    ['a subject of another kind', (o) => (o.subjects[0].kind = 'Node'), ['subjects[0].kind: Unsupported value: "Node": supported values: "ServiceAccount", "User", "Group"']],
    ['a group subject in another api group', (o) => (o.subjects = [{ kind: 'Group', name: 'g', apiGroup: 'x' }]), [`subjects[0].apiGroup: Unsupported value: "x": supported values: "${G}"`]],
    ['a subject without name', (o) => (o.subjects = [{ kind: 'User', name: '' }]), ['subjects[0].name: Required value']],
    ['a roleRef name of ..', (o) => (o.roleRef.name = '..'), ["roleRef.name: Invalid value: \"..\": may not be '..'"]],
    ['a namespace on the binding', (o) => (o.metadata = { name: 'x', namespace: 'default' }), ['metadata.namespace: Forbidden: not allowed on this type']],
    ['two bad subjects', (o) => (o.subjects = [{ kind: 'User' }, { kind: 'X', name: 'y' }]), ['subjects[0].name: Required value', 'subjects[1].kind: Unsupported value: "X": supported values: "ServiceAccount", "User", "Group"']],
  ], it)
  it('update: the roleRef cannot change', () => {
    assert.deepEqual(updateErrors(strategy, cbinding(), (o) => (o.roleRef.name = 'edit')), [`roleRef: Invalid value: {"APIGroup":"${G}","Kind":"ClusterRole","Name":"edit"}: cannot change roleRef`])
  })
})
