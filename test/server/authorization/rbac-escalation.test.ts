import assert from 'node:assert/strict'
import { compactRules, compactString, covers, escalationMessage } from '../../../src/server/authorization/rbac-escalation.js'
import { PolicyCache } from '../../../src/server/authorization/rbac-policy.js'
import { RbacAuthorizer } from '../../../src/server/authorization/rbac.js'

describe('RBAC escalation checks', () => {
  it('covers subresources by */sub and URLs by prefix', () => {
    assert.equal(covers([{ verbs: ['get'], apiGroups: [''], resources: ['*/log'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }]).covered, true)
    assert.equal(covers([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }]).covered, false)
    assert.equal(covers([{ verbs: ['get'], nonResourceURLs: ['/logs/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/logs/x'] }]).covered, true)
    assert.equal(covers([{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]).covered, false)
  })
  it('compacts the missing rules and words them as the reference', () => {
    const { missing } = covers([], [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] }])
    assert.deepEqual(compactRules(missing).map(compactString), ['{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}'])
  })
  it('names the user, groups and every missing permission', () => {
    const cache = new PolicyCache()
    cache.put({ kind: 'ClusterRole', metadata: { name: 'pods' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] })
    cache.put({ kind: 'RoleBinding', metadata: { name: 'b', namespace: 'ns' }, roleRef: { kind: 'ClusterRole', name: 'pods' }, subjects: [{ kind: 'User', name: 'jane' }] })
    const rbac = new RbacAuthorizer(cache)
    const jane = { name: 'jane', groups: ['system:authenticated'] }
    assert.equal(escalationMessage(rbac, jane, 'ns', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), undefined)
    assert.equal(
      escalationMessage(rbac, jane, 'ns', [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods', 'secrets'] }]),
      'user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
    )
    assert.match(escalationMessage(rbac, jane, 'other', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])!, /not currently held/)
  })
})
