import assert from 'node:assert/strict'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { resourceAttributes } from '../../../src/server/authorization/authorizer.js'
import { PolicyCache } from '../../../src/server/authorization/rbac-policy.js'
import { RbacAuthorizer } from '../../../src/server/authorization/rbac.js'
import { bootstrapRbac } from '../../../src/server/bootstrap/rbac.js'

/**
 * The controllers of the reference's testdata/controller-role-bindings.yaml (default feature
 * gates), in its (alphabetical) order; podcheckpoint-controller, added there after v1.35, is not.
 */
const REFERENCE_CONTROLLERS = [
  'attachdetach-controller',
  'certificate-controller',
  'clusterrole-aggregation-controller',
  'cronjob-controller',
  'daemon-set-controller',
  'deployment-controller',
  'disruption-controller',
  'endpoint-controller',
  'endpointslice-controller',
  'endpointslicemirroring-controller',
  'ephemeral-volume-controller',
  'expand-controller',
  'generic-garbage-collector',
  'horizontal-pod-autoscaler',
  'job-controller',
  'legacy-service-account-token-cleaner',
  'namespace-controller',
  'node-controller',
  'persistent-volume-binder',
  'pod-garbage-collector',
  'pv-protection-controller',
  'pvc-protection-controller',
  'replicaset-controller',
  'replication-controller',
  'resource-claim-controller',
  'resourcequota-controller',
  'root-ca-cert-publisher',
  'route-controller',
  'selinux-warning-controller',
  'service-account-controller',
  'service-cidrs-controller',
  'service-controller',
  'statefulset-controller',
  'ttl-after-finished-controller',
  'ttl-controller',
  'validatingadmissionpolicy-status-controller',
  'volumeattributesclass-protection-controller',
]

const objects = () => bootstrapRbac().map((b) => b.object as KubeObject & { rules?: unknown[]; subjects?: unknown[]; roleRef?: unknown })

describe('bootstrap policy: the controllers roles', () => {
  it('has a system:controller: ClusterRole and binding for every controller of the reference', () => {
    const names = (kind: string) =>
      objects()
        .filter((o) => o.kind === kind && o.metadata.name!.startsWith('system:controller:'))
        .map((o) => o.metadata.name!.slice('system:controller:'.length))
        .sort()
    assert.deepEqual(names('ClusterRole'), REFERENCE_CONTROLLERS)
    assert.deepEqual(names('ClusterRoleBinding'), REFERENCE_CONTROLLERS)
  })

  it('binds each to its service account in kube-system, with the defaults labels and autoupdate', () => {
    const binding = objects().find((o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === 'system:controller:job-controller')!
    assert.deepEqual(binding.metadata.labels, { 'kubernetes.io/bootstrapping': 'rbac-defaults' })
    assert.deepEqual(binding.metadata.annotations, { 'rbac.authorization.kubernetes.io/autoupdate': 'true' })
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:controller:job-controller' })
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'job-controller', namespace: 'kube-system' }])
  })

  it('writes rules as the reference testdata does (sorted lists)', () => {
    const role = objects().find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'system:controller:clusterrole-aggregation-controller')!
    assert.deepEqual(role.rules, [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['escalate', 'get', 'list', 'patch', 'update', 'watch'] }])
    const certificates = objects().find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'system:controller:certificate-controller')!
    assert.deepEqual(certificates.rules![3], {
      apiGroups: ['certificates.k8s.io'],
      resources: ['signers'],
      resourceNames: ['kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving', 'kubernetes.io/legacy-unknown'],
      verbs: ['sign'],
    })
  })

  it('RBAC grants the controllers service accounts their powers, and nothing more', () => {
    const rbac = new RbacAuthorizer(PolicyCache.withFallback(objects()))
    const sa = (name: string) => ({ name: `system:serviceaccount:kube-system:${name}`, groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] })
    const decide = (who: string, verb: string, resource: string, apiGroup = '', namespace = 'team') =>
      (rbac.authorize(resourceAttributes(sa(who), { verb, resource, apiGroup, namespace })) as { decision: string }).decision
    assert.equal(decide('job-controller', 'create', 'pods'), 'allow')
    assert.equal(decide('job-controller', 'update', 'jobs', 'batch'), 'allow')
    assert.equal(decide('job-controller', 'get', 'secrets'), 'noOpinion')
    assert.equal(decide('namespace-controller', 'deletecollection', 'widgets', 'example.com'), 'allow')
    assert.equal(decide('generic-garbage-collector', 'create', 'pods'), 'noOpinion')
  })
})
