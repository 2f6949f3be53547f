/**
 * The built-in kinds as data: each is the generated ResourceInfo (names, scope, verbs) plus a
 * small set of overrides (defaulting, validation, field selectors, Table columns) where the
 * reference's behaviour shows in kubectl's output. Everything else is the common strategy. The
 * validation itself is in ../validation/, one file per API group.
 */
import { deepEqual } from '../../../core/patch/index.js'
import { RESOURCES, type ResourceInfo } from '../generated/resources.js'
import { type KubeObject, isPlainObject } from '../registry/object.js'
import type { Strategy } from '../registry/strategy.js'
import { anyName, nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain, pathSegmentName } from '../validation/names.js'
import {
  validateControllerRevision,
  validateControllerRevisionUpdate,
  validateDaemonSet,
  validateDaemonSetStatusUpdate,
  validateDaemonSetUpdate,
  validateDeployment,
  validateDeploymentStatusUpdate,
  validateDeploymentUpdate,
  validateReplicaSet,
  validateReplicaSetStatusUpdate,
  validateReplicaSetUpdate,
  validateStatefulSet,
  validateStatefulSetStatusUpdate,
  validateStatefulSetUpdate,
} from '../validation/apps.js'
import { generateJobSelector, validateCronJob, validateCronJobUpdate, validateJob, validateJobStatusUpdate, validateJobUpdate } from '../validation/batch.js'
import {
  validateEndpoints,
  validateEvent,
  validateEventUpdate,
  validateLimitRange,
  validateNode,
  validateNodeUpdate,
  validatePersistentVolume,
  validatePersistentVolumeClaim,
  validatePersistentVolumeClaimUpdate,
  validatePersistentVolumeUpdate,
  validatePod,
  validatePodEphemeralContainersUpdate,
  validatePodResize,
  validatePodStatusUpdate,
  validatePodTemplate,
  validatePodUpdate,
  validateReplicationController,
  validateReplicationControllerStatusUpdate,
  validateResourceQuota,
  validateResourceQuotaStatusUpdate,
  validateResourceQuotaUpdate,
  validateSecret,
  validateSecretUpdate,
  validateService,
  validateServiceStatusUpdate,
  validateServiceUpdate,
} from '../validation/core.js'
import {
  defaultBinding,
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateRole,
  validateRoleBinding,
  validateRoleBindingUpdate,
} from '../validation/rbac.js'
import { validatePriorityClass, validatePriorityClassUpdate } from '../validation/scheduling.js'
import { validatePodGroup, validatePodGroupName, validatePodGroupUpdate, validateWorkload, validateWorkloadUpdate } from '../validation/scheduling-workload.js'
import { validatePodDisruptionBudget, validatePodDisruptionBudgetStatusUpdate } from '../validation/policy.js'
import { storageVersionName, validateStorageVersion, validateStorageVersionStatusUpdate, validateStorageVersionUpdate } from '../validation/apiserverinternal.js'
import { validateStorageVersionMigration, validateStorageVersionMigrationStatusUpdate, validateStorageVersionMigrationUpdate } from '../validation/storagemigration.js'
import { leaseCandidateName, validateLease, validateLeaseCandidate, validateLeaseCandidateUpdate } from '../validation/coordination.js'
import { type Obj, arr, col, num, obj, str } from './values.js'
import { AUTOSCALING } from './autoscaling.js'
import { podQOSClass } from './pod-qos.js'
import { CERTIFICATES } from './certificates.js'
import { CLUSTER_CONFIG } from './cluster-config.js'
import { CORE_PRINTERS } from './core-printers.js'
import { eventsV1 } from './events.js'
import { NETWORKING } from './networking.js'
import { STORAGE } from './storage.js'
import { AGE_COLUMN, DEFAULT_COLUMNS, NAME_COLUMN, type TableColumns, age, humanDuration } from '../table.js'

/** Everything but metadata and status: a change there bumps metadata.generation. */
function specOf(o: KubeObject): Obj {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o
  void _m, void _s, void _a, void _k
  return rest
}

/** Kinds whose status is owned by the status subresource: reset on create, kept on update. */
const STATUS_KINDS = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'persistentvolumes',
  'persistentvolumeclaims',
  'resourcequotas',
  'nodes',
  'deployments',
  'replicasets',
  'statefulsets',
  'daemonsets',
  'jobs',
  'cronjobs',
  'ingresses',
  'poddisruptionbudgets',
  'horizontalpodautoscalers',
  'certificatesigningrequests',
  'volumeattachments',
  'flowschemas',
  'prioritylevelconfigurations',
  'servicecidrs',
  'resourceclaims',
  'validatingadmissionpolicies',
  'apiservices',
])

/** Kinds that keep metadata.generation (pods since 1.33: PrepareForCreate sets 1, a spec change bumps it). */
const GENERATION_KINDS = new Set([
  'pods',
  'replicationcontrollers',
  'deployments',
  'replicasets',
  'statefulsets',
  'daemonsets',
  'jobs',
  'cronjobs',
  'ingresses',
  'networkpolicies',
  'poddisruptionbudgets',
  'horizontalpodautoscalers',
  'validatingadmissionpolicies',
  'mutatingadmissionpolicies',
  'deviceclasses',
  'resourceslices',
])

export type KindOverrides = Partial<Omit<Strategy, keyof ResourceInfo>> & {
  /**
   * The scheme's defaulting (the reference's SetDefaults_*): run on every object the kind
   * receives, created, replaced or patched, before the strategy's own preparation.
   */
  defaults?(obj: KubeObject): void
}

