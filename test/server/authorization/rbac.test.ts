import assert from 'node:assert/strict'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { resourceAttributes, type Attributes } from '../../../src/server/authorization/authorizer.js'
import { PolicyCache } from '../../../src/server/authorization/rbac-policy.js'
import { nonResourceURLMatches, resourceMatches, ruleAllows } from '../../../src/server/authorization/rbac-rules.js'
import { RbacAuthorizer } from '../../../src/server/authorization/rbac.js'
import type { UserInfo } from '../../../src/server/http/types.js'

const jane: UserInfo = { name: 'jane', groups: ['devs', 'system:authenticated'] }
const RBAC = 'rbac.authorization.k8s.io/v1'

function role(kind: 'Role' | 'ClusterRole', name: string, rules: unknown[], namespace?: string): KubeObject {
  return { apiVersion: RBAC, kind, metadata: { name, ...(namespace ? { namespace } : {}) }, rules }
}
function binding(kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, roleRef: { kind: string; name: string }, subjects: unknown[], namespace?: string): KubeObject {
  return { apiVersion: RBAC, kind, metadata: { name, ...(namespace ? { namespace } : {}) }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef }, subjects }
}
const get = (user: UserInfo, fields: Partial<Attributes> & { resource: string }): Attributes => resourceAttributes(user, { verb: 'get', ...fields })

describe('RBAC rule matching', () => {
  it('matches subresources exactly, by */sub, or by *', () => {
    assert.equal(resourceMatches({ verbs: ['get'], resources: ['pods/log'] }, 'pods/log', 'log'), true)
    assert.equal(resourceMatches({ verbs: ['get'], resources: ['pods'] }, 'pods/log', 'log'), false)
    assert.equal(resourceMatches({ verbs: ['get'], resources: ['*/log'] }, 'pods/log', 'log'), true)
    assert.equal(resourceMatches({ verbs: ['get'], resources: ['*/log'] }, 'pods', ''), false)
    assert.equal(resourceMatches({ verbs: ['get'], resources: ['*'] }, 'pods/exec', 'exec'), true)
  })
  it('matches non-resource URLs exactly or by a trailing *', () => {
    assert.equal(nonResourceURLMatches({ verbs: ['get'], nonResourceURLs: ['/healthz'] }, '/healthz'), true)
    assert.equal(nonResourceURLMatches({ verbs: ['get'], nonResourceURLs: ['/healthz'] }, '/healthz/etcd'), false)
    assert.equal(nonResourceURLMatches({ verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, '/healthz/etcd'), true)
    assert.equal(nonResourceURLMatches({ verbs: ['get'], nonResourceURLs: ['/api*'] }, '/apis/apps'), true)
  })
  it('needs verb, group, resource and name to match', () => {
    const rule = { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] }
    assert.equal(ruleAllows(get(jane, { apiGroup: 'apps', resource: 'deployments', name: 'web' }), rule), true)
    assert.equal(ruleAllows(get(jane, { apiGroup: 'apps', resource: 'deployments', name: 'db' }), rule), false)
    assert.equal(ruleAllows(get(jane, { apiGroup: '', resource: 'deployments', name: 'web' }), rule), false)
    assert.equal(ruleAllows({ ...get(jane, { apiGroup: 'apps', resource: 'deployments', name: 'web' }), verb: 'delete' }, rule), false)
  })
})

