/**
 * The default cluster roles and bindings (the reference's rbac/bootstrap-roles hook): the
 * user-facing roles and the system roles that let anyone discover the API and probe health.
 */
import type { BootstrapObject } from './objects.js'

type Rule = { apiGroups?: string[]; resources?: string[]; verbs: string[]; nonResourceURLs?: string[] }

const READ = ['get', 'list', 'watch']
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update']

function clusterRole(name: string, rules: Rule[], extra: Record<string, unknown> = {}): BootstrapObject {
  return {
    key: `/clusterroles/${name}`,
    object: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
      rules,
      ...extra,
    },
  }
}

function clusterRoleBinding(name: string, role: string, subjects: Array<{ kind: string; name: string }>): BootstrapObject {
  return {
    key: `/clusterrolebindings/${name}`,
    object: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: subjects.map((s) => ({ apiGroup: 'rbac.authorization.k8s.io', ...s })),
    },
  }
}

const group = (name: string) => ({ kind: 'Group', name })

const WORKLOADS = ['pods', 'pods/log', 'pods/status', 'services', 'endpoints', 'configmaps', 'secrets', 'serviceaccounts', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'events', 'limitranges', 'resourcequotas', 'podtemplates']
const APPS = ['deployments', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale', 'daemonsets', 'controllerrevisions']

export function bootstrapRbac(): BootstrapObject[] {
  return [
    clusterRole('cluster-admin', [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]),
    clusterRole('admin', [
      { apiGroups: [''], resources: WORKLOADS, verbs: [...READ, ...WRITE] },
      { apiGroups: ['apps'], resources: APPS, verbs: [...READ, ...WRITE] },
      { apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], verbs: [...READ, ...WRITE] },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'networkpolicies'], verbs: [...READ, ...WRITE] },
      { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: [...READ, ...WRITE] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: [...READ, ...WRITE] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: [...READ, ...WRITE] },
    ]),
    clusterRole('edit', [
      { apiGroups: [''], resources: WORKLOADS, verbs: [...READ, ...WRITE] },
      { apiGroups: ['apps'], resources: APPS, verbs: [...READ, ...WRITE] },
      { apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], verbs: [...READ, ...WRITE] },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'networkpolicies'], verbs: [...READ, ...WRITE] },
      { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: [...READ, ...WRITE] },
    ]),
    clusterRole('view', [
      { apiGroups: [''], resources: WORKLOADS.filter((r) => r !== 'secrets'), verbs: READ },
      { apiGroups: ['apps'], resources: APPS, verbs: READ },
      { apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], verbs: READ },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'networkpolicies'], verbs: READ },
      { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: READ },
    ]),
    clusterRole('system:discovery', [
      { nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], verbs: ['get'] },
    ]),
    clusterRole('system:basic-user', [
      { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ]),
    clusterRole('system:public-info-viewer', [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }]),
    clusterRole('system:monitoring', [
      { nonResourceURLs: ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'], verbs: ['get'] },
    ]),
    clusterRoleBinding('cluster-admin', 'cluster-admin', [group('system:masters')]),
    clusterRoleBinding('system:discovery', 'system:discovery', [group('system:authenticated')]),
    clusterRoleBinding('system:basic-user', 'system:basic-user', [group('system:authenticated')]),
    clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    clusterRoleBinding('system:monitoring', 'system:monitoring', [group('system:monitoring')]),
  ]
}
