/**
 * The ReplicationController controller (the reference's pkg/controller/replication,
 * kube-controller-manager's `replicationcontroller-controller`): the ReplicaSet engine
 * (replicaset.ts) over core/v1 ReplicationControllers, whose selector is a plain label map
 * (the template's labels when absent, as defaulting sets it).
 */
import type { KubeObject } from '../api/registry/object.js'
import { type ReplicatedKind, ReplicaSetController } from './replicaset.js'
import type { Clock } from './clock.js'

export const REPLICATION_CONTROLLERS: ReplicatedKind = {
  name: 'replicationcontroller-controller',
  resource: { group: '', version: 'v1', resource: 'replicationcontrollers' },
  apiVersion: 'v1',
  kind: 'ReplicationController',
  // pkg/controller/replication/replication_controller.go: EventSource{Component: "replication-controller"}.
  component: 'replication-controller',
  serviceAccount: 'replication-controller',
  selects: (owner: KubeObject, labels) => {
    const spec = owner.spec as { selector?: Record<string, string>; template?: { metadata?: { labels?: Record<string, string> } } } | undefined
    const selector = spec?.selector ?? spec?.template?.metadata?.labels ?? {}
    return Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v)
  },
}

export function replicationControllerController(clock?: Clock): ReplicaSetController {
  return new ReplicaSetController(REPLICATION_CONTROLLERS, clock)
}
