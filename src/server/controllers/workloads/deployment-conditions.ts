/**
 * The Deployment's conditions, reasons and messages as the reference writes them
 * (pkg/controller/deployment/util/deployment_util.go: the reason constants, NewDeploymentCondition,
 * SetDeploymentCondition keeping lastTransitionTime while the status holds and leaving a
 * condition of the same status and reason untouched).
 */

export interface DeploymentCondition {
  type: string
  status: 'True' | 'False' | 'Unknown'
  lastUpdateTime?: string
  lastTransitionTime?: string
  reason?: string
  message?: string
}

export const AVAILABLE = 'Available'
export const PROGRESSING = 'Progressing'
export const REPLICA_FAILURE = 'ReplicaFailure'

// deployment_util.go's reasons.
export const NEW_RS_CREATED = 'NewReplicaSetCreated'
export const FOUND_NEW_RS = 'FoundNewReplicaSet'
export const RS_UPDATED = 'ReplicaSetUpdated'
export const NEW_RS_AVAILABLE = 'NewReplicaSetAvailable'
export const TIMED_OUT = 'ProgressDeadlineExceeded'
export const PAUSED = 'DeploymentPaused'
export const RESUMED = 'DeploymentResumed'
export const MINIMUM_AVAILABLE = 'MinimumReplicasAvailable'
export const MINIMUM_UNAVAILABLE = 'MinimumReplicasUnavailable'

// The messages, as the reference formats them (%q quotes the name).
export const messages = {
  created: (rs: string) => `Created new replica set ${JSON.stringify(rs)}`,
  found: (rs: string) => `Found new replica set ${JSON.stringify(rs)}`,
  progressing: (rs: string) => `ReplicaSet ${JSON.stringify(rs)} is progressing.`,
  progressed: (rs: string) => `ReplicaSet ${JSON.stringify(rs)} has successfully progressed.`,
  timedOut: (rs: string) => `ReplicaSet ${JSON.stringify(rs)} has timed out progressing.`,
  deploymentProgressing: (d: string) => `Deployment ${JSON.stringify(d)} is progressing.`,
  deploymentProgressed: (d: string) => `Deployment ${JSON.stringify(d)} has successfully progressed.`,
  deploymentTimedOut: (d: string) => `Deployment ${JSON.stringify(d)} has timed out progressing.`,
  paused: 'Deployment is paused',
  resumed: 'Deployment is resumed',
  minimumAvailable: 'Deployment has minimum availability.',
  minimumUnavailable: 'Deployment does not have minimum availability.',
}

export function getCondition(conditions: readonly DeploymentCondition[] | undefined, type: string): DeploymentCondition | undefined {
  return conditions?.find((c) => c.type === type)
}

export function newCondition(type: string, status: DeploymentCondition['status'], reason: string, message: string, now: string): DeploymentCondition {
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message }
}

/** SetDeploymentCondition: the conditions with `condition` in place of its type's. */
export function setCondition(conditions: readonly DeploymentCondition[], condition: DeploymentCondition): DeploymentCondition[] {
  const current = getCondition(conditions, condition.type)
  if (current && current.status === condition.status && current.reason === condition.reason) return [...conditions]
  const next = { ...condition }
  if (current && current.status === condition.status) next.lastTransitionTime = current.lastTransitionTime
  return [...conditions.filter((c) => c.type !== condition.type), next]
}

export function removeCondition(conditions: readonly DeploymentCondition[], type: string): DeploymentCondition[] {
  return conditions.filter((c) => c.type !== type)
}
