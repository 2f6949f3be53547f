/**
 * The default roles and bindings (the reference's bootstrappolicy, as its testdata lists them):
 * the user-facing `cluster-admin`, `admin`, `edit` and `view` (the last three aggregated from
 * the `system:aggregate-to-*` roles), the roles of the system components, and the namespaced
 * roles of kube-system and kube-public (the controllers' own roles are in rbac-controller-policy.ts). Every object carries the `autoupdate` annotation: the
 * rbac/bootstrap-roles hook reconciles them on start-up (src/server/bootstrap/rbac.ts,
 * rbac-reconcile.ts). The policy lives with the RBAC authorizer, as the reference's does
 * (plugin/pkg/auth/authorizer/rbac/bootstrappolicy): the Node mode takes its rules from it.
 */
import type { BootstrapObject } from '../api/bootstrap/object.js'

type Rule = { apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; verbs: string[]; nonResourceURLs?: string[] }
type Subject = { kind: string; name: string; namespace?: string; apiGroup?: string }

const RBAC_API = 'rbac.authorization.k8s.io'
const READ = ['get', 'list', 'watch']
/** The write verbs of edit (everything but read). */
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update']
const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']
const EVENTS_WRITE = ['create', 'patch', 'update']

const AUTOUPDATE = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' }
const BOOTSTRAPPING = { 'kubernetes.io/bootstrapping': 'rbac-defaults' }
const AGGREGATE = (to: string) => ({ [`rbac.authorization.k8s.io/aggregate-to-${to}`]: 'true' })

/** A rule on resources: verbs, groups, resources (and optionally names). */
const r = (verbs: string[], groups: string[], resources: string[], resourceNames?: string[]): Rule => ({
  apiGroups: groups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
  verbs,
})
/** A rule on non-resource URLs. */
const urls = (verbs: string[], nonResourceURLs: string[]): Rule => ({ nonResourceURLs, verbs })

function clusterRole(name: string, rules: Rule[] | null, labels: Record<string, string> = {}, aggregateFrom?: string): BootstrapObject {
  return {
    key: `/clusterroles/${name}`,
    object: {
      apiVersion: `${RBAC_API}/v1`,
      kind: 'ClusterRole',
      metadata: { name, labels: { ...BOOTSTRAPPING, ...labels }, annotations: { ...AUTOUPDATE } },
      ...(aggregateFrom ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: AGGREGATE(aggregateFrom) }] } } : {}),
      ...(rules ? { rules } : {}),
    },
  }
}

function role(namespace: string, name: string, rules: Rule[]): BootstrapObject {
  return {
    key: `/roles/${namespace}/${name}`,
    object: { apiVersion: `${RBAC_API}/v1`, kind: 'Role', metadata: { name, namespace, labels: { ...BOOTSTRAPPING }, annotations: { ...AUTOUPDATE } }, rules },
  }
}

const roleRef = (kind: string, name: string) => ({ apiGroup: RBAC_API, kind, name })

