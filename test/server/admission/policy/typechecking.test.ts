/**
 * ValidatingAdmissionPolicy type checking: the cases of the reference's typechecking_test.go
 * (TestTypeCheck, with its fake schema resolver returning one schema for every kind, and
 * TestExtractTypeNames), then the schemas this server serves (a Deployment's OpenAPI
 * definition, a ConfigMap param).
 */
import assert from 'node:assert/strict'
import { type ExpressionWarning, checkPolicy, typesToCheck } from '../../../../src/server/admission/policy/validating/typechecking.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'

type Obj = Record<string, any>

const DEPLOYMENTS = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }] }
const policyOf = (spec: Obj): KubeObject => ({ metadata: { name: 'p' }, spec: { matchConstraints: DEPLOYMENTS, ...spec } }) as KubeObject

const string = { type: 'string' }
const int64 = { type: 'integer', format: 'int64' }
const object = (properties: Obj) => ({ type: 'object', properties })

type Assertion = (warnings: ExpressionWarning[]) => void
const toBeEmpty: Assertion = (w) => assert.deepEqual(w, [])
const toHaveLengthOf = (n: number): Assertion => (w) => assert.equal(w.length, n)
const toHaveFieldRef = (...refs: string[]): Assertion => (w) => assert.deepEqual(w.map((x) => x.fieldRef), refs)
const toContain = (text: string): Assertion => (w) => assert.ok(w.some((x) => x.warning.includes(text)), `${JSON.stringify(w)} contains ${text}`)