/** The common strategy of a generated kind, with its overrides on top. */
export function dataStrategy(info: ResourceInfo, overrides: KindOverrides = {}): Strategy {
  const statusOwned = STATUS_KINDS.has(info.resource)
  const base: Strategy = {
    ...info,
    shortNames: [...info.shortNames],
    verbs: [...info.verbs],
    subresources: [...info.subresources],
    ...(info.categories ? { categories: [...info.categories] } : {}),
    generation: GENERATION_KINDS.has(info.resource),
    validateName: nameIsDNSSubdomain,
    prepareForCreate(o) {
      if (statusOwned) delete o.status
    },
    prepareForUpdate(o, old) {
      if (!statusOwned) return
      if (old.status === undefined) delete o.status
      else o.status = old.status
    },
    validate: () => [],
    specChanged: (o, old) => !deepEqual(specOf(o), specOf(old)),
    selectableFields: info.namespaced ? ['metadata.name', 'metadata.namespace'] : ['metadata.name'],
    fields: (o) => ({ 'metadata.name': o.metadata.name ?? '', ...(info.namespaced ? { 'metadata.namespace': o.metadata.namespace ?? '' } : {}) }),
    table: DEFAULT_COLUMNS,
  }
  const { defaults, ...rest } = overrides
  const strategy: Strategy = { ...base, ...rest }
  if (overrides.prepareForCreate) {
    strategy.prepareForCreate = (o) => {
      base.prepareForCreate(o)
      overrides.prepareForCreate!(o)
    }
  }
  if (overrides.prepareForUpdate) {
    strategy.prepareForUpdate = (o, old) => {
      base.prepareForUpdate(o, old)
      overrides.prepareForUpdate!(o, old)
    }
  }
  if (defaults) {
    const create = strategy.prepareForCreate
    const update = strategy.prepareForUpdate
    strategy.prepareForCreate = (o) => {
      defaults(o)
      create(o)
    }
    strategy.prepareForUpdate = (o, old) => {
      defaults(o)
      update(o, old)
    }
  }
  if (overrides.selectableFields || overrides.fields) {
    const extra = overrides.fields ?? (() => ({}))
    strategy.selectableFields = [...base.selectableFields, ...(overrides.selectableFields ?? [])]
    strategy.fields = (o) => ({ ...base.fields(o), ...extra(o) })
  }
  return strategy
}

// ---- pods ----

function podCells(o: KubeObject, now: number): unknown[] {
  const spec = obj(o.spec)
  const status = obj(o.status)
  const statuses = arr(status.containerStatuses).map(obj)
  const total = arr(spec.containers).length
  const ready = statuses.filter((c) => c.ready === true).length
  const restarts = statuses.reduce((n, c) => n + num(c.restartCount), 0)
  let reason = str(status.reason) || str(status.phase)
  for (const c of statuses) {
    const state = obj(c.state)
    const waiting = str(obj(state.waiting).reason)
    const terminated = obj(state.terminated)
    if (waiting) reason = waiting
    else if (Object.keys(terminated).length > 0) reason = str(terminated.reason) || `ExitCode:${num(terminated.exitCode)}`
  }
  if (o.metadata.deletionTimestamp) reason = 'Terminating'
  return [o.metadata.name, `${ready}/${total}`, reason, restarts, age(o, now), str(status.podIP, '<none>') || '<none>', str(spec.nodeName) || '<none>', str(status.nominatedNodeName) || '<none>', '<none>']
}

/** The pull policy an image gets by default: Always for `latest` (or no tag), else IfNotPresent. */
function defaultPullPolicy(image: string): string {
  const tagged = /:[^/]+$/.test(image.split('@')[0]!) && !image.split('@')[0]!.endsWith(':latest')
  return tagged || image.includes('@') ? 'IfNotPresent' : 'Always'
}

function defaultContainers(list: unknown): void {
  for (const c of arr(list)) {
    if (!isPlainObject(c)) continue
    c.imagePullPolicy ??= defaultPullPolicy(str(c.image))
    c.terminationMessagePath ??= '/dev/termination-log'
    c.terminationMessagePolicy ??= 'File'
    c.resources ??= {}
    for (const p of arr(c.ports)) if (isPlainObject(p)) p.protocol ??= 'TCP'
    // SetDefaults_ObjectFieldSelector: a fieldRef names the v1 field by default.
    for (const e of arr(c.env)) {
      const fieldRef = obj(obj(obj(e).valueFrom).fieldRef)
      if (obj(obj(e).valueFrom).fieldRef !== undefined) fieldRef.apiVersion ??= 'v1'
    }
    // SetDefaults_Probe and the HTTP/gRPC handlers' defaults.
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
      if (!isPlainObject(c[probe])) continue
      const p = c[probe] as Obj
      p.timeoutSeconds ??= 1
      p.periodSeconds ??= 10
      p.successThreshold ??= 1
      p.failureThreshold ??= 3
      if (isPlainObject(p.httpGet)) {
        p.httpGet.path ??= '/'
        p.httpGet.scheme ??= 'HTTP'
      }
      if (isPlainObject(p.grpc)) p.grpc.service ??= ''
    }
  }
}

