import assert from 'node:assert/strict'
import { resourceAttributes } from '../../../src/server/authorization/authorizer.js'
import { NodeAuthorizer, NodeGraph } from '../../../src/server/authorization/node.js'

const node1 = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] }
const node2 = { name: 'system:node:n2', groups: ['system:nodes', 'system:authenticated'] }

function pod(name: string, nodeName: string, spec: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'app' }, spec: { nodeName, containers: [], ...spec } }
}

describe('Node authorizer', () => {
  const graph = new NodeGraph()
  graph.setPod(
    pod('web', 'n1', {
      serviceAccountName: 'web-sa',
      containers: [{ name: 'c', env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'db-password', key: 'p' } } }], envFrom: [{ configMapRef: { name: 'settings' } }] }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'web-data' } }, { name: 'tls', secret: { secretName: 'web-tls' } }],
    }),
  )
  graph.setPod(pod('unscheduled', '', { volumes: [{ name: 'x', secret: { secretName: 'pending-secret' } }] }))
  const authz = new NodeAuthorizer(graph)
  const read = (user: typeof node1, resource: string, name: string, verb = 'get', namespace = 'app') => authz.authorize(resourceAttributes(user, { verb, resource, name, namespace })).decision

  it('reads only what its pods use', () => {
    assert.equal(read(node1, 'secrets', 'db-password'), 'allow')
    assert.equal(read(node1, 'secrets', 'web-tls'), 'allow')
    assert.equal(read(node1, 'configmaps', 'settings', 'watch'), 'allow')
    assert.equal(read(node1, 'persistentvolumeclaims', 'web-data'), 'allow')
    assert.equal(read(node1, 'pods', 'web'), 'allow')
    assert.equal(read(node1, 'secrets', 'other'), 'noOpinion')
    assert.equal(read(node1, 'secrets', 'db-password', 'get', 'elsewhere'), 'noOpinion')
    assert.equal(read(node1, 'secrets', 'pending-secret'), 'noOpinion')
  })
  it("another node reaches nothing of those pods, and the reason says so", () => {
    assert.deepEqual(authz.authorize(resourceAttributes(node2, { verb: 'get', resource: 'secrets', name: 'db-password', namespace: 'app' })), {
      decision: 'noOpinion',
      reason: "no relationship found between node 'n2' and this object",
    })
  })
  it('writes are not for this mode; tokens only for its service accounts', () => {
    assert.deepEqual(authz.authorize(resourceAttributes(node1, { verb: 'update', resource: 'secrets', name: 'db-password', namespace: 'app' })), { decision: 'noOpinion', reason: 'can only read resources of this type' })
    assert.equal(authz.authorize(resourceAttributes(node1, { verb: 'create', resource: 'serviceaccounts', subresource: 'token', name: 'web-sa', namespace: 'app' })).decision, 'allow')
    assert.equal(authz.authorize(resourceAttributes(node2, { verb: 'create', resource: 'serviceaccounts', subresource: 'token', name: 'web-sa', namespace: 'app' })).decision, 'noOpinion')
  })
  it('forgets a deleted pod, and ignores users who are not nodes', () => {
    const g = new NodeGraph()
    g.setPod(pod('p', 'n1', { volumes: [{ name: 's', secret: { secretName: 's1' } }] }))
    const a = new NodeAuthorizer(g)
    const attrs = resourceAttributes(node1, { verb: 'get', resource: 'secrets', name: 's1', namespace: 'app' })
    assert.equal(a.authorize(attrs).decision, 'allow')
    g.deletePod(pod('p', 'n1'))
    assert.equal(a.authorize(attrs).decision, 'noOpinion')
    assert.deepEqual(a.authorize({ ...attrs, user: { name: 'jane', groups: [] } }), { decision: 'noOpinion' })
    assert.deepEqual(a.authorize({ ...attrs, user: { name: 'jane', groups: ['system:nodes'] } }), { decision: 'noOpinion', reason: 'unknown node' })
  })
})
