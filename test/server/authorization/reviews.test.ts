/**
 * The `status.reason` of SubjectAccessReview and SelfSubjectAccessReview as the reference's
 * pkg/registry/authorization/subjectaccessreview/rest.go fills it from the authorizer chain:
 * the privileged group's allow has no reason, RBAC's names the binding (plugin/pkg/auth/
 * authorizer/rbac/rbac.go), no opinion joins the modes' reasons (union.go).
 */
import assert from 'node:assert/strict'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { PRIVILEGED_GROUP, alwaysDeny, privilegedGroups } from '../../../src/server/authorization/always.js'
import { PolicyCache } from '../../../src/server/authorization/rbac-policy.js'
import { RbacAuthorizer } from '../../../src/server/authorization/rbac.js'
import { review } from '../../../src/server/authorization/reviews.js'
import { UnionAuthorizer } from '../../../src/server/authorization/union.js'
import type { UserInfo } from '../../../src/server/http/types.js'

const RBAC = 'rbac.authorization.k8s.io/v1'

describe('access reviews: status.reason as the reference gives it', () => {
  const cache = new PolicyCache()
  cache.put({ apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'view' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] } as KubeObject)
  cache.put({
    apiVersion: RBAC,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'viewers' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'Group', name: 'viewers' }],
  } as KubeObject)
  cache.put({
    apiVersion: RBAC,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'dangling' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'gone' },
    subjects: [{ kind: 'User', name: 'lost' }],
  } as KubeObject)
  const rbac = new RbacAuthorizer(cache)
  const deps = { authorizer: new UnionAuthorizer([privilegedGroups(PRIVILEGED_GROUP), rbac]), ruleResolver: rbac }
  const sar = (spec: Record<string, unknown>) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {}, spec }) as unknown as KubeObject
  const status = async (user: string, groups: string[], verb = 'list') =>
    (await review(deps, 'subjectaccessreviews', sar({ user, groups, resourceAttributes: { verb, resource: 'pods', namespace: 'default' } }), { name: 'admin', groups: [] }, undefined)).status

  it('RBAC allows: the binding, role and subject that allowed', async () => {
    assert.deepEqual(await status('v', ['viewers']), { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "viewers" of ClusterRole "view" to Group "viewers"' })
  })

  it('the privileged group allows without a reason', async () => {
    assert.deepEqual(await status('root', [PRIVILEGED_GROUP]), { allowed: true })
  })

  it('no opinion: no reason, or RBAC\'s resolution errors', async () => {
    assert.deepEqual(await status('v', ['viewers'], 'delete'), { allowed: false })
    assert.deepEqual(await status('lost', []), { allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found' })
  })

  it('the reasons of every mode without an opinion, one a line (AlwaysDeny says why)', async () => {
    const chain = { authorizer: new UnionAuthorizer([privilegedGroups(PRIVILEGED_GROUP), rbac, alwaysDeny]), ruleResolver: rbac }
    const requester: UserInfo = { name: 'lost', groups: [] }
    const self = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: {}, spec: { nonResourceAttributes: { verb: 'get', path: '/x' } } } as unknown as KubeObject
    assert.deepEqual((await review(chain, 'selfsubjectaccessreviews', self, requester, undefined)).status, {
      allowed: false,
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found\nEverything is forbidden.',
    })
  })
})
