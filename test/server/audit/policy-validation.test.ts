/**
 * The policy's checks, the reference's apis/audit/validation validation_test.go: its valid and
 * invalid policies, and the texts of a few of its errors.
 */
import assert from 'node:assert/strict'
import { aggregateMessage } from '../../../src/server/api/validation/field/index.js'
import type { Policy, PolicyRule } from '../../../src/server/audit/policy.js'
import { validatePolicy } from '../../../src/server/audit/policy-validation.js'

const policy = (rules: PolicyRule[], omitStages?: string[]): Policy =>
  ({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules, ...(omitStages ? { omitStages } : {}) }) as Policy

const validRules: PolicyRule[] = [
  { level: 'Metadata' },
  { level: 'None', userGroups: ['system:serviceaccounts', 'system:nodes'] },
  { level: 'RequestResponse', verbs: ['get'], resources: [{ group: 'rbac.authorization.k8s.io', resources: ['roles', 'rolebindings'] }], namespaces: ['kube-system'] },
  { level: 'Metadata', userGroups: ['developers'], nonResourceURLs: ['/logs*', '/healthz*', '/metrics', '*'] },
  { level: 'Metadata', omitStages: ['RequestReceived'] },
]

const invalidRules = [
  {},
  { verbs: ['get'], resources: [{ resources: ['secrets'] }], namespaces: ['kube-system'] },
  { level: 'FooBar' },
  { level: 'Metadata', namespaces: ['default'], nonResourceURLs: ['/logs*'] },
  { level: 'Metadata', resources: [{ resources: ['secrets'] }], nonResourceURLs: ['/logs*'] },
  { level: 'Metadata', resources: [{ group: 'rbac.authorization.k8s.io/v1beta1', resources: ['roles'] }] },
  { level: 'Metadata', nonResourceURLs: ['logs', '/healthz*'] },
  { level: 'Metadata', nonResourceURLs: ['', '/healthz*'] },
  { level: 'Metadata', nonResourceURLs: ['/logs/*/*', '/metrics'] },
  { level: 'Metadata', nonResourceURLs: ['/logs/*.log', '/metrics'] },
  { level: 'Metadata', verbs: ['get'], resources: [{ resourceNames: ['leader'] }], namespaces: ['kube-system'] },
  { level: 'Metadata', omitStages: ['foo'] },
] as PolicyRule[]

describe('audit policy validation (validation_test.go)', () => {
  it('accepts the valid policies', () => {
    const successCases = [...validRules.map((rule) => policy([rule])), policy([]), policy([], ['RequestReceived']), policy(validRules)]
    successCases.forEach((p, i) => assert.deepEqual(validatePolicy(p).map(String), [], `[${i}] Expected policy to be valid`))
  })

  it('refuses the invalid policies', () => {
    const errorCases = [...invalidRules.map((rule) => policy([rule])), policy([...validRules, {} as PolicyRule]), policy([{ level: 'Metadata' }], ['foo'])]
    errorCases.forEach((p, i) => assert.ok(validatePolicy(p).length > 0, `[${i}] Expected policy ${JSON.stringify(p)} to be invalid!`))
  })

  it("words the errors as the reference's field errors", () => {
    const text = (rule: object, omitStages?: string[]) => aggregateMessage(validatePolicy(policy([rule as PolicyRule], omitStages)))
    assert.equal(text({}), 'rules[0].level: Required value')
    assert.equal(text({ level: 'FooBar' }), 'rules[0].level: Unsupported value: "FooBar": supported values: "None", "Metadata", "Request", "RequestResponse"')
    assert.equal(text({ level: 'Metadata', namespaces: ['default'], nonResourceURLs: ['/logs*'] }), 'rules[0].nonResourceURLs: Invalid value: ["/logs*"]: rules cannot apply to both regular resources and non-resource URLs')
    assert.equal(text({ level: 'Metadata', nonResourceURLs: ['logs'] }), `rules[0].nonResourceURLs[0]: Invalid value: "logs": non-resource URL rules must begin with a '/' character`)
    assert.equal(text({ level: 'Metadata', nonResourceURLs: ['/logs/*.log'] }), `rules[0].nonResourceURLs[0]: Invalid value: "/logs/*.log": non-resource URL wildcards '*' must be the final character of the rule`)
    assert.equal(text({ level: 'Metadata', resources: [{ resourceNames: ['leader'] }] }), 'rules[0].resources.resourceNames: Invalid value: ["leader"]: using resourceNames requires at least one resource')
    assert.equal(text({ level: 'Metadata' }, ['foo']), 'omitStages[0]: Invalid value: "foo": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic')
  })
})
