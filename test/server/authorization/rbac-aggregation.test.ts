import assert from 'node:assert/strict'
import { aggregatedRules } from '../../../src/server/authorization/rbac-aggregation.js'
import { PolicyCache } from '../../../src/server/authorization/rbac-policy.js'

describe('ClusterRole aggregation', () => {
  it('gathers the rules of the matching roles in name order, without duplicates or itself', () => {
    const cache = new PolicyCache()
    const label = { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }
    cache.put({ kind: 'ClusterRole', metadata: { name: 'edit', labels: label }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: label }] }, rules: [] })
    cache.put({ kind: 'ClusterRole', metadata: { name: 'z-crontabs', labels: label }, rules: [{ verbs: ['get'], apiGroups: ['stable.example.com'], resources: ['crontabs'] }] })
    cache.put({ kind: 'ClusterRole', metadata: { name: 'a-pods', labels: label }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] })
    cache.put({ kind: 'ClusterRole', metadata: { name: 'dup', labels: label }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] })
    cache.put({ kind: 'ClusterRole', metadata: { name: 'other', labels: { x: 'y' } }, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] })
    const rules = aggregatedRules(cache.clusterRole('edit')!, cache)
    assert.deepEqual(rules, [
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get'], apiGroups: ['stable.example.com'], resources: ['crontabs'] },
    ])
  })
  it('matches expressions', () => {
    const cache = new PolicyCache()
    cache.put({ kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }] } })
    cache.put({ kind: 'ClusterRole', metadata: { name: 'one', labels: { tier: 'b' } }, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['secrets'] }] })
    cache.put({ kind: 'ClusterRole', metadata: { name: 'two', labels: { tier: 'c' } }, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }] })
    assert.deepEqual(aggregatedRules(cache.clusterRole('agg')!, cache), [{ verbs: ['list'], apiGroups: [''], resources: ['secrets'] }])
  })
})
