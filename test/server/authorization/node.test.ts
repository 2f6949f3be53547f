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
    // The reference's NodeIdentifier: a node needs both the group and the `system:node:` prefix.
    assert.deepEqual(a.authorize({ ...attrs, user: { name: 'jane', groups: ['system:nodes'] } }), { decision: 'noOpinion' })
    assert.deepEqual(a.authorize({ ...attrs, user: { name: 'system:node:', groups: ['system:nodes'] } }), { decision: 'noOpinion', reason: 'unknown node for user "system:node:"' })
  })

  describe('volumes, attachments, claims, leases, CSINodes, slices, its Node and its pods', () => {
    const g = new NodeGraph()
    g.setPod(
      pod('db', 'n1', {
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'db-data' } }],
        resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }, { name: 'tpl', resourceClaimTemplateName: 't' }],
      }),
    )
    g.setPod({ ...pod('db2', 'n1', { resourceClaims: [{ name: 'tpl', resourceClaimTemplateName: 't' }] }), status: { resourceClaimStatuses: [{ name: 'tpl', resourceClaimName: 'db2-tpl-x7' }] } })
    const pv = (name: string, claim: string, csi: Record<string, unknown> = {}) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name },
      spec: { claimRef: { namespace: 'app', name: claim }, csi: { driver: 'd', volumeHandle: 'h', ...csi } },
    })
    g.setPersistentVolume(pv('pv-db', 'db-data', { nodePublishSecretRef: { name: 'csi-creds', namespace: 'storage' }, nodeStageSecretRef: { name: 'stage-creds' } }))
    g.setPersistentVolume(pv('pv-other', 'other-claim', { nodePublishSecretRef: { name: 'other-creds', namespace: 'storage' } }))
    g.setVolumeAttachment({ apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va-1' }, spec: { nodeName: 'n1' } })
    g.setVolumeAttachment({ apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va-2' }, spec: { nodeName: 'n2' } })
    g.setResourceSlice({ apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name: 'slice-1' }, spec: { nodeName: 'n1' } })
    const rules = [{ verbs: ['create', 'patch', 'update'], apiGroups: [''], resources: ['events'] }]
    const a = new NodeAuthorizer(g, rules)
    const ask = (fields: Parameters<typeof resourceAttributes>[1] & { fieldSelector?: string }, user = node1) => a.authorize({ ...resourceAttributes(user, fields), ...(fields.fieldSelector ? { fieldSelector: fields.fieldSelector } : {}) })

    it('a persistent volume through its claim, and the secrets the volume names', () => {
      assert.equal(ask({ verb: 'get', resource: 'persistentvolumes', name: 'pv-db' }).decision, 'allow')
      assert.equal(ask({ verb: 'get', resource: 'persistentvolumes', name: 'pv-db' }, node2).decision, 'noOpinion')
      assert.equal(ask({ verb: 'get', resource: 'persistentvolumes', name: 'pv-other' }).decision, 'noOpinion')
      assert.deepEqual(ask({ verb: 'list', resource: 'persistentvolumes' }), { decision: 'noOpinion', reason: 'can only get individual resources of this type' })
      assert.equal(ask({ verb: 'get', resource: 'secrets', name: 'csi-creds', namespace: 'storage' }).decision, 'allow')
      assert.equal(ask({ verb: 'get', resource: 'secrets', name: 'stage-creds', namespace: 'app' }).decision, 'allow', "a reference without a namespace is in the claim's")
      assert.equal(ask({ verb: 'get', resource: 'secrets', name: 'other-creds', namespace: 'storage' }).decision, 'noOpinion')
      g.deletePersistentVolume(pv('pv-db', 'db-data'))
      assert.equal(ask({ verb: 'get', resource: 'secrets', name: 'csi-creds', namespace: 'storage' }).decision, 'noOpinion')
      g.setPersistentVolume(pv('pv-db', 'db-data', { nodePublishSecretRef: { name: 'csi-creds', namespace: 'storage' }, nodeStageSecretRef: { name: 'stage-creds' } }))
    })

    it('claim status updates, volume attachments and resource claims of its pods', () => {
      assert.equal(ask({ verb: 'patch', resource: 'persistentvolumeclaims', subresource: 'status', name: 'db-data', namespace: 'app' }).decision, 'allow')
      assert.deepEqual(ask({ verb: 'get', resource: 'persistentvolumeclaims', subresource: 'status', name: 'db-data', namespace: 'app' }), { decision: 'noOpinion', reason: 'can only get/update/patch this type' })
      assert.equal(ask({ verb: 'get', resource: 'volumeattachments', apiGroup: 'storage.k8s.io', name: 'va-1' }).decision, 'allow')
      assert.equal(ask({ verb: 'get', resource: 'volumeattachments', apiGroup: 'storage.k8s.io', name: 'va-2' }).decision, 'noOpinion')
      assert.equal(ask({ verb: 'get', resource: 'resourceclaims', apiGroup: 'resource.k8s.io', name: 'gpu-claim', namespace: 'app' }).decision, 'allow')
      assert.equal(ask({ verb: 'get', resource: 'resourceclaims', apiGroup: 'resource.k8s.io', name: 'db2-tpl-x7', namespace: 'app' }).decision, 'allow')
      assert.equal(ask({ verb: 'get', resource: 'resourceclaims', apiGroup: 'resource.k8s.io', name: 'gpu-claim', namespace: 'app' }, node2).decision, 'noOpinion')
    })

    it('its own lease in kube-node-lease and its own CSINode', () => {
      const lease = (verb: string, name: string, namespace = 'kube-node-lease') => ask({ verb, resource: 'leases', apiGroup: 'coordination.k8s.io', name, namespace })
      assert.equal(lease('update', 'n1').decision, 'allow')
      assert.equal(lease('create', '').decision, 'allow')
      assert.deepEqual(lease('update', 'n2'), { decision: 'noOpinion', reason: 'can only access node lease with the same name as the requesting node' })
      assert.deepEqual(lease('get', 'n1', 'default'), { decision: 'noOpinion', reason: 'can only access leases in the "kube-node-lease" system namespace' })
      assert.deepEqual(lease('list', ''), { decision: 'noOpinion', reason: 'can only get, create, update, patch, or delete a node lease' })
      assert.equal(ask({ verb: 'patch', resource: 'csinodes', apiGroup: 'storage.k8s.io', name: 'n1' }).decision, 'allow')
      assert.deepEqual(ask({ verb: 'get', resource: 'csinodes', apiGroup: 'storage.k8s.io', name: 'n2' }), { decision: 'noOpinion', reason: 'can only access CSINode with the same name as the requesting node' })
    })

    it('its resource slices, listed only with its nodeName field selector', () => {
      assert.equal(ask({ verb: 'update', resource: 'resourceslices', apiGroup: 'resource.k8s.io', name: 'slice-1' }).decision, 'allow')
      assert.equal(ask({ verb: 'update', resource: 'resourceslices', apiGroup: 'resource.k8s.io', name: 'slice-1' }, node2).decision, 'noOpinion')
      assert.equal(ask({ verb: 'list', resource: 'resourceslices', apiGroup: 'resource.k8s.io', fieldSelector: 'nodeName=n1' }).decision, 'allow')
      assert.deepEqual(ask({ verb: 'list', resource: 'resourceslices', apiGroup: 'resource.k8s.io' }), {
        decision: 'noOpinion',
        reason: 'can only list/watch/deletecollection resourceslices with nodeName field selector',
      })
    })

    it('its Node by name, its pods by spec.nodeName, and the static rules for the rest', () => {
      assert.equal(ask({ verb: 'get', resource: 'nodes', name: 'n1' }).decision, 'allow')
      assert.deepEqual(ask({ verb: 'get', resource: 'nodes', name: 'n2' }), { decision: 'noOpinion', reason: "node 'n1' cannot read 'n2', only its own Node object" })
      assert.deepEqual(ask({ verb: 'list', resource: 'nodes' }), { decision: 'noOpinion', reason: "node 'n1' cannot read all nodes, only its own Node object" })
      assert.equal(ask({ verb: 'patch', resource: 'nodes', subresource: 'status', name: 'n1' }).decision, 'allow')
      assert.equal(ask({ verb: 'watch', resource: 'pods', fieldSelector: 'spec.nodeName=n1' }).decision, 'allow')
      assert.equal(ask({ verb: 'list', resource: 'pods', namespace: 'app', fieldSelector: 'metadata.name=db,spec.nodeName==n1' }).decision, 'allow')
      assert.deepEqual(ask({ verb: 'list', resource: 'pods', fieldSelector: 'spec.nodeName=n2' }), { decision: 'noOpinion', reason: 'can only list/watch pods with spec.nodeName field selector' })
      assert.equal(ask({ verb: 'create', resource: 'pods', subresource: 'eviction', name: 'db', namespace: 'app' }).decision, 'allow')
      assert.equal(ask({ verb: 'update', resource: 'pods', name: 'db', namespace: 'app' }).decision, 'noOpinion')
      assert.equal(ask({ verb: 'create', resource: 'events', namespace: 'app' }).decision, 'allow')
      assert.equal(ask({ verb: 'delete', resource: 'events', namespace: 'app' }).decision, 'noOpinion')
    })
  })
})
