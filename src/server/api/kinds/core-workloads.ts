/**
 * The core group's workloads: Pods (defaults, Pending status with its QoS class, the
 * subresources' validation, field selectors, the reference printer's columns), PodTemplates
 * and ReplicationControllers. Validation in ../validation/core/.
 */
import { type KubeObject, isPlainObject } from '../registry/object.js'
import {
  validatePod,
  validatePodEphemeralContainersUpdate,
  validatePodResize,
  validatePodStatusUpdate,
  validatePodTemplate,
  validatePodUpdate,
  validateReplicationController,
  validateReplicationControllerStatusUpdate,
} from '../validation/core.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { defaultPodSpec, defaultTemplate } from './pod-defaults.js'
import { podQOSClass } from './pod-qos.js'
import { type Obj, arr, col, num, obj, str } from './values.js'
import { replicaFields, replicaTable } from './workload-columns.js'

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

const labelsText = (labels: unknown) => Object.entries(obj(labels)).map(([k, v]) => `${k}=${str(v)}`).join(',') || '<none>'

export const CORE_WORKLOADS: KindTable = {
  '/v1/pods': {
    statusOwnedBySubresource: true,
    // Served by the node agents' connect handlers (src/server/nodeagent/).
    virtualSubresources: ['attach', 'exec', 'log', 'portforward', 'proxy'],
    generation: true,
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
    table: {
      definitions: [NAME_COLUMN, col('Containers', 'Names of each container in the template.'), col('Images', 'Images referenced by each container in the template.'), col('Pod Labels', 'The labels for the pod template.')],
      cells: (o) => {
        const template = obj(o.template)
        const containers = arr(obj(template.spec).containers).map(obj)
        return [o.metadata.name, containers.map((c) => str(c.name)).join(','), containers.map((c) => str(c.image)).join(','), labelsText(obj(template.metadata).labels)]
      },
    },
  },
  '/v1/replicationcontrollers': {
    statusOwnedBySubresource: true,
    generation: true,
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
  },
}