describe('admission: ValidatingAdmissionPolicy type checking', () => {
  const cases: Array<{ name: string; policy: KubeObject; schema: Obj | undefined; assertions: Assertion[] }> = [
    { name: 'empty', policy: { metadata: {}, spec: {} } as KubeObject, schema: object({}), assertions: [toBeEmpty] },
    { name: 'unresolved schema', policy: policyOf({ validations: [{ expression: "object.foo == 'bar'" }] }), schema: undefined, assertions: [toBeEmpty] },
    { name: 'passed check', policy: policyOf({ validations: [{ expression: "object.foo == 'bar'" }] }), schema: object({ foo: string }), assertions: [toBeEmpty] },
    {
      name: 'undefined field',
      policy: policyOf({ validations: [{ expression: "object.foo == 'bar'" }] }),
      schema: object({ bar: string }),
      assertions: [toHaveFieldRef('spec.validations[0].expression'), toContain(`undefined field 'foo'`)],
    },
    {
      name: 'field type mismatch',
      policy: policyOf({ validations: [{ expression: "object.foo == 'bar'" }] }),
      schema: object({ foo: int64 }),
      assertions: [toHaveFieldRef('spec.validations[0].expression'), toContain('found no matching overload')],
    },
    {
      name: 'params',
      policy: policyOf({ paramKind: { apiVersion: 'v1', kind: 'DoesNotMatter' }, validations: [{ expression: 'object.foo == params.bar' }] }),
      schema: object({ foo: string }),
      assertions: [toHaveFieldRef('spec.validations[0].expression'), toContain(`undefined field 'bar'`)],
    },
    {
      name: 'params with untyped schema',
      policy: policyOf({ paramKind: { apiVersion: 'v1', kind: 'Config' }, validations: [{ expression: 'params != null' }] }),
      schema: {},
      assertions: [toBeEmpty],
    },
    {
      name: 'multiple expressions',
      policy: policyOf({ validations: [{ expression: "object.foo == 'bar'" }, { expression: "object.bar == 'foo'" }] }),
      schema: object({ foo: string }),
      assertions: [toHaveFieldRef('spec.validations[1].expression'), toHaveLengthOf(1)],
    },
    {
      name: 'message expressions',
      policy: policyOf({ validations: [{ expression: "object.foo == 'bar'", messageExpression: 'object.foo + 114514' }] }),
      schema: object({ foo: string }),
      assertions: [toHaveFieldRef('spec.validations[0].messageExpression'), toHaveLengthOf(1)],
    },
    {
      name: 'authorizer',
      policy: policyOf({ validations: [{ expression: "authorizer.group('').resource('endpoints').check('create').allowed()" }] }),
      schema: object({ foo: string }),
      assertions: [toBeEmpty],
    },
    {
      name: 'authorizer invalid',
      policy: policyOf({ validations: [{ expression: 'authorizer.allowed()' }] }),
      schema: object({ foo: string }),
      assertions: [toHaveFieldRef('spec.validations[0].expression'), toHaveLengthOf(1), toContain("found no matching overload for 'allowed' applied to 'kubernetes.authorization.Authorizer")],
    },
    {
      name: 'additionalProperties: true',
      policy: policyOf({ validations: [{ expression: 'has(object.spec.text)' }] }),
      schema: object({ spec: object({ text: string }), status: object({ problematicProperty: { type: 'object', additionalProperties: true } }) }),
      assertions: [toBeEmpty],
    },
    { name: 'schema without type', policy: policyOf({ validations: [{ expression: 'true' }] }), schema: {}, assertions: [toBeEmpty] },
    {
      name: 'variables valid',
      policy: policyOf({ variables: [{ name: 'works', expression: 'true' }], validations: [{ expression: 'variables.works' }] }),
      schema: object({ foo: int64 }),
      assertions: [toHaveLengthOf(0)],
    },
    {
      name: 'variables missing field',
      policy: policyOf({ variables: [{ name: 'works', expression: 'true' }], validations: [{ expression: 'variables.nonExisting' }] }),
      schema: object({ foo: int64 }),
      assertions: [toHaveLengthOf(1), toHaveFieldRef('spec.validations[0].expression'), toContain("undefined field 'nonExisting'")],
    },
    {
      name: 'variables field wrong type',
      policy: policyOf({ variables: [{ name: 'name', expression: "'something'" }], validations: [{ expression: 'variables.name == object.foo' }] }),
      schema: object({ foo: int64 }),
      assertions: [toHaveLengthOf(1), toHaveFieldRef('spec.validations[0].expression'), toContain("found no matching overload for '_==_' applied to '(string, int)")],
    },
    {
      name: 'error in variables, not reported during type checking.',
      policy: policyOf({ variables: [{ name: 'name', expression: "object.foo == 'str'" }], validations: [{ expression: 'variables.name == object.foo' }] }),
      schema: object({ foo: int64 }),
      assertions: [toHaveLengthOf(0)],
    },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const warnings = await checkPolicy(c.policy, undefined, async () => c.schema)
      for (const a of c.assertions) a(warnings)
    })
  }

  it("a warning per kind: '<group>/<version>, Kind=<kind>: ' and cel-go's issue, kinds in order", async () => {
    const policy = policyOf({
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['replicasets', 'deployments'] }] },
      validations: [{ expression: 'object.foo == 1' }],
    })
    const warnings = await checkPolicy(policy, undefined, async () => object({ bar: string }))
    const issue = "ERROR: <input>:1:7: undefined field 'foo'\n | object.foo == 1\n | ......^\n"
    assert.deepEqual(warnings, [{ fieldRef: 'spec.validations[0].expression', warning: `apps/v1, Kind=Deployment: ${issue}\napps/v1, Kind=ReplicaSet: ${issue}` }])
  })

  it('the served schemas: a Deployment and a ConfigMap param', async () => {
    const policy = policyOf({
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [
        { expression: "object.spec.replicas <= int(params.data.max) && object.metadata.labels.app == 'web'" },
        { expression: "object.spec.replicas == 'three'" },
        { expression: 'object.spec.replica > 1', messageExpression: 'params.datum' },
      ],
    })
    const warnings = await checkPolicy(policy, undefined)
    assert.deepEqual(
      warnings.map((w) => [w.fieldRef, w.warning.split('\n')[0]]),
      [
        ['spec.validations[1].expression', "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(int, string)'"],
        ['spec.validations[2].expression', "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'"],
        ['spec.validations[2].messageExpression', "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'datum'"],
      ],
    )
  })

  describe('typesToCheck (TestExtractTypeNames)', () => {
    const rule = (apiGroups: string[], apiVersions: string[], resources: string[]) => ({ apiGroups, apiVersions, resources })
    const cases: Array<{ name: string; rules: Obj[]; expected: string[] }> = [
      { name: 'empty', rules: [], expected: [] },
      { name: 'specific', rules: [rule(['apps'], ['v1'], ['deployments'])], expected: ['apps/v1/Deployment'] },
      { name: 'multiple', rules: [rule(['apps'], ['v1'], ['deployments']), rule([''], ['v1'], ['pods'])], expected: ['/v1/Pod', 'apps/v1/Deployment'] },
      { name: 'all resources', rules: [rule(['apps'], ['v1'], ['*'])], expected: [] },
      { name: 'sub resources', rules: [rule(['apps'], ['v1'], ['pods/*'])], expected: [] },
      { name: 'mixtures', rules: [rule(['apps'], ['v1'], ['deployments']), rule(['apps'], ['*'], ['deployments'])], expected: ['apps/v1/Deployment'] },
      { name: 'resources with subresources are skipped, the others kept', rules: [rule(['apps'], ['v1'], ['deployments/scale', 'statefulsets'])], expected: ['apps/v1/StatefulSet'] },
    ]
    for (const c of cases) {
      it(c.name, async () => {
        const got = await typesToCheck(policyOf({ matchConstraints: { resourceRules: c.rules } }), undefined)
        assert.deepEqual(got.map((g) => `${g.group}/${g.version}/${g.kind}`), c.expected)
      })
    }
  })
})
