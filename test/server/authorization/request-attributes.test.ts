/**
 * What a request is authorized as, from its path and query to the authorizer's answer and the
 * 403 text: the reference's endpoints/request/requestinfo.go (a list or watch with a
 * `metadata.name=` field selector asks for that object), endpoints/filters/authorization.go
 * (the attributes) and endpoints/handlers/responsewriters/errors.go (the Forbidden wording).
 */
import assert from 'node:assert/strict'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { requestAttributes } from '../../../src/server/authorization/authorizer.js'
import { requestForbidden } from '../../../src/server/authorization/forbidden.js'
import { PolicyCache } from '../../../src/server/authorization/rbac-policy.js'
import { RbacAuthorizer } from '../../../src/server/authorization/rbac.js'
import { decodeRequestPath, resolveRequestInfo } from '../../../src/server/http/request-info.js'
import type { UserInfo } from '../../../src/server/http/types.js'

const RBAC = 'rbac.authorization.k8s.io/v1'
const agent: UserInfo = { name: 'agent', groups: ['system:authenticated'] }

function attributes(method: string, target: string) {
  return requestAttributes(agent, resolveRequestInfo(method, new URL(target, 'https://x'), decodeRequestPath(target)))
}

describe('authorization of a request as the reference resolves it', () => {
  const cache = new PolicyCache()
  cache.put({ apiVersion: RBAC, kind: 'Role', metadata: { name: 'one-secret', namespace: 'ns' }, rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'] }] } as KubeObject)
  cache.put({
    apiVersion: RBAC,
    kind: 'RoleBinding',
    metadata: { name: 'agent-one-secret', namespace: 'ns' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'one-secret' },
    subjects: [{ kind: 'User', name: 'agent' }],
  } as KubeObject)
  const rbac = new RbacAuthorizer(cache)

  it('requestinfo.go: a Role with resourceNames allows the list and the watch of that one object by field selector', () => {
    for (const target of ['/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Ds1', '/api/v1/namespaces/ns/secrets?watch=1&fieldSelector=metadata.name%3Ds1&resourceVersion=0']) {
      const a = attributes('GET', target)
      assert.equal(a.name, 's1', target)
      assert.equal(rbac.authorize(a).decision, 'allow', target)
    }
    // The whole collection, another name, the deprecated /watch/ path: not that object.
    for (const target of ['/api/v1/namespaces/ns/secrets', '/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Ds2', '/api/v1/watch/namespaces/ns/secrets?fieldSelector=metadata.name%3Ds1']) {
      assert.equal(rbac.authorize(attributes('GET', target)).decision, 'noOpinion', target)
    }
  })

  it('responsewriters/errors.go: the 403 of such a list names the object as NewForbidden words it', () => {
    const status = requestForbidden(attributes('GET', '/api/v1/namespaces/ns/secrets?watch=true&fieldSelector=metadata.name%3Ds2'))
    assert.equal(status.message, 'secrets "s2" is forbidden: User "agent" cannot watch resource "secrets" in API group "" in the namespace "ns"')
    assert.deepEqual(status.details, { name: 's2', kind: 'secrets' })
  })

  it('authorization.go: the field selector reaches the authorizers for list, watch and deletecollection only', () => {
    assert.equal(attributes('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1').fieldSelector, 'spec.nodeName=n1')
    assert.equal(attributes('DELETE', '/api/v1/namespaces/ns/pods?fieldSelector=spec.nodeName%3Dn1').fieldSelector, 'spec.nodeName=n1')
    assert.equal(attributes('GET', '/api/v1/namespaces/ns/pods/p?fieldSelector=spec.nodeName%3Dn1').fieldSelector, undefined)
    assert.equal(attributes('GET', '/api/v1/watch/pods?fieldSelector=spec.nodeName%3Dn1').fieldSelector, undefined)
  })

  it('errors.go: odd paths and names are quoted with Go\'s %q and HTML-escaped', () => {
    const path = requestForbidden(attributes('GET', '/logs/%7f%00<x>'))
    assert.equal(path.message, 'forbidden: User "agent" cannot get path "/logs/\\x7f\\x00&lt;x&gt;"')
    const odd = requestForbidden(attributes('GET', '/api/v1/namespaces/%e2%80%8b/pods'))
    assert.equal(odd.message, 'pods is forbidden: User "agent" cannot list resource "pods" in API group "" in the namespace "\\u200b"')
    // A resource request without a resource but with a group: `.apps`, as GroupResource.String() has it.
    const noResource = requestForbidden(attributes('GET', '/apis/apps/v1//x'))
    assert.equal(noResource.message, '.apps "x" is forbidden: User "agent" cannot get resource "" in API group "apps" at the cluster scope')
  })
})
