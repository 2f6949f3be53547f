/**
 * PUT of an object that does not exist, as the reference's registry/generic/registry/store.go
 * Update does it: the kinds whose strategy says AllowCreateOnUpdate (each kind's pkg/registry strategy.go:
 * RBAC's four, Endpoints, Events, LimitRanges, Services, Leases, LeaseCandidates) create it and
 * answer 201, once endpoints/handlers/rest.go's withAuthorization has found the create allowed;
 * the others answer the store's 404.
 */
import assert from 'node:assert/strict'
import type { CreateDecision, CreateRequest } from '../../../../src/server/api/registry/options.js'
import { type InProcessApi, openInProcessApi } from './in-process-api.js'

const ROLES = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles'
const role = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name, ...extra },
  rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
})
const intruder = { name: 'intruder', groups: ['system:authenticated'] }

describe('api/handlers/update: create on update as the reference\'s AllowCreateOnUpdate', () => {
  let api: InProcessApi
  const asked: CreateRequest[] = []
  let answer: (r: CreateRequest) => CreateDecision = () => ({ decision: 'allow' })

  before(async () => {
    api = await openInProcessApi('update-create-', {
      authorizeCreate: (r) => {
        asked.push(r)
        return r.user?.groups.includes('system:masters') ? { decision: 'allow' } : answer(r)
      },
    })
  })
  after(() => api.close())

  it('a Role that does not exist is created by PUT: 201, a new resourceVersion whatever the body said, an Update in managedFields', async () => {
    const created = await api.call('PUT', `${ROLES}/r1?fieldManager=tester`, role('r1', { resourceVersion: '12345' }))
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const meta = created.body.metadata as Record<string, unknown>
    assert.ok(meta.uid && meta.creationTimestamp)
    assert.notEqual(meta.resourceVersion, '12345')
    assert.deepEqual((meta.managedFields as Array<Record<string, unknown>>).map((f) => [f.manager, f.operation]), [['tester', 'Update']])
    assert.deepEqual(asked.at(-1), { user: asked.at(-1)!.user, group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', subresource: '', namespace: 'default', name: 'r1', path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/r1' })
    const again = await api.call('PUT', `${ROLES}/r1`, role('r1'))
    assert.equal(again.status, 200)
    assert.equal((await api.call('GET', `${ROLES}/r1`)).status, 200)
  })

  it('a dry run creates nothing and still answers 201', async () => {
    assert.equal((await api.call('PUT', `${ROLES}/r-dry?dryRun=All`, role('r-dry'))).status, 201)
    assert.equal((await api.call('GET', `${ROLES}/r-dry`)).status, 404)
  })

  it('Endpoints, LimitRanges, Leases, ClusterRoles, ClusterRoleBindings too', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['/api/v1/namespaces/default/endpoints/e1', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e1' } }],
      ['/api/v1/namespaces/default/limitranges/l1', { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'l1' }, spec: { limits: [] } }],
      ['/apis/coordination.k8s.io/v1/namespaces/default/leases/l1', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l1' }, spec: {} }],
      ['/apis/rbac.authorization.k8s.io/v1/clusterroles/c1', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'c1' } }],
      [
        '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/b1',
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'b1' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'c1' } },
      ],
    ]
    for (const [path, body] of cases) assert.equal((await api.call('PUT', path, body)).status, 201, path)
  })

  it('the other kinds answer the store\'s 404 (ConfigMaps, Nodes, Secrets)', async () => {
    const cm = await api.call('PUT', '/api/v1/namespaces/default/configmaps/c1', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' } })
    assert.equal(cm.status, 404)
    assert.equal(cm.body.message, 'configmaps "c1" not found')
    assert.deepEqual(cm.body.details, { name: 'c1', kind: 'configmaps' })
    assert.equal((await api.call('PUT', '/api/v1/nodes/n1', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } })).status, 404)
    assert.equal((await api.call('PUT', '/api/v1/namespaces/default/secrets/s1', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' } })).status, 404)
  })

  it('a requester who may update but not create gets NewForbidden with the authorizers\' reason; an authorizer error is a 500', async () => {
    answer = () => ({ decision: 'noOpinion', reason: 'RBAC: nothing here' })
    const denied = await api.call('PUT', `${ROLES}/r2`, role('r2'), intruder)
    assert.equal(denied.status, 403)
    assert.equal(denied.body.message, 'roles.rbac.authorization.k8s.io "r2" is forbidden: RBAC: nothing here')
    assert.deepEqual(denied.body.details, { name: 'r2', group: 'rbac.authorization.k8s.io', kind: 'roles' })
    answer = () => ({ decision: 'noOpinion' })
    assert.equal((await api.call('PUT', `${ROLES}/r2`, role('r2'), intruder)).body.message, 'roles.rbac.authorization.k8s.io "r2" is forbidden: ')
    answer = () => ({ decision: 'noOpinion', error: 'webhook down' })
    const failed = await api.call('PUT', `${ROLES}/r2`, role('r2'), intruder)
    assert.equal(failed.status, 500)
    assert.equal(failed.body.message, 'Internal error occurred: webhook down')
    assert.equal((await api.call('GET', `${ROLES}/r2`)).status, 404)
    answer = () => ({ decision: 'allow' })
  })

  it('the object is validated before the create is authorized (BeforeCreate, then createValidation)', async () => {
    answer = () => ({ decision: 'noOpinion' })
    const invalid = await api.call('PUT', `${ROLES}/r3`, { ...role('r3'), rules: [{ apiGroups: [''], resources: ['pods'] }] }, intruder)
    assert.equal(invalid.status, 422, JSON.stringify(invalid.body))
    answer = () => ({ decision: 'allow' })
  })

  it('an apply that creates asks the same question (forceAllowCreate with withAuthorization, handlers/patch.go)', async () => {
    answer = () => ({ decision: 'noOpinion', reason: 'no create' })
    const apply = (name: string) => api.call('PATCH', `${ROLES}/${name}?fieldManager=x`, role(name), intruder, 'application/apply-patch+yaml')
    const denied = await apply('r4')
    assert.equal(denied.status, 403)
    assert.equal(denied.body.message, 'roles.rbac.authorization.k8s.io "r4" is forbidden: no create')
    answer = () => ({ decision: 'allow' })
    assert.equal((await apply('r4')).status, 201)
  })
})
