/**
 * The numbers of a rolling update, as the reference's deployment util computes them
 * (pkg/controller/deployment/util/deployment_util.go ResolveFenceposts, MaxSurge,
 * MaxUnavailable, NewRSNewReplicas; apimachinery intstr.GetScaledValueFromIntOrPercent):
 * a percentage of the replicas rounds up for maxSurge and down for maxUnavailable, and when both
 * come to zero maxUnavailable is one.
 */

export type IntOrPercent = number | string

/** GetScaledValueFromIntOrPercent. */
export function scaledValue(value: IntOrPercent | undefined, total: number, roundUp: boolean): number {
  if (value === undefined || value === null) return 0
  if (typeof value === 'number') return value
  const match = /^(-?\d+)%$/.exec(value)
  if (!match) return Number.parseInt(value, 10) || 0
  const scaled = (Number(match[1]) * total) / 100
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled)
}

export interface DeploymentStrategy {
  type?: string
  rollingUpdate?: { maxSurge?: IntOrPercent; maxUnavailable?: IntOrPercent }
}

/** ResolveFenceposts: [maxSurge, maxUnavailable] for `desired` replicas; the API defaults both to 25%. */
export function resolveFenceposts(strategy: DeploymentStrategy | undefined, desired: number): [number, number] {
  const surge = scaledValue(strategy?.rollingUpdate?.maxSurge ?? '25%', desired, true)
  let unavailable = scaledValue(strategy?.rollingUpdate?.maxUnavailable ?? '25%', desired, false)
  if (surge === 0 && unavailable === 0) unavailable = 1
  return [surge, unavailable]
}

export function isRollingUpdate(strategy: DeploymentStrategy | undefined): boolean {
  return (strategy?.type ?? 'RollingUpdate') === 'RollingUpdate'
}

export function maxSurge(strategy: DeploymentStrategy | undefined, replicas: number): number {
  if (!isRollingUpdate(strategy)) return 0
  return resolveFenceposts(strategy, replicas)[0]
}

export function maxUnavailable(strategy: DeploymentStrategy | undefined, replicas: number): number {
  if (!isRollingUpdate(strategy) || replicas === 0) return 0
  return Math.min(resolveFenceposts(strategy, replicas)[1], replicas)
}

/**
 * NewRSNewReplicas for a rolling update: the new ReplicaSet grows while the total stays within
 * replicas + maxSurge, never beyond replicas; Recreate scales it to replicas at once.
 */
export function newRSNewReplicas(strategy: DeploymentStrategy | undefined, replicas: number, allReplicas: number, newReplicas: number): number {
  if (!isRollingUpdate(strategy)) return replicas
  const maxTotal = replicas + maxSurge(strategy, replicas)
  if (allReplicas >= maxTotal) return newReplicas
  return newReplicas + Math.min(maxTotal - allReplicas, replicas - newReplicas)
}