function clusterRoleBinding(name: string, subjects: Subject[], roleName = name): BootstrapObject {
  return {
    key: `/clusterrolebindings/${name}`,
    object: {
      apiVersion: `${RBAC_API}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name, labels: { ...BOOTSTRAPPING }, annotations: { ...AUTOUPDATE } },
      roleRef: roleRef('ClusterRole', roleName),
      ...(subjects.length ? { subjects } : {}),
    },
  }
}

function roleBinding(namespace: string, name: string, roleName: string, subjects: Subject[]): BootstrapObject {
  return {
    key: `/rolebindings/${namespace}/${name}`,
    object: {
      apiVersion: `${RBAC_API}/v1`,
      kind: 'RoleBinding',
      metadata: { name, namespace, labels: { ...BOOTSTRAPPING }, annotations: { ...AUTOUPDATE } },
      roleRef: roleRef('Role', roleName),
      subjects,
    },
  }
}

const group = (name: string): Subject => ({ apiGroup: RBAC_API, kind: 'Group', name })
const user = (name: string): Subject => ({ apiGroup: RBAC_API, kind: 'User', name })
const serviceAccount = (name: string, namespace = 'kube-system'): Subject => ({ kind: 'ServiceAccount', name, namespace })

const TOKEN_AND_ACCESS_REVIEWS = [r(['create'], ['authentication.k8s.io'], ['tokenreviews']), r(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])]
const signerApprover = (signer: string) => r(['approve'], ['certificates.k8s.io'], ['signers'], [signer])
const LEADER_LOCKING = [r(['create', 'get', 'list', 'update', 'watch'], ['coordination.k8s.io'], ['leases']), r(['create', 'get', 'list', 'update', 'watch'], ['coordination.k8s.io'], ['leasecandidates'])]

export function bootstrapClusterRoles(): BootstrapObject[] {
  return [
    clusterRole('admin', null, {}, 'admin'),
    clusterRole('cluster-admin', [r(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
    clusterRole('edit', null, AGGREGATE('admin'), 'edit'),
    clusterRole(
      'system:aggregate-to-admin',
      [r(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']), r(ALL_VERBS, [RBAC_API], ['rolebindings', 'roles'])],
      AGGREGATE('admin'),
    ),
    clusterRole(
      'system:aggregate-to-edit',
      [
        r(READ, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
        r(['impersonate'], [''], ['serviceaccounts']),
        r(WRITE, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
        r(['create'], [''], ['pods/eviction']),
        r(WRITE, [''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy']),
        r(['create'], [''], ['serviceaccounts/token']),
        r(WRITE, ['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']),
        r(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
        r(WRITE, ['batch'], ['cronjobs', 'jobs']),
        r(WRITE, ['extensions'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale']),
        r(WRITE, ['policy'], ['poddisruptionbudgets']),
        r(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
        r(ALL_VERBS, ['coordination.k8s.io'], ['leases']),
      ],
      AGGREGATE('edit'),
    ),
    clusterRole(
      'system:aggregate-to-view',
      [
        r(READ, [''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status']),
        r(READ, [''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status']),
        r(READ, [''], ['namespaces']),
        r(READ, ['discovery.k8s.io'], ['endpointslices']),
        r(READ, ['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']),
        r(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
        r(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
        r(READ, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale']),
        r(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
        r(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
      ],
      AGGREGATE('view'),
    ),
    clusterRole('system:auth-delegator', TOKEN_AND_ACCESS_REVIEWS),
    clusterRole('system:basic-user', [r(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']), r(['create'], ['authentication.k8s.io'], ['selfsubjectreviews'])]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [r(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/nodeclient'])]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [r(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient'])]),
    clusterRole('system:certificates.k8s.io:kube-apiserver-client-approver', [signerApprover('kubernetes.io/kube-apiserver-client')]),
    clusterRole('system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', [signerApprover('kubernetes.io/kube-apiserver-client-kubelet')]),
    clusterRole('system:certificates.k8s.io:kubelet-serving-approver', [signerApprover('kubernetes.io/kubelet-serving')]),
    clusterRole('system:certificates.k8s.io:legacy-unknown-approver', [signerApprover('kubernetes.io/legacy-unknown')]),
    clusterRole('system:discovery', [urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'])]),
    clusterRole('system:heapster', [r(READ, [''], ['events', 'namespaces', 'nodes', 'pods']), r(READ, ['extensions'], ['deployments'])]),
    clusterRole('system:kube-aggregator', [r(READ, [''], ['endpoints', 'services'])]),
    clusterRole('system:kube-controller-manager', [
      r(EVENTS_WRITE, ['', 'events.k8s.io'], ['events']),
      r(['create'], ['coordination.k8s.io'], ['leases']),
      r(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-controller-manager']),
      r(['create'], [''], ['secrets', 'serviceaccounts']),
      r(['delete'], [''], ['secrets']),
      r(['get'], [''], ['configmaps', 'namespaces', 'secrets', 'serviceaccounts']),
      r(['update'], [''], ['secrets', 'serviceaccounts']),
      ...TOKEN_AND_ACCESS_REVIEWS,
      r(['list', 'watch'], ['*'], ['*']),
      r(['create'], [''], ['serviceaccounts/token']),
    ]),
    clusterRole('system:kube-dns', [r(['list', 'watch'], [''], ['endpoints', 'services'])]),
    clusterRole('system:kube-scheduler', [
      r(EVENTS_WRITE, ['', 'events.k8s.io'], ['events']),
      r(['create'], ['coordination.k8s.io'], ['leases']),
      r(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-scheduler']),
      r(READ, [''], ['nodes']),
      r(['delete', 'get', 'list', 'watch'], [''], ['pods']),
      r(['create'], [''], ['bindings', 'pods/binding']),
      r(['patch', 'update'], [''], ['pods/status']),
      r(READ, [''], ['replicationcontrollers', 'services']),
      r(READ, ['apps', 'extensions'], ['replicasets']),
      r(READ, ['apps'], ['statefulsets']),
      r(READ, ['policy'], ['poddisruptionbudgets']),
      r(READ, [''], ['persistentvolumeclaims', 'persistentvolumes']),
      ...TOKEN_AND_ACCESS_REVIEWS,
      r(READ, ['storage.k8s.io'], ['csinodes']),
      r(READ, [''], ['namespaces']),
      r(READ, ['storage.k8s.io'], ['csidrivers']),
      r(READ, ['storage.k8s.io'], ['csistoragecapacities']),
    ]),
    clusterRole('system:kubelet-api-admin', [r(READ, [''], ['nodes']), r(['proxy'], [''], ['nodes']), r(['*'], [''], ['nodes/log', 'nodes/metrics', 'nodes/proxy', 'nodes/stats'])]),
    clusterRole('system:monitoring', [urls(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'])]),
    clusterRole('system:node', [
      r(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      r(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews', 'subjectaccessreviews']),
      r(READ, [''], ['services']),
      r(['create', 'get', 'list', 'watch'], [''], ['nodes']),
      r(['patch', 'update'], [''], ['nodes/status']),
      r(['patch', 'update'], [''], ['nodes']),
      r(EVENTS_WRITE, [''], ['events']),
      r(READ, [''], ['pods']),
      r(['create', 'delete'], [''], ['pods']),
      r(['patch', 'update'], [''], ['pods/status']),
      r(['create'], [''], ['pods/eviction']),
      r(READ, [''], ['configmaps', 'secrets']),
      r(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
      r(['get'], [''], ['endpoints']),
      r(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
      r(['create', 'delete', 'get', 'patch', 'update'], ['coordination.k8s.io'], ['leases']),
      r(['get'], ['storage.k8s.io'], ['volumeattachments']),
      r(['create'], [''], ['serviceaccounts/token']),
      r(['get', 'patch', 'update'], [''], ['persistentvolumeclaims/status']),
      r(READ, ['storage.k8s.io'], ['csidrivers']),
      r(['create', 'delete', 'get', 'patch', 'update'], ['storage.k8s.io'], ['csinodes']),
      r(READ, ['node.k8s.io'], ['runtimeclasses']),
    ]),
    clusterRole('system:node-bootstrapper', [r(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests'])]),
    clusterRole('system:node-problem-detector', [r(['get'], [''], ['nodes']), r(['patch'], [''], ['nodes/status']), r(EVENTS_WRITE, ['', 'events.k8s.io'], ['events'])]),
    clusterRole('system:node-proxier', [
      r(['list', 'watch'], [''], ['endpoints', 'services']),
      r(READ, [''], ['nodes']),
      r(EVENTS_WRITE, ['', 'events.k8s.io'], ['events']),
      r(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
    ]),
    clusterRole('system:persistent-volume-provisioner', [
      r(['create', 'delete', 'get', 'list', 'watch'], [''], ['persistentvolumes']),
      r(['get', 'list', 'update', 'watch'], [''], ['persistentvolumeclaims']),
      r(READ, ['storage.k8s.io'], ['storageclasses']),
      r(['watch'], [''], ['events']),
      r(EVENTS_WRITE, ['', 'events.k8s.io'], ['events']),
    ]),
    clusterRole('system:public-info-viewer', [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])]),
    clusterRole('system:service-account-issuer-discovery', [urls(['get'], ['/.well-known/openid-configuration', '/openid/v1/jwks'])]),
    clusterRole('system:volume-scheduler', [
      r(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumes']),
      r(READ, ['storage.k8s.io'], ['storageclasses']),
      r(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumeclaims']),
    ]),
    clusterRole('view', null, AGGREGATE('edit'), 'view'),
  ]
}

/** The rules of the system:node role: what the Node mode allows every node (the reference's NodeRules). */
export function nodeRules(): Rule[] {
  const role = bootstrapClusterRoles().find((b) => b.key === '/clusterroles/system:node')!
  return (role.object as { rules: Rule[] }).rules
}

export function bootstrapClusterRoleBindings(): BootstrapObject[] {
  return [
    clusterRoleBinding('cluster-admin', [group('system:masters')]),
    clusterRoleBinding('system:basic-user', [group('system:authenticated')]),
    clusterRoleBinding('system:discovery', [group('system:authenticated')]),
    clusterRoleBinding('system:kube-controller-manager', [user('system:kube-controller-manager')]),
    clusterRoleBinding('system:kube-dns', [serviceAccount('kube-dns')]),
    clusterRoleBinding('system:kube-scheduler', [user('system:kube-scheduler')]),
    clusterRoleBinding('system:monitoring', [group('system:monitoring')]),
    // Bound to nobody: nodes are authorized by the Node mode.
    clusterRoleBinding('system:node', []),
    clusterRoleBinding('system:node-proxier', [user('system:kube-proxy')]),
    clusterRoleBinding('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    clusterRoleBinding('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
    clusterRoleBinding('system:volume-scheduler', [user('system:kube-scheduler')]),
  ]
}

export function bootstrapNamespaceRoles(): BootstrapObject[] {
  return [
    role('kube-public', 'system:controller:bootstrap-signer', [r(READ, [''], ['configmaps']), r(['update'], [''], ['configmaps'], ['cluster-info']), r(EVENTS_WRITE, ['', 'events.k8s.io'], ['events'])]),
    role('kube-system', 'extension-apiserver-authentication-reader', [r(READ, [''], ['configmaps'], ['extension-apiserver-authentication'])]),
    role('kube-system', 'system::leader-locking-kube-controller-manager', LEADER_LOCKING),
    role('kube-system', 'system::leader-locking-kube-scheduler', LEADER_LOCKING),
    role('kube-system', 'system:controller:bootstrap-signer', [r(READ, [''], ['secrets'])]),
    role('kube-system', 'system:controller:cloud-provider', [r(['create', 'get', 'list', 'watch'], [''], ['configmaps'])]),
    role('kube-system', 'system:controller:token-cleaner', [r(['delete', 'get', 'list', 'watch'], [''], ['secrets']), r(EVENTS_WRITE, ['', 'events.k8s.io'], ['events'])]),
  ]
}

export function bootstrapNamespaceRoleBindings(): BootstrapObject[] {
  return [
    roleBinding('kube-public', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount('bootstrap-signer')]),
    roleBinding('kube-system', 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader', [user('system:kube-controller-manager'), user('system:kube-scheduler')]),
    roleBinding('kube-system', 'system::leader-locking-kube-controller-manager', 'system::leader-locking-kube-controller-manager', [
      user('system:kube-controller-manager'),
      serviceAccount('kube-controller-manager'),
      serviceAccount('leader-election-controller'),
    ]),
    roleBinding('kube-system', 'system::leader-locking-kube-scheduler', 'system::leader-locking-kube-scheduler', [user('system:kube-scheduler'), serviceAccount('kube-scheduler')]),
    roleBinding('kube-system', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount('bootstrap-signer')]),
    roleBinding('kube-system', 'system:controller:cloud-provider', 'system:controller:cloud-provider', [serviceAccount('cloud-provider')]),
    roleBinding('kube-system', 'system:controller:token-cleaner', 'system:controller:token-cleaner', [serviceAccount('token-cleaner')]),
  ]
}