/** SetDefaults_Volume and the volume sources' defaults (file modes 0644, emptyDir for none). */
function defaultVolumes(list: unknown): void {
  const SOURCES_WITH_MODE = ['secret', 'configMap', 'downwardAPI', 'projected']
  for (const v of arr(list)) {
    if (!isPlainObject(v)) continue
    const sources = Object.keys(v).filter((k) => k !== 'name')
    if (sources.length === 0) v.emptyDir = {}
    for (const source of SOURCES_WITH_MODE) if (isPlainObject(v[source])) (v[source] as Obj).defaultMode ??= 420
    if (isPlainObject(v.hostPath)) v.hostPath.type ??= ''
    // SetDefaults_ImageVolumeSource: the containers' rule for the reference's tag.
    if (isPlainObject(v.image)) v.image.pullPolicy ??= defaultPullPolicy(str(v.image.reference))
    for (const item of arr(obj(v.downwardAPI).items)) if (isPlainObject(obj(item).fieldRef)) obj(obj(item).fieldRef).apiVersion ??= 'v1'
  }
}

/** The reference's pod spec defaults (SetDefaults_PodSpec, SetDefaults_Container). */
export function defaultPodSpec(spec: Obj): void {
  spec.restartPolicy ??= 'Always'
  spec.dnsPolicy ??= 'ClusterFirst'
  spec.schedulerName ??= 'default-scheduler'
  spec.terminationGracePeriodSeconds ??= 30
  spec.securityContext ??= {}
  defaultContainers(spec.containers)
  defaultContainers(spec.initContainers)
  // SetDefaults_EphemeralContainer: the Container defaults.
  defaultContainers(spec.ephemeralContainers)
  defaultVolumes(spec.volumes)
}

/** The reference's sameClusterIPs: the same list, in order. */
function sameClusterIPs(a: Obj, b: Obj): boolean {
  const x = arr(a.clusterIPs)
  const y = arr(b.clusterIPs)
  return x.length === y.length && x.every((ip, i) => ip === y[i])
}

/** The update half of the reference's normalizeClusterIPs (pkg/registry/core/service/storage). */
function normalizeClusterIPsOnUpdate(spec: Obj, oldSpec: Obj): void {
  // An old client patching something else sent clusterIP without clusterIPs.
  if (arr(oldSpec.clusterIPs).length > 0 && arr(spec.clusterIPs).length === 0 && (oldSpec.clusterIP ?? '') === (spec.clusterIP ?? '')) spec.clusterIPs = oldSpec.clusterIPs
  if ((oldSpec.clusterIP ?? '') === (spec.clusterIP ?? '')) return
  if (oldSpec.clusterIP && !spec.clusterIP) {
    // Clearing clusterIP with clusterIPs unchanged clears both (validation then reports it).
    if (sameClusterIPs(oldSpec, spec)) delete spec.clusterIPs
  } else if (sameClusterIPs(oldSpec, spec)) spec.clusterIPs = [spec.clusterIP]
}