describe('RBAC authorizer', () => {
  const cache = new PolicyCache()
  cache.put(role('ClusterRole', 'reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]))
  cache.put(role('Role', 'secret-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }], 'team'))
  cache.put(binding('RoleBinding', 'jane-reads', { kind: 'ClusterRole', name: 'reader' }, [{ kind: 'User', name: 'jane' }], 'team'))
  cache.put(binding('RoleBinding', 'devs-secrets', { kind: 'Role', name: 'secret-reader' }, [{ kind: 'Group', name: 'devs' }], 'team'))
  cache.put(binding('RoleBinding', 'sa', { kind: 'Role', name: 'secret-reader' }, [{ kind: 'ServiceAccount', name: 'robot' }], 'team'))
  cache.put(binding('ClusterRoleBinding', 'dangling', { kind: 'ClusterRole', name: 'missing' }, [{ kind: 'Group', name: 'devs' }]))
  const rbac = new RbacAuthorizer(cache)

  it('allows through a RoleBinding to a ClusterRole only in that namespace', () => {
    assert.equal(rbac.authorize(get(jane, { resource: 'pods', namespace: 'team' })).decision, 'allow')
    assert.equal(rbac.authorize(get(jane, { resource: 'pods', namespace: 'other' })).decision, 'noOpinion')
    assert.equal(rbac.authorize(get(jane, { resource: 'pods' })).decision, 'noOpinion')
  })
  it('matches groups and service accounts in the binding namespace', () => {
    assert.equal(rbac.authorize(get(jane, { resource: 'secrets', namespace: 'team' })).decision, 'allow')
    const robot: UserInfo = { name: 'system:serviceaccount:team:robot', groups: [] }
    assert.equal(rbac.authorize(get(robot, { resource: 'secrets', namespace: 'team' })).decision, 'allow')
    const otherRobot: UserInfo = { name: 'system:serviceaccount:other:robot', groups: [] }
    assert.equal(rbac.authorize(get(otherRobot, { resource: 'secrets', namespace: 'team' })).decision, 'noOpinion')
  })
  it('gives the missing role as the reason', () => {
    const result = rbac.authorize({ ...get(jane, { resource: 'pods', namespace: 'team' }), verb: 'delete' })
    assert.deepEqual(result, { decision: 'noOpinion', reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found' })
  })
  it('lists the rules that apply in a namespace', () => {
    const rules = rbac.rulesFor(jane, 'team')
    assert.deepEqual(
      rules.resourceRules.map((r) => r.resources.join()),
      ['pods', 'secrets'],
    )
    assert.deepEqual(rules.errors, ['clusterrole.rbac.authorization.k8s.io "missing" not found'])
  })
  it('answers from the fallback until synced', () => {
    const seeded = PolicyCache.withFallback([
      role('ClusterRole', 'public', [{ verbs: ['get'], nonResourceURLs: ['/livez'] }]),
      binding('ClusterRoleBinding', 'public', { kind: 'ClusterRole', name: 'public' }, [{ kind: 'Group', name: 'system:unauthenticated' }]),
    ])
    const anonymous: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] }
    const probe: Attributes = { ...get(anonymous, { resource: '' }), resourceRequest: false, path: '/livez' }
    assert.equal(new RbacAuthorizer(seeded).authorize(probe).decision, 'allow')
    assert.equal(new RbacAuthorizer(seeded).authorize({ ...probe, path: '/metrics' }).decision, 'noOpinion')
  })
})

describe('RBAC decisions kept per policy generation', () => {
  it('a change of any of the four kinds takes effect for the next request, as without the memo', () => {
    const policy = new PolicyCache()
    const rbac = new RbacAuthorizer(policy)
    const read = get(jane, { namespace: 'team', resource: 'configmaps', name: 'c' })
    assert.equal(rbac.authorize(read).decision, 'noOpinion')
    // The same question again, then the policy changes under it: each change is seen at once.
    assert.equal(rbac.authorize(read).decision, 'noOpinion')
    policy.put(role('Role', 'reader', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }], 'team'))
    assert.equal(rbac.authorize(read).decision, 'noOpinion')
    policy.put(binding('RoleBinding', 'jane-reads', { kind: 'Role', name: 'reader' }, [{ kind: 'User', name: 'jane' }], 'team'))
    assert.equal(rbac.authorize(read).decision, 'allow')
    assert.equal(rbac.authorize(read).decision, 'allow')
    policy.put(role('Role', 'reader', [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'] }], 'team'))
    assert.equal(rbac.authorize(read).decision, 'noOpinion')
    policy.put(role('Role', 'reader', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }], 'team'))
    assert.equal(rbac.authorize(read).decision, 'allow')
    policy.deleteRoleBinding(binding('RoleBinding', 'jane-reads', { kind: 'Role', name: 'reader' }, [], 'team'))
    const denied = rbac.authorize(read)
    assert.equal(denied.decision, 'noOpinion')
    policy.put(binding('ClusterRoleBinding', 'devs-read', { kind: 'ClusterRole', name: 'missing' }, [{ kind: 'Group', name: 'devs' }]))
    // The reason names the binding to a missing role, as a fresh decision does.
    assert.match(rbac.authorize(read).reason ?? '', /clusterrole\.rbac\.authorization\.k8s\.io "missing" not found/)
  })

  it('keeps decisions apart by user, groups, verb, namespace, resource and name', () => {
    const policy = new PolicyCache()
    const rbac = new RbacAuthorizer(policy)
    policy.put(role('ClusterRole', 'web-reader', [{ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] }]))
    policy.put(binding('RoleBinding', 'devs', { kind: 'ClusterRole', name: 'web-reader' }, [{ kind: 'Group', name: 'devs' }], 'team'))
    const web = get(jane, { namespace: 'team', apiGroup: 'apps', resource: 'deployments', name: 'web' })
    assert.equal(rbac.authorize(web).decision, 'allow')
    assert.equal(rbac.authorize({ ...web, name: 'db' }).decision, 'noOpinion')
    assert.equal(rbac.authorize({ ...web, namespace: 'other' }).decision, 'noOpinion')
    assert.equal(rbac.authorize({ ...web, verb: 'delete' }).decision, 'noOpinion')
    assert.equal(rbac.authorize({ ...web, subresource: 'scale' }).decision, 'noOpinion')
    assert.equal(rbac.authorize({ ...web, user: { name: 'jane', groups: ['system:authenticated'] } }).decision, 'noOpinion')
    assert.equal(rbac.authorize({ ...web, user: { name: 'joe', groups: ['devs'] } }).decision, 'allow')
    assert.equal(rbac.authorize(web).decision, 'allow')
  })
})

/** The reasons of plugin/pkg/auth/authorizer/rbac/rbac.go and the describers of pkg/registry/rbac/validation/rule.go. */
describe('RBAC reasons as the reference gives them', () => {
  const cache = new PolicyCache()
  cache.put(role('ClusterRole', 'admin', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]))
  cache.put(role('Role', 'cm-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }], 'team'))
  cache.put(binding('ClusterRoleBinding', 'admins', { kind: 'ClusterRole', name: 'admin' }, [{ kind: 'User', name: 'x' }, { kind: 'Group', name: 'admins' }]))
  cache.put(binding('RoleBinding', 'robots', { kind: 'Role', name: 'cm-reader' }, [{ kind: 'ServiceAccount', name: 'robot' }], 'team'))
  cache.put(binding('RoleBinding', 'robots-elsewhere', { kind: 'Role', name: 'cm-reader' }, [{ kind: 'ServiceAccount', name: 'robot', namespace: 'other' }], 'team'))
  const rbac = new RbacAuthorizer(cache)

  it('an allow names the binding, its role and the first subject that matched', () => {
    const admin: UserInfo = { name: 'boss', groups: ['admins'] }
    assert.deepEqual(rbac.authorize(get(admin, { resource: 'pods', namespace: 'team' })), {
      decision: 'allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "admins" of ClusterRole "admin" to Group "admins"',
    })
    const robot: UserInfo = { name: 'system:serviceaccount:team:robot', groups: [] }
    assert.equal(rbac.authorize(get(robot, { resource: 'configmaps', namespace: 'team' })).reason, 'RBAC: allowed by RoleBinding "robots/team" of Role "cm-reader" to ServiceAccount "robot/team"')
    const other: UserInfo = { name: 'system:serviceaccount:other:robot', groups: [] }
    assert.equal(rbac.authorize(get(other, { resource: 'configmaps', namespace: 'team' })).reason, 'RBAC: allowed by RoleBinding "robots-elsewhere/team" of Role "cm-reader" to ServiceAccount "robot/other"')
  })

  it('no opinion without resolution errors has no reason', () => {
    assert.deepEqual(rbac.authorize(get(jane, { resource: 'pods', namespace: 'team' })), { decision: 'noOpinion' })
  })

  it('a non-resource URL rule trims every trailing star (strings.TrimRight)', () => {
    assert.equal(nonResourceURLMatches({ verbs: ['get'], nonResourceURLs: ['/logs**'] }, '/logs/x'), true)
    assert.equal(nonResourceURLMatches({ verbs: ['get'], nonResourceURLs: ['/logs/**'] }, '/logs'), false)
  })
})

describe('RBAC policy cache: whenStored', () => {
  it('resolves only once the informers hold every named object (what the bootstrap-roles hook waits for)', async () => {
    const { openTestRegistry } = await import('../api/support.js')
    const t = await openTestRegistry('rbac-when-stored-')
    const policy = PolicyCache.withFallback([])
    try {
      await policy.start(t.registry)
      let done = false
      const named = [
        { resource: 'clusterroles', namespace: '', name: 'viewer' },
        { resource: 'clusterrolebindings', namespace: '', name: 'viewers' },
      ]
      const waiting = policy.whenStored(named).then(() => (done = true))
      const store = t.registry.lookup('rbac.authorization.k8s.io', 'v1', 'clusterroles')!
      await store.create(role('ClusterRole', 'viewer', [{ verbs: ['get'], nonResourceURLs: ['/readyz'] }]))
      await new Promise((resolve) => setTimeout(resolve, 100))
      assert.equal(done, false, 'resolved before the binding was stored')
      const bindings = t.registry.lookup('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings')!
      await bindings.create(binding('ClusterRoleBinding', 'viewers', { kind: 'ClusterRole', name: 'viewer' }, [{ kind: 'Group', name: 'system:unauthenticated' }]))
      await waiting
      assert.ok(policy.stored('clusterrolebindings', '', 'viewers'))
      await policy.whenStored(named.slice(0, 1))
    } finally {
      policy.stop()
      await t.close()
    }
  })
})
