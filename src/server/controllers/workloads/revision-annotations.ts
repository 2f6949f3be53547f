/**
 * The revision annotations a Deployment and its ReplicaSets carry (deployment_util.go:
 * RevisionAnnotation, RevisionHistoryAnnotation, DesiredReplicasAnnotation,
 * MaxReplicasAnnotation; SetNewReplicaSetAnnotations copies the deployment's other annotations
 * onto its new ReplicaSet and bumps its revision, keeping the revisions it had in the history).
 */
export const REVISION = 'deployment.kubernetes.io/revision'
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history'
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas'
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas'
const ROLLBACK_TO = 'deprecated.deployment.rollback.to'
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration'

/** annotationsToSkip: never copied from a deployment to its ReplicaSets (kubectl's rollback skips the same). */
const SKIPPED = new Set([LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, ROLLBACK_TO])

/** MaxRevHistoryLengthInChars: the history annotation keeps its newest revisions within it. */
const MAX_HISTORY_CHARS = 2000

export function revisionOf(annotations: Record<string, string> | undefined): number {
  const value = Number.parseInt(annotations?.[REVISION] ?? '', 10)
  return Number.isNaN(value) ? 0 : value
}

/**
 * SetNewReplicaSetAnnotations: the ReplicaSet's annotations after copying the deployment's and
 * setting `newRevision` (when higher); `exists` false for a ReplicaSet about to be created, which
 * also gets the replica annotations. Answers whether anything changed.
 */
export function setNewReplicaSetAnnotations(
  deployment: Record<string, string> | undefined,
  rs: Record<string, string>,
  newRevision: number,
  exists: boolean,
  replicas: { desired: number; max: number },
): boolean {
  let changed = false
  for (const [k, v] of Object.entries(deployment ?? {})) {
    if (SKIPPED.has(k) || rs[k] === v) continue
    rs[k] = v
    changed = true
  }
  const oldRevision = rs[REVISION]
  const oldNumber = Number.parseInt(oldRevision ?? '', 10)
  if (oldRevision === undefined || Number.isNaN(oldNumber) || oldNumber < newRevision) {
    rs[REVISION] = String(newRevision)
    changed = true
    if (oldRevision !== undefined && oldRevision !== '') {
      let history = rs[REVISION_HISTORY] ? [...rs[REVISION_HISTORY].split(','), oldRevision] : [oldRevision]
      while (history.join(',').length > MAX_HISTORY_CHARS && history.length > 1) history = history.slice(1)
      rs[REVISION_HISTORY] = history.join(',')
    }
  }
  if (!exists && setReplicasAnnotations(rs, replicas.desired, replicas.max)) changed = true
  return changed
}

/** SetReplicasAnnotations. */
export function setReplicasAnnotations(rs: Record<string, string>, desired: number, max: number): boolean {
  if (rs[DESIRED_REPLICAS] === String(desired) && rs[MAX_REPLICAS] === String(max)) return false
  rs[DESIRED_REPLICAS] = String(desired)
  rs[MAX_REPLICAS] = String(max)
  return true
}