const pods: KindOverrides = {
  defaults(o) {
    o.spec = obj(o.spec)
    defaultPodSpec(o.spec as Obj)
    // SetDefaults_Pod, not SetDefaults_PodSpec: pod templates of workloads do not get it.
    ;(o.spec as Obj).enableServiceLinks ??= true
    // SetDefaults_Pod: a limit without a request is also the request.
    for (const c of [...arr((o.spec as Obj).containers), ...arr((o.spec as Obj).initContainers)]) {
      if (!isPlainObject(c) || !isPlainObject(c.resources) || !isPlainObject(c.resources.limits)) continue
      const requests = obj(c.resources.requests)
      for (const [k, v] of Object.entries(c.resources.limits)) requests[k] ??= v
      c.resources.requests = requests
    }
  },
  prepareForCreate(o) {
    o.status = { phase: 'Pending', qosClass: podQOSClass(obj(o.spec)) }
  },
  validate: validatePod,
  validateUpdate: (o, old, subresource) =>
    subresource === 'ephemeralcontainers'
      ? validatePodEphemeralContainersUpdate(o, old)
      : subresource === 'resize'
        ? validatePodResize(o, old, podQOSClass)
        : validatePodUpdate(o, old),
  validateStatusUpdate: validatePodStatusUpdate,
  selectableFields: ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'],
  fields: (o) => {
    const spec = obj(o.spec)
    const status = obj(o.status)
    return {
      'spec.nodeName': str(spec.nodeName),
      'spec.restartPolicy': str(spec.restartPolicy),
      'spec.schedulerName': str(spec.schedulerName),
      'spec.serviceAccountName': str(spec.serviceAccountName),
      'spec.hostNetwork': String(spec.hostNetwork === true),
      'status.phase': str(status.phase),
      'status.podIP': str(status.podIP),
      'status.nominatedNodeName': str(status.nominatedNodeName),
    }
  },
  table: {
    definitions: [
      NAME_COLUMN,
      col('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
      col('Status', 'The aggregate status of the containers in this pod.'),
      col('Restarts', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
      AGE_COLUMN,
      col('IP', 'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
      col('Node', 'NodeName is a request to schedule this pod onto a specific node.', 1),
      col('Nominated Node', 'nominatedNodeName is set when this pod preempts other pods on the node.', 1),
      col('Readiness Gates', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
    ],
    cells: podCells,
  },
}

// ---- workloads ----

function defaultTemplate(spec: Obj): void {
  const template = obj(spec.template)
  template.spec = obj(template.spec)
  defaultPodSpec(template.spec as Obj)
  spec.template = template
}

const images = (o: KubeObject) => arr(obj(obj(obj(o.spec).template).spec).containers).map(obj)
const selectorText = (o: KubeObject) =>
  Object.entries(obj(obj(obj(o.spec).selector).matchLabels))
    .map(([k, v]) => `${k}=${str(v)}`)
    .join(',') || '<none>'

/**
 * A workload's update strategy with the reference's defaults: type RollingUpdate when unset
 * (also when the client sent `{}`, as kubectl create does), and the rolling update's fields.
 */
function rollingUpdateDefaults(value: unknown, rollingUpdate: Obj): Obj {
  const strategy = obj(value)
  if (strategy.type === undefined || strategy.type === '') strategy.type = 'RollingUpdate'
  if (strategy.type === 'RollingUpdate') {
    const ru = obj(strategy.rollingUpdate)
    for (const [k, v] of Object.entries(rollingUpdate)) ru[k] ??= v
    strategy.rollingUpdate = ru
  }
  return strategy
}

const deployments: KindOverrides = {
  defaults(o) {
    const spec = obj(o.spec)
    spec.replicas ??= 1
    spec.revisionHistoryLimit ??= 10
    spec.progressDeadlineSeconds ??= 600
    spec.strategy = rollingUpdateDefaults(spec.strategy, { maxUnavailable: '25%', maxSurge: '25%' })
    defaultTemplate(spec)
    o.spec = spec
  },
  prepareForCreate(o) {
    o.status = {}
  },
  validate: validateDeployment,
  validateUpdate: validateDeploymentUpdate,
  validateStatusUpdate: validateDeploymentStatusUpdate,
  table: {
    definitions: [
      NAME_COLUMN,
      col('Ready', 'Number of the pod with ready state'),
      col('Up-to-date', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.', 0, 'integer'),
      col('Available', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.', 0, 'integer'),
      AGE_COLUMN,
      col('Containers', 'Names of each container in the template.', 1),
      col('Images', 'Images referenced by each container in the template.', 1),
      col('Selector', 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.', 1),
    ],
    cells: (o, now) => {
      const spec = obj(o.spec)
      const status = obj(o.status)
      const desired = typeof spec.replicas === 'number' ? spec.replicas : 1
      return [
        o.metadata.name,
        `${num(status.readyReplicas)}/${desired}`,
        num(status.updatedReplicas),
        num(status.availableReplicas),
        age(o, now),
        images(o).map((c) => str(c.name)).join(','),
        images(o).map((c) => str(c.image)).join(','),
        selectorText(o),
      ]
    },
  },
}

function replicaTable(): TableColumns {
  return {
    definitions: [
      NAME_COLUMN,
      col('Desired', 'Replicas is the number of desired replicas.', 0, 'integer'),
      col('Current', 'Replicas is the most recently observed number of replicas.', 0, 'integer'),
      col('Ready', 'The number of ready replicas for this replica set.', 0, 'integer'),
      AGE_COLUMN,
      col('Containers', 'Names of each container in the template.', 1),
      col('Images', 'Images referenced by each container in the template.', 1),
      col('Selector', 'Selector is a label query over pods that should match the replica count.', 1),
    ],
    cells: (o, now) => {
      const spec = obj(o.spec)
      const status = obj(o.status)
      // A ReplicationController's selector is a plain map; a ReplicaSet's a LabelSelector.
      const selector = isPlainObject(obj(spec.selector).matchLabels) || Array.isArray(obj(spec.selector).matchExpressions) ? selectorText(o) : Object.entries(obj(spec.selector)).map(([k, v]) => `${k}=${str(v)}`).join(',')
      return [
        o.metadata.name,
        typeof spec.replicas === 'number' ? spec.replicas : 1,
        num(status.replicas),
        num(status.readyReplicas),
        age(o, now),
        images(o).map((c) => str(c.name)).join(','),
        images(o).map((c) => str(c.image)).join(','),
        selector,
      ]
    },
  }
}

const replicaFields: Pick<KindOverrides, 'selectableFields' | 'fields'> = {
  selectableFields: ['status.replicas'],
  fields: (o) => ({ 'status.replicas': String(num(obj(o.status).replicas)) }),
}

const replicasets: KindOverrides = {
  defaults(o) {
    const spec = obj(o.spec)
    spec.replicas ??= 1
    defaultTemplate(spec)
    o.spec = spec
  },
  prepareForCreate(o) {
    o.status = { replicas: 0 }
  },
  validate: validateReplicaSet,
  validateUpdate: validateReplicaSetUpdate,
  validateStatusUpdate: validateReplicaSetStatusUpdate,
  ...replicaFields,
  table: replicaTable(),
}

const replicationcontrollers: KindOverrides = {
  /**
   * SetDefaults_ReplicationController: without a selector, or without labels, the controller
   * takes its template's labels for them (so `kubectl expose rc` and `-l` find it).
   */
  defaults(o) {
    const spec = obj(o.spec)
    const templateLabels = obj(obj(spec.template).metadata).labels
    if (isPlainObject(templateLabels)) {
      if (Object.keys(obj(spec.selector)).length === 0) spec.selector = { ...templateLabels }
      if (Object.keys(o.metadata.labels ?? {}).length === 0) o.metadata.labels = { ...(templateLabels as Record<string, string>) }
    }
    spec.replicas ??= 1
    if (isPlainObject(spec.template)) defaultTemplate(spec)
    o.spec = spec
  },
  prepareForCreate(o) {
    o.status = { replicas: 0 }
  },
  validate: validateReplicationController,
  validateStatusUpdate: validateReplicationControllerStatusUpdate,
  ...replicaFields,
  table: replicaTable(),
}

const statefulsets: KindOverrides = {
  // ValidateStatefulSetName: a DNS label (pods are named after it).
  validateName: nameIsDNSLabel,
  defaults(o) {
    const spec = obj(o.spec)
    spec.replicas ??= 1
    spec.podManagementPolicy ??= 'OrderedReady'
    spec.revisionHistoryLimit ??= 10
    spec.updateStrategy = rollingUpdateDefaults(spec.updateStrategy, { partition: 0 })
    defaultTemplate(spec)
    o.spec = spec
  },
  prepareForCreate(o) {
    o.status = { replicas: 0, availableReplicas: 0 }
  },
  validate: validateStatefulSet,
  validateUpdate: validateStatefulSetUpdate,
  validateStatusUpdate: validateStatefulSetStatusUpdate,
  table: {
    definitions: [NAME_COLUMN, col('Ready', 'Number of the pod with ready state'), AGE_COLUMN],
    cells: (o, now) => [o.metadata.name, `${num(obj(o.status).readyReplicas)}/${typeof obj(o.spec).replicas === 'number' ? obj(o.spec).replicas : 1}`, age(o, now)],
  },
}

const daemonsets: KindOverrides = {
  defaults(o) {
    const spec = obj(o.spec)
    spec.revisionHistoryLimit ??= 10
    spec.updateStrategy = rollingUpdateDefaults(spec.updateStrategy, { maxUnavailable: 1, maxSurge: 0 })
    defaultTemplate(spec)
    o.spec = spec
  },
  prepareForCreate(o) {
    o.status = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }
  },
  validate: validateDaemonSet,
  validateUpdate: validateDaemonSetUpdate,
  validateStatusUpdate: validateDaemonSetStatusUpdate,
  table: {
    definitions: [
      NAME_COLUMN,
      col('Desired', 'The total number of nodes that should be running the daemon pod.', 0, 'integer'),
      col('Current', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.', 0, 'integer'),
      col('Ready', 'numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.', 0, 'integer'),
      col('Up-to-date', 'The total number of nodes that are running updated daemon pod', 0, 'integer'),
      col('Available', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.', 0, 'integer'),
      col('Node Selector', 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
      AGE_COLUMN,
    ],
    cells: (o, now) => {
      const s = obj(o.status)
      const nodeSelector = Object.entries(obj(obj(obj(obj(o.spec).template).spec).nodeSelector)).map(([k, v]) => `${k}=${str(v)}`).join(',') || '<none>'
      return [o.metadata.name, num(s.desiredNumberScheduled), num(s.currentNumberScheduled), num(s.numberReady), num(s.updatedNumberScheduled), num(s.numberAvailable), nodeSelector, age(o, now)]
    },
  },
}

const jobs: KindOverrides = {
  defaults(o) {
    const spec = obj(o.spec)
    // SetDefaults_Job: both counts 1 when neither is set; parallelism 1 when unset.
    if ((spec.completions === undefined || spec.completions === null) && (spec.parallelism === undefined || spec.parallelism === null)) spec.completions = 1
    spec.parallelism ??= 1
    spec.backoffLimit ??= 6
    spec.completionMode ??= 'NonIndexed'
    spec.suspend ??= false
    // SetDefaults_PodSpec gives the template restartPolicy Always, which a Job refuses: the
    // reference's validation asks for OnFailure or Never.
    if (isPlainObject(spec.template)) defaultTemplate(spec)
    o.spec = spec
  },
  prepareForCreate(o) {
    generateJobSelector(o)
    o.status = {}
  },
  validate: validateJob,
  validateUpdate: validateJobUpdate,
  validateStatusUpdate: validateJobStatusUpdate,
  selectableFields: ['status.successful'],
  fields: (o) => ({ 'status.successful': String(num(obj(o.status).succeeded)) }),
  table: {
    definitions: [NAME_COLUMN, col('Status', 'Status of the job.'), col('Completions', 'The desired number of successfully finished pods the job should be run with.'), col('Duration', 'Time required to complete the job.'), AGE_COLUMN],
    cells: (o, now) => {
      const s = obj(o.status)
      const completions = obj(o.spec).completions
      return [o.metadata.name, s.succeeded ? 'Complete' : 'Running', `${num(s.succeeded)}/${typeof completions === 'number' ? completions : 1}`, '', age(o, now)]
    },
  },
}

const cronjobs: KindOverrides = {
  defaults(o) {
    const spec = obj(o.spec)
    spec.concurrencyPolicy ??= 'Allow'
    spec.suspend ??= false
    spec.successfulJobsHistoryLimit ??= 3
    spec.failedJobsHistoryLimit ??= 1
    // SetObjectDefaults_CronJob: the job template's pod spec gets the pod defaults.
    if (isPlainObject(spec.jobTemplate)) {
      const jobSpec = obj(spec.jobTemplate.spec)
      if (isPlainObject(jobSpec.template)) defaultTemplate(jobSpec)
      spec.jobTemplate.spec = jobSpec
    }
    o.spec = spec
  },
  prepareForCreate(o) {
    o.status = {}
  },
  validate: validateCronJob,
  validateUpdate: validateCronJobUpdate,
  table: {
    definitions: [
      NAME_COLUMN,
      col('Schedule', 'The schedule in Cron format.'),
      col('Timezone', 'The time zone name for the given schedule.'),
      col('Suspend', 'This flag tells the controller to suspend subsequent executions.', 0, 'boolean'),
      col('Active', 'A list of pointers to currently running jobs.', 0, 'integer'),
      col('Last Schedule', 'Information when was the last time the job was successfully scheduled.'),
      AGE_COLUMN,
    ],
    cells: (o, now) => {
      const spec = obj(o.spec)
      const status = obj(o.status)
      return [o.metadata.name, str(spec.schedule), str(spec.timeZone) || '<none>', spec.suspend === true ? 'True' : 'False', arr(status.active).length, status.lastScheduleTime ? age({ metadata: { creationTimestamp: str(status.lastScheduleTime) } }, now) : '<none>', age(o, now)]
    },
  },
}

// ---- services ----

/** The default `--service-cluster-ip-range`. */
export const SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24'

function portsText(o: KubeObject): string {
  const ports = arr(obj(o.spec).ports).map(obj)
  if (ports.length === 0) return '<none>'
  return ports
    .map((p) => `${num(p.port)}${typeof p.nodePort === 'number' && p.nodePort > 0 ? `:${p.nodePort}` : ''}/${str(p.protocol, 'TCP')}`)
    .join(',')
}

function externalIP(o: KubeObject): string {
  const spec = obj(o.spec)
  const type = str(spec.type, 'ClusterIP')
  const external = arr(spec.externalIPs).map((x) => str(x))
  if (type === 'ExternalName') return str(spec.externalName)
  if (type === 'LoadBalancer') {
    const ingress = arr(obj(obj(o.status).loadBalancer).ingress).map(obj).map((i) => str(i.ip) || str(i.hostname)).filter(Boolean)
    const all = [...ingress, ...external]
    return all.length > 0 ? all.join(',') : '<pending>'
  }
  return external.length > 0 ? external.join(',') : '<none>'
}

const services: KindOverrides = {
  validateName: nameIsDNS1035Label,
  defaults(o) {
    const spec = obj(o.spec)
    spec.type ??= 'ClusterIP'
    spec.sessionAffinity ??= 'None'
    if (spec.type !== 'ExternalName') {
      spec.internalTrafficPolicy ??= 'Cluster'
      spec.ipFamilies ??= ['IPv4']
      spec.ipFamilyPolicy ??= 'SingleStack'
    }
    // SetDefaults_Service: externally accessible services (NodePort, LoadBalancer, ClusterIP
    // with external IPs) route external traffic cluster-wide unless told otherwise.
    if (spec.type === 'NodePort' || spec.type === 'LoadBalancer' || (spec.type === 'ClusterIP' && arr(spec.externalIPs).length > 0)) spec.externalTrafficPolicy ??= 'Cluster'
    if (spec.type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true
    for (const p of arr(spec.ports)) {
      if (!isPlainObject(p)) continue
      p.protocol ??= 'TCP'
      p.targetPort ??= p.port
    }
    o.spec = spec
  },
  prepareForCreate(o) {
    o.status = { loadBalancer: {} }
  },
  prepareForUpdate(o, old) {
    const spec = obj(o.spec)
    const oldSpec = obj(old.spec)
    // The reference's beginUpdate, before validation: patchAllocatedValues (the allocated cluster
    // IPs stay when an update leaves them out), then normalizeClusterIPs (clusterIP and
    // clusterIPs kept in step, so a changed clusterIP is reported as clusterIPs[0] changing).
    if (spec.type !== 'ExternalName' && oldSpec.type !== 'ExternalName') {
      if (!spec.clusterIP && oldSpec.clusterIP !== undefined) spec.clusterIP = oldSpec.clusterIP
      if (arr(spec.clusterIPs).length === 0 && arr(oldSpec.clusterIPs).length > 0) spec.clusterIPs = oldSpec.clusterIPs
    }
    normalizeClusterIPsOnUpdate(spec, oldSpec)
    o.spec = spec
  },
  validate: validateService,
  validateUpdate: validateServiceUpdate,
  validateStatusUpdate: validateServiceStatusUpdate,
  table: {
    definitions: [
      NAME_COLUMN,
      col('Type', 'type determines how the Service is exposed.'),
      col('Cluster-IP', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
      col('External-IP', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
      col('Port(s)', 'The list of ports that are exposed by this service.'),
      AGE_COLUMN,
      col('Selector', 'Route service traffic to pods with label keys and values matching this selector.', 1),
    ],
    cells: (o, now) => {
      const spec = obj(o.spec)
      const selector = Object.entries(obj(spec.selector)).map(([k, v]) => `${k}=${str(v)}`).join(',') || '<none>'
      return [o.metadata.name, str(spec.type, 'ClusterIP'), str(spec.clusterIP) || '<none>', externalIP(o), portsText(o), age(o, now), selector]
    },
  },
}

// ---- config and identity ----

const secrets: KindOverrides = {
  defaults(o) {
    o.type ??= 'Opaque'
  },
  validate: validateSecret,
  validateUpdate: validateSecretUpdate,
  selectableFields: ['type'],
  fields: (o) => ({ type: str(o.type) }),
  table: {
    definitions: [NAME_COLUMN, col('Type', 'The type of the secret'), col('Data', 'The number of data entries in the secret', 0, 'integer'), AGE_COLUMN],
    cells: (o, now) => [o.metadata.name, str(o.type), Object.keys(obj(o.data)).length, age(o, now)],
  },
}

/** The reference's secrets fold stringData into data (base64) on write. */
function foldStringData(o: KubeObject): void {
  if (!isPlainObject(o.stringData)) return
  const data = obj(o.data)
  for (const [k, v] of Object.entries(o.stringData)) data[k] = Buffer.from(str(v)).toString('base64')
  o.data = data
  delete o.stringData
}
secrets.prepareForCreate = (o) => foldStringData(o)
secrets.prepareForUpdate = (o) => foldStringData(o)

const serviceaccounts: KindOverrides = {
  table: {
    definitions: [NAME_COLUMN, col('Secrets', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.', 0, 'integer'), AGE_COLUMN],
    cells: (o, now) => [o.metadata.name, arr(o.secrets).length, age(o, now)],
  },
}

const events: KindOverrides = {
  validateName: anyName,
  validate: validateEvent,
  validateUpdate: validateEventUpdate,
  selectableFields: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  fields: (o) => {
    const io = obj(o.involvedObject)
    const out: Record<string, string> = {}
    for (const f of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) out[`involvedObject.${f}`] = str(io[f])
    out.reason = str(o.reason)
    out.reportingComponent = str(o.reportingComponent)
    out.source = str(obj(o.source).component) || str(o.reportingComponent)
    out.type = str(o.type)
    return out
  },
  table: {
    definitions: [
      col('Last Seen', 'The time at which the most recent occurrence of this event was recorded.'),
      col('Type', 'Type of this event (Normal, Warning), new types could be added in the future'),
      col('Reason', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
      col('Object', 'The object that this event is about.'),
      col('Subobject', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].', 1),
      col('Source', 'The component reporting this event. Should be a short machine understandable string.', 1),
      col('Message', 'A human-readable description of the status of this operation.'),
      col('First Seen', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', 1),
      col('Count', 'The number of times this event has occurred.', 1),
      { ...NAME_COLUMN, priority: 1 },
    ],
    cells: (o, now) => {
      const since = (ts: unknown) => {
        const t = typeof ts === 'string' && ts !== '' ? Date.parse(ts) : Number.NaN
        return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t)
      }
      const first = o.firstTimestamp ? since(o.firstTimestamp) : since(o.eventTime)
      let last = o.lastTimestamp ? since(o.lastTimestamp) : first
      let count = num(o.count)
      const series = obj(o.series)
      if (isPlainObject(o.series)) {
        last = since(series.lastObservedTime)
        count = num(series.count)
      } else if (count === 0) count = 1
      const io = obj(o.involvedObject)
      const kind = str(io.kind).toLowerCase()
      const target = str(io.name) ? `${kind}/${str(io.name)}` : kind
      const source = obj(o.source)
      const component = str(source.component) || str(o.reportingComponent)
      const instance = str(source.host) || str(o.reportingInstance)
      return [last, str(o.type), str(o.reason), target, str(io.fieldPath), instance ? `${component}, ${instance}` : component, str(o.message).trim(), first, count, o.metadata.name]
    },
  },
}

const nodes: KindOverrides = {
  validate: validateNode,
  validateUpdate: validateNodeUpdate,
  validateStatusUpdate: validateNodeUpdate,
  selectableFields: ['spec.unschedulable'],
  fields: (o) => ({ 'spec.unschedulable': String(obj(o.spec).unschedulable === true) }),
  table: {
    definitions: [NAME_COLUMN, col('Status', 'The status of the node'), col('Roles', 'The roles of the node'), AGE_COLUMN, col('Version', 'Kubelet Version reported by the node.')],
    cells: (o, now) => {
      const ready = arr(obj(o.status).conditions).map(obj).find((c) => c.type === 'Ready')
      const status = ready?.status === 'True' ? 'Ready' : ready ? 'NotReady' : 'Unknown'
      const roles = Object.keys(o.metadata.labels ?? {})
        .filter((k) => k.startsWith('node-role.kubernetes.io/'))
        .map((k) => k.slice('node-role.kubernetes.io/'.length))
      return [o.metadata.name, obj(o.spec).unschedulable === true ? `${status},SchedulingDisabled` : status, roles.join(',') || '<none>', age(o, now), str(obj(obj(o.status).nodeInfo).kubeletVersion)]
    },
  },
}

// ---- rbac ----

export const CREATED_AT: TableColumns = {
  definitions: [NAME_COLUMN, col('Created At', 'CreationTimestamp is a timestamp representing the server time when this object was created.', 0, 'date')],
  cells: (o) => [o.metadata.name, str(o.metadata.creationTimestamp)],
}

function bindingTable(): TableColumns {
  return {
    definitions: [NAME_COLUMN, col('Role', 'RoleRef references a Role or ClusterRole.'), AGE_COLUMN],
    cells: (o, now) => {
      const ref = obj(o.roleRef)
      return [o.metadata.name, `${str(ref.kind)}/${str(ref.name)}`, age(o, now)]
    },
  }
}

const rbacRole: KindOverrides = { validateName: pathSegmentName, validate: validateRole, table: CREATED_AT }
const rbacClusterRole: KindOverrides = { validateName: pathSegmentName, validate: validateClusterRole, table: CREATED_AT }
const rbacBinding: KindOverrides = { validateName: pathSegmentName, defaults: defaultBinding, validate: validateRoleBinding, validateUpdate: validateRoleBindingUpdate, table: bindingTable() }
const rbacClusterBinding: KindOverrides = {
  validateName: pathSegmentName,
  defaults: defaultBinding,
  validate: validateClusterRoleBinding,
  validateUpdate: validateClusterRoleBindingUpdate,
  table: bindingTable(),
}

// ---- the rest ----

const priorityclasses: KindOverrides = {
  defaults(o) {
    o.preemptionPolicy ??= 'PreemptLowerPriority'
  },
  validate: validatePriorityClass,
  validateUpdate: validatePriorityClassUpdate,
  table: {
    definitions: [NAME_COLUMN, col('Value', 'The value of this priority class.', 0, 'integer'), col('Global-Default', 'globalDefault specifies whether this PriorityClass should be considered as the default priority.', 0, 'boolean'), AGE_COLUMN, col('PreemptionPolicy', 'PreemptionPolicy is the Policy for preempting pods with lower priority.')],
    cells: (o, now) => [o.metadata.name, num(o.value), o.globalDefault === true, age(o, now), str(o.preemptionPolicy)],
  },
}

const leases: KindOverrides = {
  validate: validateLease,
  table: {
    definitions: [NAME_COLUMN, col('Holder', 'The holder of the lease'), AGE_COLUMN],
    cells: (o, now) => [o.metadata.name, str(obj(o.spec).holderIdentity), age(o, now)],
  },
}

const OVERRIDES: Record<string, KindOverrides> = {
  pods,
  services,
  secrets,
  serviceaccounts,
  events,
  nodes,
  replicationcontrollers,
  deployments,
  replicasets,
  statefulsets,
  daemonsets,
  jobs,
  cronjobs,
  roles: rbacRole,
  clusterroles: rbacClusterRole,
  rolebindings: rbacBinding,
  clusterrolebindings: rbacClusterBinding,
  poddisruptionbudgets: { validate: validatePodDisruptionBudget, validateStatusUpdate: validatePodDisruptionBudgetStatusUpdate },
  priorityclasses,
  leases,
  controllerrevisions: { validate: validateControllerRevision, validateUpdate: validateControllerRevisionUpdate },
}

/** Subresources served by handlers of their own rather than the generic store (ApiDeps.virtualHandlers). */
const VIRTUAL_SUBRESOURCES: Record<string, string[]> = {
  '/serviceaccounts': ['token'],
}

/** Overrides of one group version's resource, by `<group>/<version>/<resource>`. */
/** LeaseCandidates (beta and alpha only): their name a config map key, ValidateLeaseCandidate. */
const leaseCandidates: KindOverrides = { validateName: leaseCandidateName, validate: validateLeaseCandidate, validateUpdate: validateLeaseCandidateUpdate }

const VERSIONED_OVERRIDES: Record<string, KindOverrides> = {
  ...AUTOSCALING,
  ...CERTIFICATES,
  ...STORAGE,
  ...NETWORKING,
  ...CLUSTER_CONFIG,
  'events.k8s.io/v1/events': eventsV1(events),
  'scheduling.k8s.io/v1alpha2/podgroups': { validateName: validatePodGroupName, validate: validatePodGroup, validateUpdate: validatePodGroupUpdate },
  'scheduling.k8s.io/v1alpha2/workloads': { validate: validateWorkload, validateUpdate: validateWorkloadUpdate },
  'coordination.k8s.io/v1beta1/leasecandidates': leaseCandidates,
  'coordination.k8s.io/v1alpha2/leasecandidates': leaseCandidates,
  'internal.apiserver.k8s.io/v1alpha1/storageversions': {
    validateName: storageVersionName,
    validate: validateStorageVersion,
    validateUpdate: validateStorageVersionUpdate,
    validateStatusUpdate: validateStorageVersionStatusUpdate,
  },
  'storagemigration.k8s.io/v1beta1/storageversionmigrations': {
    validate: validateStorageVersionMigration,
    validateUpdate: validateStorageVersionMigrationUpdate,
    validateStatusUpdate: validateStorageVersionMigrationStatusUpdate,
  },
  '/v1/podtemplates': {
    defaults(o) {
      // SetDefaults_PodSpec reaches every pod spec, the PodTemplate's too.
      const template = obj(o.template)
      template.spec = obj(template.spec)
      defaultPodSpec(template.spec as Obj)
      o.template = template
    },
    validate: validatePodTemplate,
  },
  '/v1/endpoints': {
    defaults(o) {
      // SetDefaults_EndpointPort.
      for (const s of arr(o.subsets)) for (const p of arr(obj(s).ports)) if (isPlainObject(p)) p.protocol ??= 'TCP'
    },
    validate: validateEndpoints,
  },
  '/v1/limitranges': { validate: validateLimitRange },
  '/v1/persistentvolumes': { validate: validatePersistentVolume, validateUpdate: validatePersistentVolumeUpdate },
  '/v1/persistentvolumeclaims': { validate: validatePersistentVolumeClaim, validateUpdate: validatePersistentVolumeClaimUpdate },
  '/v1/resourcequotas': { validate: validateResourceQuota, validateUpdate: validateResourceQuotaUpdate, validateStatusUpdate: validateResourceQuotaStatusUpdate },
}

/**
 * A beta or alpha version's behaviour is its GA version's (defaults, printer, selectors),
 * without the GA version's storage form.
 */
function gaOverrides(info: ResourceInfo): KindOverrides | undefined {
  if (/^v\d+$/.test(info.version)) return undefined
  const ga = Object.entries(VERSIONED_OVERRIDES).find(([key]) => {
    const [group, version, resource] = key.split('/')
    return group === info.group && resource === info.resource && /^v\d+$/.test(version ?? '')
  })
  if (!ga) return undefined
  const { storageVersion: _s, ...rest } = ga[1] as KindOverrides & { storageVersion?: unknown }
  void _s
  return rest
}

function overridesOf(info: ResourceInfo): KindOverrides {
  const overrides = VERSIONED_OVERRIDES[`${info.group}/${info.version}/${info.resource}`] ?? gaOverrides(info) ?? OVERRIDES[info.resource] ?? {}
  const printer = CORE_PRINTERS[info.resource]
  // Kinds the reference has no printer for get its default Table: name and creation time.
  return { table: printer ?? CREATED_AT, ...overrides }
}

/** Every generated kind as a Strategy. */
export const BUILTIN_KINDS: readonly Strategy[] = RESOURCES.map((info) => {
  const extra = VIRTUAL_SUBRESOURCES[`${info.group}/${info.resource}`] ?? []
  return dataStrategy(extra.length > 0 ? { ...info, subresources: [...info.subresources, ...extra] } : info, overridesOf(info))
})
