/**
 * The controllers' roles of the reference's bootstrap policy (bootstrappolicy/controller_policy.go):
 * one `system:controller:<name>` ClusterRole per kube-controller-manager controller, bound to the
 * `<name>` service account in kube-system, as the controller manager runs each controller with
 * `--use-service-account-credentials`. The set is the reference's with its default feature gates
 * (v1.35): the roles of alpha or default-off features (device taints, pod certificates, cluster
 * trust bundles, storage versions and their migrator) are not created. They carry the same
 * labels and autoupdate annotation as the other defaults and are reconciled with them.
 */
import type { BootstrapObject } from '../api/bootstrap/object.js'

type Rule = { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] }

const RBAC_API = 'rbac.authorization.k8s.io'
const PREFIX = 'system:controller:'

// The API groups as the reference's policy names them.
const CORE = ''
const APPS = 'apps'
const EXTENSIONS = 'extensions'
const BATCH = 'batch'
const POLICY = 'policy'
const STORAGE = 'storage.k8s.io'
const DISCOVERY = 'discovery.k8s.io'
const RESOURCE = 'resource.k8s.io'
const NETWORKING = 'networking.k8s.io'
const CERTIFICATES = 'certificates.k8s.io'
const AUTOSCALING = 'autoscaling'

/** A rule as rbacv1helpers.NewRule(...).RuleOrDie() builds it: every list sorted. */
function rule(verbs: string[], groups: string[], resources: string[], names?: string[]): Rule {
  const sorted = (values: string[]) => [...values].sort()
  return { apiGroups: sorted(groups), resources: sorted(resources), ...(names ? { resourceNames: sorted(names) } : {}), verbs: sorted(verbs) }
}

/** The reference's eventsRule(): every controller may record events. */
const EVENTS = rule(['create', 'update', 'patch'], [CORE, 'events.k8s.io'], ['events'])
const READ = ['get', 'list', 'watch']

