import assert from 'node:assert/strict'
import { resourceAttributes } from '../../../src/server/authorization/authorizer.js'
import { requestForbidden } from '../../../src/server/authorization/forbidden.js'

const user = { name: 'jane', groups: [] }

describe('forbidden messages', () => {
  it('namespaced list, as kubectl shows it', () => {
    const status = requestForbidden(resourceAttributes(user, { verb: 'list', resource: 'pods', namespace: 'default' }))
    assert.equal(status.message, 'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"')
    assert.deepEqual(status.details, { kind: 'pods' })
    assert.equal(status.code, 403)
    assert.equal(status.reason, 'Forbidden')
  })
  it('named, grouped, subresource, cluster scope, with a reason', () => {
    const status = requestForbidden(resourceAttributes(user, { verb: 'update', apiGroup: 'apps', resource: 'deployments', subresource: 'scale', name: 'web' }), 'RBAC: x')
    assert.equal(status.message, 'deployments.apps "web" is forbidden: User "jane" cannot update resource "deployments/scale" in API group "apps" at the cluster scope: RBAC: x')
    assert.deepEqual(status.details, { name: 'web', group: 'apps', kind: 'deployments' })
  })
  it('non-resource paths', () => {
    const status = requestForbidden({ ...resourceAttributes(user, { verb: 'get', resource: '' }), resourceRequest: false, path: '/metrics' })
    assert.equal(status.message, 'forbidden: User "jane" cannot get path "/metrics"')
    assert.deepEqual(status.details, {})
  })
})
