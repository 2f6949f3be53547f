/**
 * How the reference's horizontal controller turns a metrics proposal into the replica count it
 * sets (pkg/controller/podautoscaler/horizontal.go): without `spec.behavior`,
 * normalizeDesiredReplicas (the highest recommendation of the downscale stabilization window,
 * then min/max and a scale-up limit of max(2 × current, 4)); with it,
 * normalizeDesiredReplicasWithBehaviors (the scale-up and scale-down stabilization windows, then
 * the policies' rate limits over the recent scale events, selected by selectPolicy). Each sets the
 * AbleToScale and ScalingLimited conditions with the reference's reasons and messages.
 */

export interface ScalingPolicy {
  readonly type: 'Pods' | 'Percent'
  readonly value: number
  readonly periodSeconds: number
}

export interface ScalingRules {
  readonly stabilizationWindowSeconds: number
  readonly selectPolicy: 'Max' | 'Min' | 'Disabled'
  readonly policies: readonly ScalingPolicy[]
}

export interface Behavior {
  readonly scaleUp: ScalingRules
  readonly scaleDown: ScalingRules
}

export interface Condition {
  readonly type: 'AbleToScale' | 'ScalingLimited'
  readonly status: 'True' | 'False'
  readonly reason: string
  readonly message: string
}

interface Recommendation {
  recommendation: number
  timestamp: number
}

interface ScaleEvent {
  replicaChange: number
  timestamp: number
  outdated: boolean
}

type Json = Record<string, unknown>
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {})

/** The reference's defaults (GenerateHPAScaleUpRules, GenerateHPAScaleDownRules), a window of the controller's when absent. */
export function behaviorOf(spec: unknown, downscaleStabilizationSeconds: number): Behavior | undefined {
  const behavior = obj(spec).behavior
  if (behavior === undefined || behavior === null) return undefined
  const rules = (raw: unknown, defaults: ScalingRules): ScalingRules => {
    const r = obj(raw)
    const policies = Array.isArray(r.policies) ? r.policies.map(obj).map((p) => ({ type: p.type === 'Pods' ? ('Pods' as const) : ('Percent' as const), value: Number(p.value ?? 0), periodSeconds: Number(p.periodSeconds ?? 0) })) : defaults.policies
    return {
      stabilizationWindowSeconds: typeof r.stabilizationWindowSeconds === 'number' ? r.stabilizationWindowSeconds : defaults.stabilizationWindowSeconds,
      selectPolicy: r.selectPolicy === 'Min' || r.selectPolicy === 'Disabled' ? r.selectPolicy : 'Max',
      policies,
    }
  }
  return {
    scaleUp: rules(obj(behavior).scaleUp, { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] }),
    scaleDown: rules(obj(behavior).scaleDown, { stabilizationWindowSeconds: downscaleStabilizationSeconds, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] }),
  }
}

/** One HPA's memory across syncs: its recommendations and (with a behavior) its scale events. */
export class ScalingHistory {
  private readonly recommendations: Recommendation[]
  private scaleUpEvents: ScaleEvent[] = []
  private scaleDownEvents: ScaleEvent[] = []

  /** recordInitialRecommendation: the target's size when the HPA is first seen. */
  constructor(currentReplicas: number, now: number) {
    this.recommendations = [{ recommendation: currentReplicas, timestamp: now }]
  }

