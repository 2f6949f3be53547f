/**
 * The user the reference's impersonation filter makes of Impersonate-User and
 * Impersonate-Group (k8s.io/apiserver/pkg/endpoints/filters/impersonation.go), which both the
 * server's filter and `auth can-i --as --as-group` use.
 */
import assert from 'node:assert/strict'
import { impersonatedUser, splitServiceAccount } from '../../../src/core/rbac/impersonated-user.js'

describe('impersonatedUser', () => {
  it('adds system:authenticated to a named user', () => {
    assert.deepEqual(impersonatedUser('alice', ['dev']), { name: 'alice', groups: ['dev', 'system:authenticated'] })
  })

  it("gives a service account its groups when none are given, and only then", () => {
    assert.deepEqual(impersonatedUser('system:serviceaccount:ci:robot', []), {
      name: 'system:serviceaccount:ci:robot',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'],
    })
    assert.deepEqual(impersonatedUser('system:serviceaccount:ci:robot', ['x']).groups, ['x', 'system:authenticated'])
  })

  it('leaves the groups alone when they say authenticated or not; anonymous is unauthenticated', () => {
    assert.deepEqual(impersonatedUser('bob', ['system:unauthenticated']).groups, ['system:unauthenticated'])
    assert.deepEqual(impersonatedUser('system:anonymous', []).groups, ['system:unauthenticated'])
  })

  it('splits service-account names as serviceaccount.SplitUsername', () => {
    assert.deepEqual(splitServiceAccount('system:serviceaccount:ns:name'), { namespace: 'ns', name: 'name' })
    assert.equal(splitServiceAccount('system:serviceaccount:ns'), undefined)
    assert.equal(splitServiceAccount('system:serviceaccount:ns:a:b'), undefined)
  })
})
