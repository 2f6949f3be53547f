/**
 * Whether a policy's matchConstraints or a binding's matchResources apply: the cases of the
 * reference's policy/matching matching_test.go (TestMatcher) this server can serve (no
 * extensions group: `matchPolicy: Equivalent` is shown with autoscaling's two served versions),
 * and the configuration errors of generic/policy_matcher.go.
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes } from '../../../../src/server/admission/attributes.js'
import { matchingHooks } from '../../../../src/server/admission/policy/dispatch.js'
import { bindingMatches, definitionMatches, matchResources } from '../../../../src/server/admission/policy/matching.js'
import type { PluginInitialization } from '../../../../src/server/admission/plugins.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { type TestRegistry, openTestRegistry } from '../../api/support.js'

type Obj = Record<string, any>

const rule = (apiGroups: string[], apiVersions: string[], resources: string[], over: Obj = {}) => ({ operations: ['*'], apiGroups, apiVersions, resources, scope: '*', ...over })
const attrs = (kind: [string, string, string], resource: [string, string, string], subresource = '', over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  kind: { group: kind[0], version: kind[1], kind: kind[2] },
  resource: { group: resource[0], version: resource[1], resource: resource[2] },
  subresource,
  namespace: 'ns',
  name: 'name',
  object: { metadata: { name: 'name', labels: { app: 'web' } } } as KubeObject,
  dryRun: false,
  ...over,
})
const DEPLOYMENT: [string, string, string] = ['apps', 'v1', 'Deployment']
const DEPLOYMENTS: [string, string, string] = ['apps', 'v1', 'deployments']

describe('admission policies: matching (matching_test.go)', function () {
  this.timeout(20_000)
  let world: TestRegistry
  let init: PluginInitialization

  before(async () => {
    world = await openTestRegistry('vap-match-', ['ns'])
    init = { stores: () => world.registry, config: {}, log: () => {} }
  })
  after(async () => world.close())

  const cases: Array<{ name: string; criteria: Obj; attrs: AdmissionAttributes; kind?: string; resource?: string }> = [
    { name: 'wildcard rule, match as requested', criteria: { resourceRules: [rule(['*'], ['*'], ['*'])] }, attrs: attrs(DEPLOYMENT, DEPLOYMENTS), kind: 'apps/v1/Deployment', resource: 'apps/v1/deployments' },
    {
      name: 'specific rules, prefer exact match',
      criteria: { resourceRules: [rule(['extensions'], ['v1'], ['deployments']), rule(['apps'], ['v1beta1'], ['deployments']), rule(['apps'], ['v1'], ['deployments'])] },
      attrs: attrs(DEPLOYMENT, DEPLOYMENTS),
      kind: 'apps/v1/Deployment',
      resource: 'apps/v1/deployments',
    },
    { name: 'specific rules, match miss', criteria: { resourceRules: [rule(['extensions'], ['v1beta1'], ['deployments']), rule(['apps'], ['v1beta1'], ['deployments'])] }, attrs: attrs(DEPLOYMENT, DEPLOYMENTS) },
    {
      name: 'specific rules, exact match miss (another version, Exact)',
      criteria: { matchPolicy: 'Exact', resourceRules: [rule(['autoscaling'], ['v1'], ['horizontalpodautoscalers'])] },
      attrs: attrs(['autoscaling', 'v2', 'HorizontalPodAutoscaler'], ['autoscaling', 'v2', 'horizontalpodautoscalers']),
    },
    {
      name: 'specific rules, equivalent match (another served version, Equivalent)',
      criteria: { matchPolicy: 'Equivalent', resourceRules: [rule(['autoscaling'], ['v1'], ['horizontalpodautoscalers'])] },
      attrs: attrs(['autoscaling', 'v2', 'HorizontalPodAutoscaler'], ['autoscaling', 'v2', 'horizontalpodautoscalers']),
      kind: 'autoscaling/v1/HorizontalPodAutoscaler',
      resource: 'autoscaling/v1/horizontalpodautoscalers',
    },
    {
      name: 'specific rules, subresource prefer exact match',
      criteria: { resourceRules: [rule(['apps'], ['v1'], ['deployments/scale'])] },
      attrs: attrs(['autoscaling', 'v1', 'Scale'], DEPLOYMENTS, 'scale'),
      kind: 'autoscaling/v1/Scale',
      resource: 'apps/v1/deployments',
    },
    { name: 'specific rules, subresource match miss', criteria: { resourceRules: [rule(['apps'], ['v1'], ['deployments'])] }, attrs: attrs(['autoscaling', 'v1', 'Scale'], DEPLOYMENTS, 'scale') },
    { name: 'specific rules, prefer exact match and name match', criteria: { resourceRules: [rule(['apps'], ['v1'], ['deployments'], { resourceNames: ['name'] })] }, attrs: attrs(DEPLOYMENT, DEPLOYMENTS), kind: 'apps/v1/Deployment', resource: 'apps/v1/deployments' },
    { name: 'specific rules, prefer exact match and name match miss', criteria: { resourceRules: [rule(['apps'], ['v1'], ['deployments'], { resourceNames: ['wrong-name'] })] }, attrs: attrs(DEPLOYMENT, DEPLOYMENTS) },
    {
      name: 'exclude resource match on miss',
      criteria: { resourceRules: [rule(['*'], ['*'], ['*'])], excludeResourceRules: [rule(['extensions'], ['v1beta1'], ['deployments'])] },
      attrs: attrs(['autoscaling', 'v1', 'Scale'], DEPLOYMENTS),
      kind: 'autoscaling/v1/Scale',
      resource: 'apps/v1/deployments',
    },
    { name: 'exclude resource miss on match', criteria: { resourceRules: [rule(['*'], ['*'], ['*'])], excludeResourceRules: [rule(['apps'], ['v1'], ['deployments'])] }, attrs: attrs(DEPLOYMENT, DEPLOYMENTS) },
    { name: 'treat empty ResourceRules as match', criteria: { excludeResourceRules: [rule(['extensions'], ['v1beta1'], ['deployments'])] }, attrs: attrs(['autoscaling', 'v1', 'Scale'], DEPLOYMENTS), kind: 'autoscaling/v1/Scale', resource: 'apps/v1/deployments' },
    { name: 'treat non-empty ResourceRules as no match', criteria: { resourceRules: [{}] }, attrs: attrs(['autoscaling', 'v1', 'Scale'], DEPLOYMENTS) },
    { name: 'an object selector that does not select the object', criteria: { objectSelector: { matchLabels: { app: 'db' } }, resourceRules: [rule(['*'], ['*'], ['*'])] }, attrs: attrs(DEPLOYMENT, DEPLOYMENTS) },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const got = await matchResources({ namespaceSelector: {}, objectSelector: {}, ...c.criteria }, c.attrs, init)
      if (!c.kind) return assert.equal(got, undefined)
      assert.ok(got, 'matches')
      assert.equal(`${got.kind.group}/${got.kind.version}/${got.kind.kind}`, c.kind)
      assert.equal(`${got.resource.group}/${got.resource.version}/${got.resource.resource}`, c.resource)
    })
  }

  // The dispatchers first narrow the policies to those whose rules may match (an index per list
  // and request shape): every case must come out as matchResources answers it, all of them in
  // one list so that the candidates of each shape are found among policies matching others.
  it('the same cases through the dispatchers (policies narrowed to candidates per request shape)', async () => {
    const hooks = cases.map((c, i) => ({ policy: { metadata: { name: `p${i}` }, spec: { matchConstraints: { namespaceSelector: {}, objectSelector: {}, ...c.criteria } } } as KubeObject, bindings: [], evaluator: undefined }))
    for (const [i, c] of cases.entries()) {
      const outcomes = await matchingHooks(hooks, c.attrs, init)
      const got = outcomes.find((o) => o.hook === hooks[i])
      if (!c.kind) {
        assert.equal(got, undefined, c.name)
        continue
      }
      assert.ok(got?.match, c.name)
      assert.equal(`${got.match.kind.group}/${got.match.kind.version}/${got.match.kind.kind}`, c.kind, c.name)
      assert.equal(`${got.match.resource.group}/${got.match.resource.version}/${got.match.resource.resource}`, c.resource, c.name)
    }
  })

  it('a namespace selector error refuses only an otherwise matching request', async () => {
    const missing = attrs(['', 'v1', 'Pod'], ['', 'v1', 'pods'], '', { namespace: 'gone' })
    const criteria = (resources: string[]) => ({ namespaceSelector: { matchLabels: { a: 'b' } }, objectSelector: {}, resourceRules: [rule(['*'], ['*'], resources)] })
    assert.equal(await matchResources(criteria(['deployments']), missing, init), undefined)
    await assert.rejects(async () => matchResources(criteria(['pods']), missing, init), /namespaces "gone" not found/)
  })

  it('the configuration errors of DefinitionMatches and BindingMatches', async () => {
    const a = attrs(DEPLOYMENT, DEPLOYMENTS)
    await assert.rejects(async () => definitionMatches({}, a, init), { message: 'policy contained no match constraints, a required field' })
    await assert.rejects(async () => definitionMatches({ matchConstraints: { objectSelector: {} } }, a, init), { message: 'a nil namespace selector was passed, please ensure selectors are initialized properly' })
    await assert.rejects(async () => definitionMatches({ matchConstraints: { namespaceSelector: {} } }, a, init), { message: 'a nil object selector was passed, please ensure selectors are initialized properly' })
    assert.equal(await bindingMatches({}, a, init), true)
    await assert.rejects(async () => bindingMatches({ matchResources: { namespaceSelector: {} } }, a, init), { message: 'a nil object selector was passed, please ensure selectors are initialized properly' })
  })
})