  /** normalizeDesiredReplicas: no behavior. */
  normalize(now: number, downscaleWindowMs: number, current: number, desired: number, min: number, max: number, set: (c: Condition) => void): number {
    // stabilizeRecommendation
    let stabilized = desired
    let oldIndex = -1
    for (const [i, rec] of this.recommendations.entries()) {
      if (rec.timestamp < now - downscaleWindowMs) oldIndex = i
      else if (rec.recommendation > stabilized) stabilized = rec.recommendation
    }
    this.record(oldIndex, desired, now)
    if (stabilized !== desired) set({ type: 'AbleToScale', status: 'True', reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' })
    else set({ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' })
    // convertDesiredReplicasWithRules
    const scaleUpLimit = Math.max(2 * current, 4)
    const [maximum, limitReason, limitMessage] =
      max > scaleUpLimit ? [scaleUpLimit, 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate'] : [max, 'TooManyReplicas', 'the desired replica count is more than the maximum replica count']
    let result = stabilized
    let reason = 'DesiredWithinRange'
    let message = 'the desired count is within the acceptable range'
    if (stabilized < min) [result, reason, message] = [min, 'TooFewReplicas', 'the desired replica count is less than the minimum replica count']
    else if (stabilized > maximum) [result, reason, message] = [maximum, limitReason, limitMessage]
    set({ type: 'ScalingLimited', status: result === stabilized ? 'False' : 'True', reason, message })
    return result
  }

  /** normalizeDesiredReplicasWithBehaviors. */
  normalizeWithBehavior(now: number, behavior: Behavior, current: number, desired: number, min: number, max: number, set: (c: Condition) => void): number {
    // stabilizeRecommendationWithBehaviors
    const upCutoff = now - behavior.scaleUp.stabilizationWindowSeconds * 1000
    const downCutoff = now - behavior.scaleDown.stabilizationWindowSeconds * 1000
    let up = desired
    let down = desired
    let oldIndex = -1
    for (const [i, rec] of this.recommendations.entries()) {
      if (rec.timestamp > upCutoff) up = Math.min(rec.recommendation, up)
      if (rec.timestamp > downCutoff) down = Math.max(rec.recommendation, down)
      if (rec.timestamp < upCutoff && rec.timestamp < downCutoff) oldIndex = i
    }
    let stabilized = current
    if (stabilized < up) stabilized = up
    if (stabilized > down) stabilized = down
    this.record(oldIndex, desired, now)
    if (stabilized !== desired) {
      set(
        desired >= current
          ? { type: 'AbleToScale', status: 'True', reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' }
          : { type: 'AbleToScale', status: 'True', reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' },
      )
    } else set({ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' })
    // convertDesiredReplicasWithBehaviorRate
    let result = stabilized
    let reason = 'DesiredWithinRange'
    let message = 'the desired count is within the acceptable range'
    if (stabilized > current) {
      const limit = Math.max(this.scaleUpLimit(now, current, behavior.scaleUp), current)
      const [maximum, r, m] = max > limit ? [limit, 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate'] : [max, 'TooManyReplicas', 'the desired replica count is more than the maximum replica count']
      if (stabilized > maximum) [result, reason, message] = [maximum, r, m]
    } else if (stabilized < current) {
      const limit = Math.min(this.scaleDownLimit(now, current, behavior.scaleDown), current)
      const [minimum, r, m] = min < limit ? [limit, 'ScaleDownLimit', 'the desired replica count is decreasing faster than the maximum scale rate'] : [min, 'TooFewReplicas', 'the desired replica count is less than the minimum replica count']
      if (stabilized < minimum) [result, reason, message] = [minimum, r, m]
    }
    set({ type: 'ScalingLimited', status: result === stabilized ? 'False' : 'True', reason, message })
    return result
  }

  /** storeScaleEvent (kept only with a behavior, as the reference does). */
  storeScaleEvent(now: number, behavior: Behavior | undefined, previous: number, next: number): void {
    if (!behavior) return
    if (next > previous) this.scaleUpEvents = storeEvent(this.scaleUpEvents, now, longestPeriod(behavior.scaleUp), next - previous)
    else if (next < previous) this.scaleDownEvents = storeEvent(this.scaleDownEvents, now, longestPeriod(behavior.scaleDown), previous - next)
  }

  private record(oldIndex: number, recommendation: number, now: number): void {
    if (oldIndex >= 0) this.recommendations[oldIndex] = { recommendation, timestamp: now }
    else this.recommendations.push({ recommendation, timestamp: now })
  }

  /** calculateScaleUpLimitWithScalingRules. */
  private scaleUpLimit(now: number, current: number, rules: ScalingRules): number {
    if (rules.selectPolicy === 'Disabled') return current
    const pick = rules.selectPolicy === 'Min' ? Math.min : Math.max
    let result = rules.selectPolicy === 'Min' ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER
    for (const policy of rules.policies) {
      const start = current - changeInPeriod(now, policy.periodSeconds, this.scaleUpEvents) + changeInPeriod(now, policy.periodSeconds, this.scaleDownEvents)
      const proposed = policy.type === 'Pods' ? start + policy.value : Math.ceil(start * (1 + policy.value / 100))
      result = pick(result, proposed)
    }
    return result
  }

  /** calculateScaleDownLimitWithBehaviors. */
  private scaleDownLimit(now: number, current: number, rules: ScalingRules): number {
    if (rules.selectPolicy === 'Disabled') return current
    const pick = rules.selectPolicy === 'Min' ? Math.max : Math.min
    let result = rules.selectPolicy === 'Min' ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER
    for (const policy of rules.policies) {
      const start = current - changeInPeriod(now, policy.periodSeconds, this.scaleUpEvents) + changeInPeriod(now, policy.periodSeconds, this.scaleDownEvents)
      const proposed = policy.type === 'Pods' ? start - policy.value : Math.trunc(start * (1 - policy.value / 100))
      result = pick(result, proposed)
    }
    return result
  }
}

const longestPeriod = (rules: ScalingRules): number => Math.max(0, ...rules.policies.map((p) => p.periodSeconds))

/** getReplicasChangePerPeriod. */
function changeInPeriod(now: number, periodSeconds: number, events: readonly ScaleEvent[]): number {
  const cutoff = now - periodSeconds * 1000
  return events.filter((e) => e.timestamp > cutoff).reduce((sum, e) => sum + e.replicaChange, 0)
}

/** markScaleEventsOutdated and the reuse of an outdated slot, as storeScaleEvent does. */
function storeEvent(events: ScaleEvent[], now: number, longestPeriodSeconds: number, change: number): ScaleEvent[] {
  const cutoff = now - longestPeriodSeconds * 1000
  for (const e of events) if (e.timestamp < cutoff) e.outdated = true
  const slot = events.findIndex((e) => e.outdated)
  const event = { replicaChange: change, timestamp: now, outdated: false }
  if (slot >= 0) events[slot] = event
  else events.push(event)
  return events
}
