#!/usr/bin/env node
// Derives invalid objects from the upstream OpenAPI document's constraints and writes them to
// test/fixtures/validation/generated-cases.json, which test/server/api/validation/generated.test.ts
// runs through the server's validation. The document is read here only, at generation time:
//   node scripts/generate-validation-cases.mjs [path/to/swagger.json]
// (default: ../shared/openapi/swagger.json from the project root, or ../../shared/... from a
// worktree).
//
// What the document states, and what each constraint becomes:
// - `required` property lists: the property removed from a valid object, expecting
//   `<path>: Required value` as the only error;
// - enumerations, which this document states only in prose in the descriptions ("One of Always,
//   OnFailure, Never", "Valid values are ...", "Must be UDP, TCP, or SCTP", ...): the value set
//   to "Bogus", expecting `Unsupported value: "Bogus": supported values: ...` with the list in
//   the order the reference's validation prints it (often a sorted set, not the description's
//   order): the REFERENCE_ENUMS table below, one entry per field, read in the reference;
// - `format: int32`: 2147483648, one past the largest int32, which the reference's JSON
//   decoding refuses (`json: cannot unmarshal number 2147483648 into Go struct field
//   <Struct>.<json path> of type int32`); `format: int64`: a fraction, 1.5, refused the same
//   way (an int64 overflow cannot be written exactly in a JavaScript number).
// A constraint is applied where a valid base object below has the field (required and
// formats) or its parent (enumerations). Where the reference's validation does not answer the
// plain message for a field (its rule differs, or the zero value is allowed), the case is
// listed as skipped with the reason (SKIP), or the reference's own answer is written by hand
// (OVERRIDE), each with the reference function it comes from.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const shared = [resolve(root, '../shared'), resolve(root, '../../shared')].find((dir) => existsSync(dir)) ?? resolve(root, '../shared')
const swaggerPath = resolve(process.argv[2] ?? join(shared, 'openapi/swagger.json'))
const out = join(root, 'test/fixtures/validation/generated-cases.json')
const definitions = JSON.parse(readFileSync(swaggerPath, 'utf8')).definitions

const podSpec = () => ({
  containers: [
    {
      name: 'web',
      image: 'nginx:1.27',
      imagePullPolicy: 'IfNotPresent',
      command: ['nginx'],
      ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
      env: [
        { name: 'MODE', value: 'production' },
        { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
        { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'app', key: 'level' } } },
        { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
      ],
      resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
      readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
      livenessProbe: { tcpSocket: { port: 8080 }, initialDelaySeconds: 10 },
      startupProbe: { exec: { command: ['true'] } },
      volumeMounts: [{ name: 'config', mountPath: '/etc/app' }, { name: 'cache', mountPath: '/cache' }, { name: 'token', mountPath: '/var/run/token' }],
      securityContext: { runAsNonRoot: true, runAsUser: 1000, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } },
    },
  ],
  initContainers: [{ name: 'init', image: 'busybox:1.36', command: ['sh', '-c', 'true'] }],
  volumes: [
    { name: 'config', configMap: { name: 'app-config', items: [{ key: 'app.yaml', path: 'app.yaml' }] } },
    { name: 'cache', emptyDir: { sizeLimit: '1Gi' } },
    { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }, { secret: { name: 'extra', items: [{ key: 'a', path: 'a' }] } }] } },
  ],
  restartPolicy: 'Always',
  dnsPolicy: 'ClusterFirst',
  terminationGracePeriodSeconds: 30,
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  securityContext: { fsGroup: 2000, fsGroupChangePolicy: 'OnRootMismatch', runAsGroup: 3000, supplementalGroups: [4000], supplementalGroupsPolicy: 'Merge', seLinuxChangePolicy: 'MountOption' },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }] },
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'disk', operator: 'Exists' }] } }],
    },
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' } }],
    },
  },
  topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'web' } } }],
  hostAliases: [{ ip: '10.0.0.10', hostnames: ['db.local'] }],
  dnsConfig: { nameservers: ['10.0.0.53'], searches: ['svc.local'], options: [{ name: 'ndots', value: '2' }] },
  readinessGates: [{ conditionType: 'example.com/ready' }],
  preemptionPolicy: 'PreemptLowerPriority',
  serviceAccountName: 'web',
})

const template = () => ({ metadata: { labels: { app: 'web' } }, spec: podSpec() })
const jobTemplateSpec = () => {
  const spec = podSpec()
  spec.restartPolicy = 'Never'
  return { metadata: { labels: { app: 'batch' } }, spec }
}

