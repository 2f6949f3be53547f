/**
 * apps/v1: Deployments, ReplicaSets, StatefulSets, DaemonSets (the reference's defaults, empty
 * status on create, printer columns) and ControllerRevisions. Validation in ../validation/apps.ts.
 */
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
import { nameIsDNSLabel } from '../validation/names.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { defaultTemplate } from './pod-defaults.js'
import { type Obj, arr, col, num, obj, str } from './values.js'
import { images, replicaFields, replicaTable, selectorText } from './workload-columns.js'

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

export const APPS: KindTable = {
  'apps/v1/deployments': {
    statusOwnedBySubresource: true,
    generation: true,
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
  },
  'apps/v1/replicasets': {
    statusOwnedBySubresource: true,
    generation: true,
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
  },
  'apps/v1/statefulsets': {
    statusOwnedBySubresource: true,
    generation: true,
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
  },
  'apps/v1/daemonsets': {
    statusOwnedBySubresource: true,
    generation: true,
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
  },
  'apps/v1/controllerrevisions': {
    validate: validateControllerRevision,
    validateUpdate: validateControllerRevisionUpdate,
    table: {
      definitions: [NAME_COLUMN, col('Controller', 'Controller of the object'), col('Revision', 'Revision indicates the revision of the state represented by Data.'), AGE_COLUMN],
      cells: (o, now) => {
        const owner = arr(o.metadata.ownerReferences).map(obj).find((r) => r.controller === true)
        let controller = '<none>'
        if (owner) {
          const group = str(owner.apiVersion).includes('/') ? str(owner.apiVersion).split('/')[0]! : ''
          controller = `${(group ? `${str(owner.kind)}.${group}` : str(owner.kind)).toLowerCase()}/${str(owner.name)}`
        }
        return [o.metadata.name, controller, num(o.revision), age(o, now)]
      },
    },
  },
}