/** [controller (the service account's name), its rules], in the reference's order. */
const CONTROLLERS: Array<[string, Rule[]]> = [
  [
    'attachdetach-controller',
    [
      rule(['list', 'watch'], [CORE], ['persistentvolumes', 'persistentvolumeclaims']),
      rule(READ, [CORE], ['nodes']),
      rule(['patch', 'update'], [CORE], ['nodes/status']),
      rule(['list', 'watch'], [CORE], ['pods']),
      EVENTS,
      rule(['get', 'create', 'delete', 'list', 'watch'], [STORAGE], ['volumeattachments']),
      rule(READ, [STORAGE], ['csidrivers']),
      rule(READ, [STORAGE], ['csinodes']),
    ],
  ],
  // Full powers on cluster roles, so that it can write any aggregated rule.
  ['clusterrole-aggregation-controller', [rule(['escalate', 'get', 'list', 'watch', 'update', 'patch'], [RBAC_API], ['clusterroles'])]],
  [
    'cronjob-controller',
    [
      rule(['get', 'list', 'watch', 'update'], [BATCH], ['cronjobs']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], [BATCH], ['jobs']),
      rule(['update'], [BATCH], ['cronjobs/status']),
      rule(['update'], [BATCH], ['cronjobs/finalizers']),
      rule(['list', 'watch', 'delete'], [CORE], ['pods']),
      EVENTS,
    ],
  ],
  [
    'daemon-set-controller',
    [
      rule(READ, [EXTENSIONS, APPS], ['daemonsets']),
      rule(['update'], [EXTENSIONS, APPS], ['daemonsets/status']),
      rule(['update'], [EXTENSIONS, APPS], ['daemonsets/finalizers']),
      rule(['list', 'watch'], [CORE], ['nodes']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], [CORE], ['pods']),
      rule(['create'], [CORE], ['pods/binding']),
      rule(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], [APPS], ['controllerrevisions']),
      EVENTS,
    ],
  ],
  [
    'deployment-controller',
    [
      rule(['get', 'list', 'watch', 'update'], [EXTENSIONS, APPS], ['deployments']),
      rule(['update'], [EXTENSIONS, APPS], ['deployments/status']),
      rule(['update'], [EXTENSIONS, APPS], ['deployments/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], [APPS, EXTENSIONS], ['replicasets']),
      rule(['get', 'list', 'watch', 'update'], [CORE], ['pods']),
      EVENTS,
    ],
  ],
  [
    'disruption-controller',
    [
      rule(READ, [EXTENSIONS, APPS], ['deployments']),
      rule(READ, [APPS, EXTENSIONS], ['replicasets']),
      rule(READ, [CORE], ['replicationcontrollers']),
      rule(READ, [POLICY], ['poddisruptionbudgets']),
      rule(READ, [APPS], ['statefulsets']),
      rule(['update'], [POLICY], ['poddisruptionbudgets/status']),
      rule(['patch', 'update'], [CORE], ['pods/status']),
      rule(['get'], ['*'], ['*/scale']),
      EVENTS,
    ],
  ],
  [
    'endpoint-controller',
    [
      rule(READ, [CORE], ['services', 'pods']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete'], [CORE], ['endpoints']),
      rule(['create'], [CORE], ['endpoints/restricted']),
      EVENTS,
    ],
  ],
  [
    'endpointslice-controller',
    [
      rule(READ, [CORE], ['services', 'pods', 'nodes']),
      // Its slices are owned by the service with blockOwnerDeletion, which needs the finalizers.
      rule(['update'], [CORE], ['services/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete'], [DISCOVERY], ['endpointslices']),
      EVENTS,
    ],
  ],
  [
    'endpointslicemirroring-controller',
    [
      rule(READ, [CORE], ['services', 'endpoints']),
      rule(['update'], [CORE], ['services/finalizers']),
      rule(['update'], [CORE], ['endpoints/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete'], [DISCOVERY], ['endpointslices']),
      EVENTS,
    ],
  ],
  [
    'expand-controller',
    [
      rule(['get', 'list', 'watch', 'update', 'patch'], [CORE], ['persistentvolumes']),
      rule(['update', 'patch'], [CORE], ['persistentvolumeclaims/status']),
      rule(READ, [CORE], ['persistentvolumeclaims']),
      EVENTS,
      rule(['get'], [CORE], ['services']),
    ],
  ],
  [
    'ephemeral-volume-controller',
    [
      rule(READ, [CORE], ['pods']),
      rule(['update'], [CORE], ['pods/finalizers']),
      rule(['get', 'list', 'watch', 'create'], [CORE], ['persistentvolumeclaims']),
      EVENTS,
    ],
  ],
  [
    'resource-claim-controller',
    [
      rule(READ, [CORE], ['pods']),
      rule(['update'], [CORE], ['pods/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'delete'], [RESOURCE], ['resourceclaims']),
      rule(['update', 'patch'], [RESOURCE], ['resourceclaims', 'resourceclaims/status']),
      rule(['update', 'patch'], [CORE], ['pods/status']),
      EVENTS,
    ],
  ],
  // List, watch, selective gets and updates against any resource.
  ['generic-garbage-collector', [rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']), EVENTS]],
  [
    'horizontal-pod-autoscaler',
    [
      rule(READ, [AUTOSCALING], ['horizontalpodautoscalers']),
      rule(['update'], [AUTOSCALING], ['horizontalpodautoscalers/status']),
      rule(['get', 'update'], ['*'], ['*/scale']),
      rule(['list', 'watch'], [CORE], ['pods']),
      rule(['list', 'watch'], ['metrics.k8s.io'], ['pods']),
      rule(READ, ['custom.metrics.k8s.io'], ['*']),
      rule(READ, ['external.metrics.k8s.io'], ['*']),
      EVENTS,
    ],
  ],
  [
    'job-controller',
    [
      rule(['get', 'list', 'watch', 'update', 'patch'], [BATCH], ['jobs']),
      rule(['update'], [BATCH], ['jobs/status']),
      rule(['update'], [BATCH], ['jobs/finalizers']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], [CORE], ['pods']),
      EVENTS,
    ],
  ],
  [
    'namespace-controller',
    [
      rule(['get', 'list', 'watch', 'delete'], [CORE], ['namespaces']),
      rule(['update'], [CORE], ['namespaces/finalize', 'namespaces/status']),
      rule(['get', 'list', 'watch', 'delete', 'deletecollection'], ['*'], ['*']),
    ],
  ],
  [
    'node-controller',
    [
      rule(['get', 'list', 'watch', 'update', 'delete', 'patch'], [CORE], ['nodes']),
      rule(['patch', 'update'], [CORE], ['nodes/status']),
      rule(['patch', 'update'], [CORE], ['pods/status']),
      rule(['list', 'watch', 'get', 'delete'], [CORE], ['pods']),
      EVENTS,
    ],
  ],
  [
    'persistent-volume-binder',
    [
      rule(['get', 'list', 'watch', 'update', 'create', 'delete'], [CORE], ['persistentvolumes']),
      rule(['update'], [CORE], ['persistentvolumes/status']),
      rule(['get', 'list', 'watch', 'update'], [CORE], ['persistentvolumeclaims']),
      rule(['update'], [CORE], ['persistentvolumeclaims/status']),
      rule(['list', 'watch', 'get', 'create', 'delete'], [CORE], ['pods']),
      rule(READ, [STORAGE], ['storageclasses']),
      rule(['list', 'watch'], [CORE], ['nodes']),
      EVENTS,
      rule(['watch'], [CORE], ['events']),
      rule(['get'], [CORE], ['services']),
    ],
  ],
  ['pod-garbage-collector', [rule(['list', 'watch', 'delete'], [CORE], ['pods']), rule(READ, [CORE], ['nodes']), rule(['patch'], [CORE], ['pods/status'])]],
  [
    'replicaset-controller',
    [
      rule(['get', 'list', 'watch', 'update'], [APPS, EXTENSIONS], ['replicasets']),
      rule(['update'], [APPS, EXTENSIONS], ['replicasets/status']),
      rule(['update'], [APPS, EXTENSIONS], ['replicasets/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], [CORE], ['pods']),
      EVENTS,
    ],
  ],
  [
    'replication-controller',
    [
      rule(['get', 'list', 'watch', 'update'], [CORE], ['replicationcontrollers']),
      rule(['update'], [CORE], ['replicationcontrollers/status']),
      rule(['update'], [CORE], ['replicationcontrollers/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], [CORE], ['pods']),
      EVENTS,
    ],
  ],
  // Quota counts anything, so it reads everything.
  ['resourcequota-controller', [rule(['list', 'watch'], ['*'], ['*']), rule(['update'], [CORE], ['resourcequotas/status']), EVENTS]],
  ['route-controller', [rule(['list', 'watch'], [CORE], ['nodes']), rule(['patch'], [CORE], ['nodes/status']), EVENTS]],
  ['service-account-controller', [rule(['create'], [CORE], ['serviceaccounts']), EVENTS]],
  ['service-controller', [rule(READ, [CORE], ['services']), rule(['patch', 'update'], [CORE], ['services/status']), rule(['list', 'watch'], [CORE], ['nodes']), EVENTS]],
  [
    'service-cidrs-controller',
    [
      rule(['get', 'list', 'watch', 'patch', 'update'], [NETWORKING], ['servicecidrs']),
      rule(['patch', 'update'], [NETWORKING], ['servicecidrs/finalizers']),
      rule(['patch', 'update'], [NETWORKING], ['servicecidrs/status']),
      rule(READ, [NETWORKING], ['ipaddresses']),
      EVENTS,
    ],
  ],
  [
    'statefulset-controller',
    [
      rule(['list', 'watch'], [CORE], ['pods']),
      rule(READ, [APPS], ['statefulsets']),
      rule(['update'], [APPS], ['statefulsets/status']),
      rule(['update'], [APPS], ['statefulsets/finalizers']),
      rule(['get', 'create', 'delete', 'update', 'patch'], [CORE], ['pods']),
      rule(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], [APPS], ['controllerrevisions']),
      rule(['get', 'create', 'list', 'watch'], [CORE], ['persistentvolumeclaims']),
      rule(['update', 'delete'], [CORE], ['persistentvolumeclaims']),
      rule(['update'], [CORE], ['pods/finalizers']),
      EVENTS,
    ],
  ],
  ['ttl-controller', [rule(['update', 'patch', 'list', 'watch'], [CORE], ['nodes']), EVENTS]],
  [
    'certificate-controller',
    [
      rule(['get', 'list', 'watch', 'delete'], [CERTIFICATES], ['certificatesigningrequests']),
      rule(['update'], [CERTIFICATES], ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
      rule(['approve'], [CERTIFICATES], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
      rule(
        ['sign'],
        [CERTIFICATES],
        ['signers'],
        ['kubernetes.io/legacy-unknown', 'kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving'],
      ),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      EVENTS,
    ],
  ],
  ['pvc-protection-controller', [rule(['get', 'list', 'watch', 'update'], [CORE], ['persistentvolumeclaims']), rule(['list', 'watch', 'get'], [CORE], ['pods']), EVENTS]],
  ['pv-protection-controller', [rule(['get', 'list', 'watch', 'update'], [CORE], ['persistentvolumes']), EVENTS]],
  [
    'volumeattributesclass-protection-controller',
    [
      rule(['list', 'watch', 'get'], [CORE], ['persistentvolumeclaims']),
      rule(['list', 'watch', 'get'], [CORE], ['persistentvolumes']),
      rule(['get', 'list', 'watch', 'update'], [STORAGE], ['volumeattributesclasses']),
      EVENTS,
    ],
  ],
  ['ttl-after-finished-controller', [rule(['get', 'list', 'watch', 'delete'], [BATCH], ['jobs']), EVENTS]],
  ['root-ca-cert-publisher', [rule(['create', 'update'], [CORE], ['configmaps']), EVENTS]],
  [
    'validatingadmissionpolicy-status-controller',
    [
      rule(READ, ['admissionregistration.k8s.io'], ['validatingadmissionpolicies']),
      rule(['get', 'patch', 'update'], ['admissionregistration.k8s.io'], ['validatingadmissionpolicies/status']),
      EVENTS,
    ],
  ],
  [
    'legacy-service-account-token-cleaner',
    [rule(['get'], [CORE], ['configmaps'], ['kube-apiserver-legacy-service-account-token-tracking']), rule(['patch', 'delete'], [CORE], ['secrets'])],
  ],
  [
    'selinux-warning-controller',
    [EVENTS, rule(READ, [CORE], ['persistentvolumes']), rule(READ, [CORE], ['persistentvolumeclaims']), rule(READ, [CORE], ['pods']), rule(READ, [STORAGE], ['csidrivers'])],
  ],
]

const metadata = (name: string) => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
})

/** The `system:controller:*` ClusterRoles. */
export function controllerClusterRoles(): BootstrapObject[] {
  return CONTROLLERS.map(([controller, rules]) => ({
    key: `/clusterroles/${PREFIX}${controller}`,
    object: { apiVersion: `${RBAC_API}/v1`, kind: 'ClusterRole', metadata: metadata(PREFIX + controller), rules: structuredClone(rules) },
  }))
}

/** Each role bound to its controller's service account in kube-system. */
export function controllerClusterRoleBindings(): BootstrapObject[] {
  return CONTROLLERS.map(([controller]) => ({
    key: `/clusterrolebindings/${PREFIX}${controller}`,
    object: {
      apiVersion: `${RBAC_API}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: metadata(PREFIX + controller),
      roleRef: { apiGroup: RBAC_API, kind: 'ClusterRole', name: PREFIX + controller },
      subjects: [{ kind: 'ServiceAccount', name: controller, namespace: 'kube-system' }],
    },
  }))
}