/** Valid objects of the kinds issue 17 item 1 names (not the CRD and alpha kinds other work owns). */
const BASES = [
  { group: '', version: 'v1', resource: 'pods', kind: 'Pod', object: { metadata: { name: 'web', labels: { app: 'web' } }, spec: { ...podSpec(), activeDeadlineSeconds: 600 } } },
  { group: '', version: 'v1', resource: 'podtemplates', kind: 'PodTemplate', object: { metadata: { name: 'tpl' }, template: template() } },
  { group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController', object: { metadata: { name: 'web' }, spec: { replicas: 2, minReadySeconds: 5, selector: { app: 'web' }, template: template() } } },
  {
    group: '', version: 'v1', resource: 'services', kind: 'Service',
    object: { metadata: { name: 'web' }, spec: { type: 'ClusterIP', selector: { app: 'web' }, sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }, { name: 'dns', port: 53, targetPort: 'dns', protocol: 'UDP' }], internalTrafficPolicy: 'Cluster' } },
  },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', object: { metadata: { name: 'app' }, data: { 'app.yaml': 'a: 1' } } },
  { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', object: { metadata: { name: 'db' }, type: 'Opaque', data: { password: 'c2VjcmV0' } } },
  { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', object: { metadata: { name: 'team-a' }, spec: { finalizers: ['kubernetes'] } } },
  { group: '', version: 'v1', resource: 'nodes', kind: 'Node', object: { metadata: { name: 'node-1' }, spec: { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'], taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } } },
  {
    group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume',
    object: { metadata: { name: 'pv-1' }, spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: 'standard', hostPath: { path: '/data/pv-1', type: 'DirectoryOrCreate' } } },
  },
  {
    group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim',
    object: { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'standard', volumeMode: 'Filesystem' } },
  },
  { group: '', version: 'v1', resource: 'limitranges', kind: 'LimitRange', object: { metadata: { name: 'limits' }, spec: { limits: [{ type: 'Container', default: { cpu: '500m' }, defaultRequest: { cpu: '250m' }, min: { cpu: '100m' }, max: { cpu: '1' } }] } } },
  { group: '', version: 'v1', resource: 'resourcequotas', kind: 'ResourceQuota', object: { metadata: { name: 'quota' }, spec: { hard: { pods: '10', 'requests.cpu': '4' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } } } },
  { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', object: { metadata: { name: 'builder' }, secrets: [{ name: 'builder-token' }], imagePullSecrets: [{ name: 'registry' }] } },
  {
    group: '', version: 'v1', resource: 'events', kind: 'Event',
    object: { metadata: { name: 'web.1' }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'web', apiVersion: 'v1' }, reason: 'Started', message: 'Started container', type: 'Normal', source: { component: 'kubelet' }, count: 1, firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:00Z' },
  },
  {
    group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment',
    object: { metadata: { name: 'web' }, spec: { replicas: 3, minReadySeconds: 5, revisionHistoryLimit: 10, progressDeadlineSeconds: 600, selector: { matchLabels: { app: 'web' } }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } }, template: template() } },
  },
  { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', object: { metadata: { name: 'web' }, spec: { replicas: 2, minReadySeconds: 5, selector: { matchLabels: { app: 'web' } }, template: template() } } },
  {
    group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet',
    object: {
      metadata: { name: 'db' },
      spec: {
        replicas: 3, serviceName: 'db', podManagementPolicy: 'Parallel', revisionHistoryLimit: 5, minReadySeconds: 0,
        selector: { matchLabels: { app: 'web' } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
        template: template(),
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
      },
    },
  },
  {
    group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet',
    object: { metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'web' } }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } }, revisionHistoryLimit: 10, template: template() } },
  },
  {
    group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job',
    object: {
      metadata: { name: 'report' },
      spec: {
        completions: 5, parallelism: 2, backoffLimit: 3, activeDeadlineSeconds: 3600, ttlSecondsAfterFinished: 100, completionMode: 'Indexed',
        podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }, { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] },
        template: jobTemplateSpec(),
      },
    },
  },
  {
    group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob',
    object: { metadata: { name: 'nightly' }, spec: { schedule: '0 3 * * *', concurrencyPolicy: 'Forbid', startingDeadlineSeconds: 100, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1, jobTemplate: { spec: { backoffLimit: 2, template: jobTemplateSpec() } } } },
  },
  {
    group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role',
    object: { metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] },
  },
  {
    group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole',
    object: { metadata: { name: 'reader' }, rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }, { nonResourceURLs: ['/healthz'], verbs: ['get'] }] },
  },
  {
    group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding',
    object: { metadata: { name: 'read' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' }, subjects: [{ kind: 'ServiceAccount', name: 'builder', namespace: 'default' }, { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' }] },
  },
  {
    group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding',
    object: { metadata: { name: 'read' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }] },
  },
  { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', object: { metadata: { name: 'web' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } }, unhealthyPodEvictionPolicy: 'AlwaysAllow' } } },
  { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', kind: 'PriorityClass', object: { metadata: { name: 'high' }, value: 1000, preemptionPolicy: 'Never', description: 'high' } },
  { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', object: { metadata: { name: 'leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 1, acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:00.000000Z' } } },
  {
    group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event',
    object: { metadata: { name: 'web.1' }, eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'example.com/controller', reportingInstance: 'controller-1', action: 'Started', reason: 'Started', type: 'Normal', regarding: { kind: 'Pod', namespace: 'default', name: 'web' }, note: 'started' },
  },
  {
    group: 'networking.k8s.io', version: 'v1', resource: 'ingresses', kind: 'Ingress',
    object: { metadata: { name: 'web' }, spec: { ingressClassName: 'nginx', tls: [{ hosts: ['web.example.com'], secretName: 'web-tls' }], rules: [{ host: 'web.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] } },
  },
  {
    group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', kind: 'NetworkPolicy',
    object: { metadata: { name: 'web' }, spec: { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress', 'Egress'], ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], ports: [{ protocol: 'TCP', port: 80 }] }], egress: [{ to: [{ namespaceSelector: { matchLabels: { team: 'a' } } }], ports: [{ port: 5432, endPort: 5440 }] }] } },
  },
  {
    group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler',
    object: { metadata: { name: 'web' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }] } },
  },
  { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', kind: 'StorageClass', object: { metadata: { name: 'fast' }, provisioner: 'example.com/disk', reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true } },
]

/**
 * The reference's supported list for each field whose description enumerates its values, in
 * the order its validation prints it. `sets.List(...)` sorts; a literal slice keeps its order.
 * Key: `<definition>.<property>` (definition without `io.k8s.api.`).
 */
const REFERENCE_ENUMS = {
  // validateRestartPolicy: []core.RestartPolicy{Always, OnFailure, Never}
  'core.v1.PodSpec.restartPolicy': ['Always', 'OnFailure', 'Never'],
  // validateDNSPolicy: []core.DNSPolicy{ClusterFirstWithHostNet, ClusterFirst, Default, None}
  'core.v1.PodSpec.dnsPolicy': ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'],
  // validatePullPolicy: sets.List(supportedPullPolicies), sorted
  'core.v1.Container.imagePullPolicy': ['Always', 'IfNotPresent', 'Never'],
  // validateContainerPorts: validateProtocol... sets.List(supportedPortProtocols), sorted
  'core.v1.ContainerPort.protocol': ['SCTP', 'TCP', 'UDP'],
  // ValidatePreemptionPolicy: []string{PreemptLowerPriority, PreemptNever}
  'core.v1.PodSpec.preemptionPolicy': ['PreemptLowerPriority', 'Never'],
  'scheduling.v1.PriorityClass.preemptionPolicy': ['PreemptLowerPriority', 'Never'],
  // validateFSGroupChangePolicy: sets.List(supportedFSGroupChangePolicies), sorted
  'core.v1.PodSecurityContext.fsGroupChangePolicy': ['Always', 'OnRootMismatch'],
  // validateSELinuxChangePolicy: sets.List of {Recursive, MountOption}, sorted
  'core.v1.PodSecurityContext.seLinuxChangePolicy': ['MountOption', 'Recursive'],
  // validateSupplementalGroupsPolicy: sets.List(validSupplementalGroupsPolicies), sorted
  'core.v1.PodSecurityContext.supplementalGroupsPolicy': ['Merge', 'Strict'],
  // validateTaintEffect (tolerations and node taints): []core.TaintEffect{NoSchedule, PreferNoSchedule, NoExecute}
  'core.v1.Toleration.effect': ['NoSchedule', 'PreferNoSchedule', 'NoExecute'],
  'core.v1.Taint.effect': ['NoSchedule', 'PreferNoSchedule', 'NoExecute'],
  // ValidateService: sets.List(supportedSessionAffinityType), sorted
  'core.v1.ServiceSpec.sessionAffinity': ['ClientIP', 'None'],
  // ValidateService: sets.List(supportedServiceType), sorted
  'core.v1.ServiceSpec.type': ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'],
  // validateServicePort: sets.List(supportedPortProtocols), sorted
  'core.v1.ServicePort.protocol': ['SCTP', 'TCP', 'UDP'],
  // ValidateDeploymentStrategy: []string{Recreate, RollingUpdate} (reported at the strategy, see walk)
  'apps.v1.DeploymentStrategy.type': ['Recreate', 'RollingUpdate'],
  // ValidateCronJobSpec: []batch.ConcurrencyPolicy{Allow, Forbid, Replace}
  'batch.v1.CronJobSpec.concurrencyPolicy': ['Allow', 'Forbid', 'Replace'],
  // ValidatePersistentVolumeSpec: sets.List(supportedReclaimPolicy), sorted
  'core.v1.PersistentVolumeSpec.persistentVolumeReclaimPolicy': ['Delete', 'Recycle', 'Retain'],
}

/** Fields whose description enumerates values but where the reference's answer is not the plain Unsupported value. */
const ENUM_SKIP = {
  'core.v1.ServiceSpec.clusterIP': 'not an enumeration: "None", "" or an IP address; a bad one is `Invalid value: ...: must be a valid IP address` (validateClusterIPs)',
  'core.v1.ServicePort.appProtocol': 'not an enumeration: a qualified name (ValidateQualifiedName)',
  'core.v1.EndpointPort.appProtocol': 'not an enumeration: a qualified name (ValidateQualifiedName)',
}

const LABEL_KEY_REGEX = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
/** IsQualifiedName(""), as ValidateLabelName and ValidateQualifiedName report it: two messages. */
const qualifiedEmpty = (p) => [
  [p, 'FieldValueInvalid', 'Invalid value: "": name part must be non-empty'],
  [p, 'FieldValueInvalid', `Invalid value: "": name part ${LABEL_KEY_REGEX}`],
]
const one = (reason, message) => (p) => [[p, reason, message]]
const selectorMismatch = (labels) => ['spec.template.metadata.labels', 'FieldValueInvalid', `Invalid value: ${labels}: \`selector\` does not match template \`labels\``]

/**
 * Required properties whose removal the reference answers with its own rule rather than a bare
 * `Required value`, written from the reference function named in `ref`: `expected(p)` is the
 * answer for the removed field's path `p`.
 */
const OVERRIDE = {
  'core.v1.PreferredSchedulingTerm.weight': { ref: 'ValidatePreferredSchedulingTerms', expected: one('FieldValueInvalid', 'Invalid value: 0: must be in the range 1-100') },
  'core.v1.WeightedPodAffinityTerm.weight': { ref: 'validateWeightedPodAffinityTerms', expected: one('FieldValueInvalid', 'Invalid value: 0: must be in the range 1-100') },
  'core.v1.NodeSelectorRequirement.key': { ref: 'ValidateNodeSelectorRequirement (ValidateLabelName)', expected: qualifiedEmpty },
  'core.v1.NodeSelectorRequirement.operator': { ref: 'ValidateNodeSelectorRequirement', expected: one('FieldValueInvalid', 'Invalid value: "": not a valid selector operator') },
  'core.v1.NodeSelector.nodeSelectorTerms': { ref: 'ValidateNodeSelector', expected: one('FieldValueRequired', 'Required value: must have at least one node selector term') },
  'core.v1.PodAffinityTerm.topologyKey': { ref: 'validatePodAffinityTerm', expected: (p) => [[p, 'FieldValueRequired', 'Required value: can not be empty'], ...qualifiedEmpty(p)] },
  'core.v1.WeightedPodAffinityTerm.podAffinityTerm': {
    ref: 'validatePodAffinityTerm of the empty term',
    expected: (p) => [[`${p}.topologyKey`, 'FieldValueRequired', 'Required value: can not be empty'], ...qualifiedEmpty(`${p}.topologyKey`)],
  },
  'core.v1.SeccompProfile.type': { ref: 'validateSeccompProfileType', expected: one('FieldValueRequired', 'Required value: type is required when seccompProfile is set') },
  'core.v1.VolumeMount.name': { ref: 'validateVolumeMounts (Required, then the mount matches no volume)', expected: (p) => [[p, 'FieldValueRequired', 'Required value'], [p, 'FieldValueNotFound', 'Not found: ""']] },
  'core.v1.HostAlias.ip': { ref: 'ValidateHostAliases (IsValidIP)', expected: one('FieldValueInvalid', 'Invalid value: "": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)') },
  'core.v1.PodReadinessGate.conditionType': { ref: 'validateReadinessGates (ValidateQualifiedName)', expected: qualifiedEmpty },
  'core.v1.TopologySpreadConstraint.maxSkew': { ref: 'validateTopologySpreadConstraints', expected: one('FieldValueInvalid', 'Invalid value: 0: must be greater than zero') },
  'core.v1.TopologySpreadConstraint.topologyKey': { ref: 'validateTopologyKey', expected: one('FieldValueRequired', 'Required value: can not be empty') },
  'core.v1.TopologySpreadConstraint.whenUnsatisfiable': {
    ref: 'ValidateWhenUnsatisfiable (sets.List of the supported actions)',
    expected: one('FieldValueNotSupported', 'Unsupported value: "": supported values: "DoNotSchedule", "ScheduleAnyway"'),
  },
  'core.v1.ServiceAccountTokenProjection.path': {
    ref: 'validateProjectionSources: field.Required(fldPath.Child("path")), the projected volume\'s path, not the source\'s',
    expected: (p) => [[p.replace(/\.sources\[\d+\]\.serviceAccountToken\.path$/, '.path'), 'FieldValueRequired', 'Required value']],
  },
  'core.v1.ServicePort.port': { ref: 'validateServicePort (IsValidPortNum)', expected: one('FieldValueInvalid', 'Invalid value: 0: must be between 1 and 65535, inclusive') },
  'core.v1.Taint.key': { ref: 'ValidateNode: validateNodeTaints(node.Spec.Taints, metadata.taints) (ValidateLabelName)', expected: (p) => qualifiedEmpty(p.replace(/^spec\.taints/, 'metadata.taints')) },
  'core.v1.Taint.effect': { ref: 'ValidateNode: validateNodeTaints under metadata.taints (validateTaintEffect, empty not allowed)', expected: (p) => [[p.replace(/^spec\.taints/, 'metadata.taints'), 'FieldValueRequired', 'Required value']] },
  'core.v1.LimitRangeItem.type': { ref: 'validateLimitRangeTypeName (IsQualifiedName)', expected: qualifiedEmpty },
  'core.v1.ScopedResourceSelectorRequirement.scopeName': {
    ref: 'validateScopedResourceSelectorRequirement (the path has no index)',
    expected: () => [['spec.scopeSelector.matchExpressions.scopeName', 'FieldValueInvalid', 'Invalid value: "": unsupported scope']],
  },
  'core.v1.ScopedResourceSelectorRequirement.operator': {
    ref: 'validateScopedResourceSelectorRequirement (the path has no index)',
    expected: () => [['spec.scopeSelector.matchExpressions.operator', 'FieldValueInvalid', 'Invalid value: "": not a valid selector operator']],
  },
  'core.v1.Event.metadata': { ref: 'ValidateObjectMeta', expected: () => [['metadata.name', 'FieldValueRequired', 'Required value: name or generateName is required']] },
  'apps.v1.DeploymentSpec.selector': { ref: 'ValidateDeploymentSpec, then ValidatePodTemplateSpecForReplicaSet with labels.Nothing()', expected: (p) => [[p, 'FieldValueRequired', 'Required value'], selectorMismatch('{"app":"web"}')] },
  'apps.v1.ReplicaSetSpec.selector': { ref: 'ValidateReplicaSetSpec, then ValidatePodTemplateSpecForReplicaSet with labels.Nothing()', expected: (p) => [[p, 'FieldValueRequired', 'Required value'], selectorMismatch('{"app":"web"}')] },
  'apps.v1.StatefulSetSpec.selector': { ref: 'ValidateStatefulSetSpec, then ValidatePodTemplateSpecForStatefulSet with labels.Nothing()', expected: (p) => [[p, 'FieldValueRequired', 'Required value'], selectorMismatch('{"app":"web"}')] },
  'apps.v1.DaemonSetSpec.selector': { ref: 'ValidateDaemonSetSpec: ValidateLabelSelector(nil) is silent; labels.Nothing() matches no labels', expected: () => [selectorMismatch('{"app":"web"}')] },
  'apps.v1.DeploymentSpec.template': {
    ref: 'ValidatePodTemplateSpecForReplicaSet: template.Labels is a nil map (JSON null), then ValidatePodTemplateSpec of the defaulted empty spec',
    expected: () => [selectorMismatch('null'), ['spec.template.spec.containers', 'FieldValueRequired', 'Required value']],
  },
  'apps.v1.StatefulSetSpec.template': {
    ref: "ValidatePodTemplateSpecForStatefulSet: template.Labels is a nil map (JSON null); the pod spec is not validated (the reference's TODO there)",
    expected: () => [selectorMismatch('null')],
  },
  'apps.v1.DaemonSetSpec.template': {
    ref: 'ValidateDaemonSetSpec: spec.Template.Labels is a nil map (JSON null), then ValidatePodTemplateSpec',
    expected: () => [selectorMismatch('null'), ['spec.template.spec.containers', 'FieldValueRequired', 'Required value']],
  },
  'rbac.v1.PolicyRule.verbs': { ref: 'ValidatePolicyRule', expected: one('FieldValueRequired', 'Required value: verbs must contain at least one value') },
  'rbac.v1.RoleRef.kind': { ref: 'ValidateRoleBinding (switch on roleRef.kind)', expected: one('FieldValueNotSupported', 'Unsupported value: "": supported values: "Role", "ClusterRole"') },
  'ClusterRoleBinding:rbac.v1.RoleRef.kind': { ref: 'ValidateClusterRoleBinding (only ClusterRole)', expected: one('FieldValueNotSupported', 'Unsupported value: "": supported values: "ClusterRole"') },
  'rbac.v1.Subject.kind': { ref: 'ValidateRoleBindingSubject', expected: one('FieldValueNotSupported', 'Unsupported value: "": supported values: "ServiceAccount", "User", "Group"') },
  'rbac.v1.RoleBinding.roleRef': {
    ref: 'ValidateRoleBinding; the v1 defaulting sets roleRef.apiGroup',
    expected: () => [['roleRef.kind', 'FieldValueNotSupported', 'Unsupported value: "": supported values: "Role", "ClusterRole"'], ['roleRef.name', 'FieldValueRequired', 'Required value']],
  },
  'rbac.v1.ClusterRoleBinding.roleRef': {
    ref: 'ValidateClusterRoleBinding; the v1 defaulting sets roleRef.apiGroup',
    expected: () => [['roleRef.kind', 'FieldValueNotSupported', 'Unsupported value: "": supported values: "ClusterRole"'], ['roleRef.name', 'FieldValueRequired', 'Required value']],
  },
  'networking.v1.HTTPIngressPath.pathType': { ref: 'validateHTTPIngressPath', expected: one('FieldValueRequired', 'Required value: pathType must be specified') },
  'networking.v1.HTTPIngressPath.backend': { ref: 'validateIngressBackend', expected: one('FieldValueInvalid', 'Invalid value: "": resource or service backend is required') },
  'autoscaling.v2.HorizontalPodAutoscalerSpec.maxReplicas': {
    ref: 'validateHorizontalPodAutoscalerSpec',
    expected: (p) => [[p, 'FieldValueInvalid', 'Invalid value: 0: must be greater than 0'], [p, 'FieldValueInvalid', 'Invalid value: 0: must be greater than or equal to `minReplicas`']],
  },
  'autoscaling.v2.HorizontalPodAutoscalerSpec.scaleTargetRef': {
    ref: 'ValidateCrossVersionObjectReference',
    expected: (p) => [[`${p}.kind`, 'FieldValueRequired', 'Required value'], [`${p}.name`, 'FieldValueRequired', 'Required value']],
  },
}

/** Required properties whose removal is not a case here, with the reason. */
const SKIP = {
  'core.v1.HTTPGetAction.port': 'an IntOrString: removed it is 0, which ValidatePortNumOrName answers `Invalid value: 0: must be between 1 and 65535, inclusive`; left to the hand-written probe cases',
  'core.v1.TCPSocketAction.port': 'an IntOrString: removed it is 0, which ValidatePortNumOrName answers `Invalid value: 0: must be between 1 and 65535, inclusive`; left to the hand-written probe cases',
  'core.v1.PreferredSchedulingTerm.preference': 'the reference accepts it: ValidateNodeSelectorTerm of an empty term checks only the expressions and fields it has',
  'core.v1.Event.involvedObject': "the reference accepts it: legacyValidateEvent only compares involvedObject.namespace with the event's, and an empty one agrees with `default`",
  'core.v1.LimitRangeSpec.limits': 'the reference accepts a LimitRange without items: ValidateLimitRange checks the items it has',
  'batch.v1.JobSpec.template': "removing the whole template gives one error per field of the reference's walk (ValidateJobSpec); whole-template cases are hand-written in batch.test.ts",
  'batch.v1.CronJob.spec': "removing the whole spec gives one error per field of the reference's walk; hand-written in batch.test.ts",
  'batch.v1.CronJobSpec.jobTemplate': "removing the whole job template gives one error per field of the reference's walk; hand-written in batch.test.ts",
  'batch.v1.PodFailurePolicy.rules': 'the reference accepts an empty rule list; the restart policy rule that remains is hand-written in batch.test.ts',
  'batch.v1.PodFailurePolicyRule.action': 'validatePodFailurePolicyRule answers `Required value: valid values: [...]` (the supported list in the detail), not a bare Required value; hand-written in batch.test.ts',
  'batch.v1.PodFailurePolicyOnExitCodesRequirement.operator': 'validatePodFailurePolicyRuleOnExitCodes answers `Required value: valid values: ["In" "NotIn"]`; hand-written in batch.test.ts',
  'batch.v1.PodFailurePolicyOnExitCodesRequirement.values': 'validatePodFailurePolicyRuleOnExitCodes answers `Invalid value: []: at least one value is required`; hand-written in batch.test.ts',
  'batch.v1.PodFailurePolicyOnPodConditionsPattern.type': 'ValidateQualifiedName of "" (two messages), not Required value; hand-written in batch.test.ts',
  'autoscaling.v2.HorizontalPodAutoscaler.spec': "removing the whole spec gives one error per field of the reference's walk; hand-written in autoscaling.test.ts",
  'autoscaling.v2.MetricSpec.type': 'validateMetricSpec answers Required with a detail and then Unsupported value; hand-written in autoscaling.test.ts',
  'autoscaling.v2.ResourceMetricSource.name': 'validateResourceSource answers `Required value: must specify a resource name`; hand-written in autoscaling.test.ts',
  'autoscaling.v2.ResourceMetricSource.target': 'validateMetricTarget of the empty target answers several errors; hand-written in autoscaling.test.ts',
  'autoscaling.v2.MetricTarget.type': 'validateMetricTarget answers Required with a detail and an Invalid value; hand-written in autoscaling.test.ts',
}

const DOC = 'io.k8s.api.'
const short = (name) => name.startsWith(DOC) ? name.slice(DOC.length) : name
const refName = (schema) => typeof schema?.$ref === 'string' ? schema.$ref.replace('#/definitions/', '') : undefined
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v)
/** The field path as the reference prints it: `spec.containers[0].name`, map keys in brackets. */
const show = (path) => path.map((p, i) => typeof p === 'number' ? `[${p}]` : p.startsWith('[') ? p : i === 0 ? p : `.${p}`).join('')
/** The JSON field names encoding/json reports: the path without list indexes and map keys. */
const jsonPath = (path) => path.filter((p) => typeof p === 'string' && !p.startsWith('[')).join('.')

function rootDefinition(group, version, kind) {
  for (const [name, def] of Object.entries(definitions)) {
    const gvks = def['x-kubernetes-group-version-kind'] ?? []
    if (gvks.some((g) => g.group === group && g.version === version && g.kind === kind)) return name
  }
  throw new Error(`no definition for ${group}/${version} ${kind}`)
}

/** A description's prose enumeration, when it has one (the document has no `enum` keyword). */
function proseEnumeration(description) {
  const m = /(One of|Valid values are|Valid options are|Must be one of|Must be|Can be|values are|Acceptable values are|Supports)[: ]+(["'`]?[A-Z][A-Za-z*]*["'`]?)(,| or| and)/.exec(description ?? '')
  return m !== null
}

/**
 * A volume with an error is not added to the pod's volumes (ValidateVolumes), so each container
 * mount of it is then `Not found` (validateVolumeMounts): the errors a broken volume adds.
 */
function unmountedBy(object, at) {
  const v = at.indexOf('volumes')
  if (v < 0 || typeof at[v + 1] !== 'number') return []
  const specPath = at.slice(0, v)
  let spec = object
  for (const step of specPath) spec = spec[step]
  const name = spec.volumes[at[v + 1]].name
  const out = []
  for (const list of ['containers', 'initContainers']) {
    ;(spec[list] ?? []).forEach((c, i) => (c.volumeMounts ?? []).forEach((m, j) => {
      if (m.name === name) out.push([show([...specPath, list, i, 'volumeMounts', j, 'name']), 'FieldValueNotFound', `Not found: ${JSON.stringify(name)}`])
    }))
  }
  return out
}

const cases = []
const skipped = []
const seen = new Set()

function walk(base, defName, value, path) {
  const def = definitions[defName]
  if (!def || !isObj(def.properties) || !isObj(value)) return
  const where = short(defName)
  for (const prop of def.required ?? []) {
    if (!(prop in value)) continue
    const key = `${where}.${prop}`
    const at = [...path, prop]
    if (SKIP[key]) {
      if (!seen.has(`skip:${key}`)) skipped.push({ constraint: 'required', field: key, reason: SKIP[key] })
      seen.add(`skip:${key}`)
      continue
    }
    const override = OVERRIDE[`${base.kind}:${key}`] ?? OVERRIDE[key]
    const own = override ? override.expected(show(at)) : [[show(at), 'FieldValueRequired', 'Required value']]
    cases.push({ kind: base.index, constraint: 'required', definition: key, ...(override ? { reference: override.ref } : {}), op: 'remove', path: at, expected: [...own, ...unmountedBy(base.object, at)] })
  }
  for (const [prop, schema] of Object.entries(def.properties)) {
    const key = `${where}.${prop}`
    const at = [...path, prop]
    if (schema.type === 'string' && proseEnumeration(schema.description)) {
      const list = REFERENCE_ENUMS[key] ?? REFERENCE_ENUMS[key.replace('EphemeralContainer', 'Container')]
      if (list && key === 'core.v1.PodSpec.restartPolicy' && path.includes('template')) {
        if (!seen.has(`enum:${key}:${base.kind}`)) skipped.push({ constraint: 'enum', field: `${key} in a ${base.kind}`, reason: "a workload's template has the kind's own restart policy rule too (ValidatePodTemplateSpecForReplicaSet, ...ForRC, the Job's), a second error; hand-written in the kind's table" })
        seen.add(`enum:${key}:${base.kind}`)
      } else if (list) {
        const supported = list.map((v) => JSON.stringify(v)).join(', ')
        // ValidateTolerations checks tolerationSeconds against the effect before the effect itself.
        const before = key === 'core.v1.Toleration.effect' && value.tolerationSeconds !== undefined ? [[show(at), 'FieldValueInvalid', 'Invalid value: "Bogus": effect must be \'NoExecute\' when `tolerationSeconds` is set']] : []
        if (key === 'apps.v1.DeploymentStrategy.type') {
          // ValidateDeploymentStrategy: field.NotSupported(fldPath, strategy, ...), the whole internal
          // struct (no JSON tags: Go field names, RollingUpdate's MaxUnavailable before MaxSurge) at the strategy's path.
          const ru = value.rollingUpdate
          const struct = `{"Type":"Bogus","RollingUpdate":${ru ? `{"MaxUnavailable":${JSON.stringify(ru.maxUnavailable ?? null)},"MaxSurge":${JSON.stringify(ru.maxSurge ?? null)}}` : 'null'}}`
          cases.push({ kind: base.index, constraint: 'enum', definition: key, reference: 'ValidateDeploymentStrategy', op: 'set', path: at, value: 'Bogus', expected: [[show(path), 'FieldValueNotSupported', `Unsupported value: ${struct}: supported values: ${supported}`]] })
          continue
        }
        cases.push({ kind: base.index, constraint: 'enum', definition: key, op: 'set', path: at, value: 'Bogus', expected: [...before, [show(at), 'FieldValueNotSupported', `Unsupported value: "Bogus": supported values: ${supported}`], ...unmountedBy(base.object, at)] })
      } else if (!seen.has(`enum:${key}`)) {
        seen.add(`enum:${key}`)
        skipped.push({ constraint: 'enum', field: key, reason: ENUM_SKIP[key] ?? 'the description enumerates values; the reference\'s supported list for it is not in REFERENCE_ENUMS yet' })
      }
    }
    if (!(prop in value)) continue
    const v = value[prop]
    if (schema.type === 'integer' && schema.format === 'int32' && typeof v === 'number') {
      cases.push({ kind: base.index, constraint: 'int32', definition: key, op: 'set', path: at, value: 2147483648, decodeError: `json: cannot unmarshal number 2147483648 into Go struct field ${defName.split('.').pop()}.${jsonPath(at)} of type int32` })
    }
    if (schema.type === 'integer' && schema.format === 'int64' && typeof v === 'number') {
      cases.push({ kind: base.index, constraint: 'int64', definition: key, op: 'set', path: at, value: 1.5, decodeError: `json: cannot unmarshal number 1.5 into Go struct field ${defName.split('.').pop()}.${jsonPath(at)} of type int64` })
    }
    const ref = refName(schema)
    if (ref && base.kind === 'StatefulSet' && at.join('.') === 'spec.template.spec') {
      // ValidatePodTemplateSpecForStatefulSet checks the template's labels and annotations only
      // (its TODO: "Add validation for PodSpec"); a pod's errors show when the controller creates it.
      if (!seen.has('skip:statefulset-podspec')) skipped.push({ constraint: 'required', field: 'core.v1.PodSpec.* in a StatefulSet', reason: "ValidatePodTemplateSpecForStatefulSet does not validate the pod spec (the reference's TODO); the pods the controller creates are validated" })
      seen.add('skip:statefulset-podspec')
    } else if (ref) walk(base, ref, v, at)
    else if (schema.type === 'array' && Array.isArray(v) && refName(schema.items)) v.forEach((item, i) => walk(base, refName(schema.items), item, [...at, i]))
    else if (schema.type === 'object' && isObj(v) && refName(schema.additionalProperties)) for (const [k, item] of Object.entries(v)) walk(base, refName(schema.additionalProperties), item, [...at, `[${k}]`])
  }
}

const kinds = BASES.map((b, index) => {
  const root = rootDefinition(b.group, b.version, b.kind)
  walk({ ...b, index, object: b.object }, root, b.object, [])
  return { group: b.group, version: b.version, resource: b.resource, kind: b.kind, object: b.object }
})

mkdirSync(dirname(out), { recursive: true })
const fixture = {
  comment: 'Generated by scripts/generate-validation-cases.mjs from the upstream OpenAPI document; do not edit by hand.',
  kinds,
  cases,
  skipped,
}
// One line per base object, case and skipped field: compact, and a regeneration's diff names what changed.
const lines = (items) => items.map((x) => `  ${JSON.stringify(x)}`).join(',\n')
writeFileSync(out, `{\n"comment": ${JSON.stringify(fixture.comment)},\n"kinds": [\n${lines(kinds)}\n],\n"cases": [\n${lines(cases)}\n],\n"skipped": [\n${lines(skipped)}\n]\n}\n`)
const by = (c) => cases.filter((x) => x.constraint === c).length
console.log(`${cases.length} cases (required ${by('required')}, enum ${by('enum')}, int32 ${by('int32')}, int64 ${by('int64')}), ${skipped.length} skipped -> ${out}`)
