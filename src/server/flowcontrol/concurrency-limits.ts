/**
 * How the server's seats are divided among the priority levels, as the reference's APF
 * configuration controller computes it (apf_controller.go, conc_alloc.go):
 *
 * - the server concurrency limit is --max-requests-inflight + --max-mutating-requests-inflight;
 * - a level's nominal limit is ceil(serverCL × nominalConcurrencyShares / sum of every level's
 *   shares), the exempt level's shares included;
 * - lendablePercent of it may be lent to other levels (minCL = nominal − lendable), and
 *   borrowingLimitPercent of it may be borrowed (maxCL = nominal + borrowing; no limit given
 *   means up to the whole server limit);
 * - the current limit starts at nominal − lendable/2 and is then set, every adjustment period,
 *   by dividing the sum of the nominal limits among the non-exempt levels in proportion to
 *   their recent seat demand, each kept between its lower and upper bound (the "fair
 *   allocation" problem the reference solves).
 */

/** The parts of a PriorityLevelConfiguration spec the limits depend on. */
export interface LevelShares {
  name: string
  exempt: boolean
  nominalConcurrencyShares: number
  lendablePercent?: number
  borrowingLimitPercent?: number
}

export interface LevelLimits {
  nominalCL: number
  lendableCL: number
  borrowingCL: number
  minCL: number
  maxCL: number
  /** The limit the level starts with before any demand is seen. */
  initialCL: number
}

/** The nominal, lower and upper limits of each level, by name. */
export function nominalLimits(serverConcurrencyLimit: number, levels: readonly LevelShares[]): Map<string, LevelLimits> {
  const shareSum = levels.reduce((sum, l) => sum + l.nominalConcurrencyShares, 0)
  const limits = new Map<string, LevelLimits>()
  for (const level of levels) {
    // Ceil: the limits may sum to a little more than the server's, as in the reference.
    const nominalCL = shareSum > 0 ? Math.ceil((serverConcurrencyLimit * level.nominalConcurrencyShares) / shareSum) : 0
    const lendableCL = level.lendablePercent === undefined ? 0 : goRound((nominalCL * level.lendablePercent) / 100)
    // The exempt level has no borrowing limit in its spec; the reference treats it as unbounded too.
    const borrowingCL = level.borrowingLimitPercent === undefined ? serverConcurrencyLimit : goRound((nominalCL * level.borrowingLimitPercent) / 100)
    limits.set(level.name, {
      nominalCL,
      lendableCL,
      borrowingCL,
      minCL: nominalCL - lendableCL,
      maxCL: nominalCL + borrowingCL,
      initialCL: nominalCL - Math.trunc(lendableCL / 2),
    })
  }
  return limits
}

/** Go's math.Round: halves away from zero (JavaScript's rounds them up). */
export function goRound(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x))
}

/** One class of the allocation problem: a demand (target) and the bounds of its share. */
export interface AllocationItem {
  target: number
  lowerBound: number
  upperBound: number
}

const MIN_TARGET = 0.001
const EPSILON = 0.0000001

/**
 * Divides `requiredSum` among the items: each gets fairProp × its target, clamped to its
 * bounds, with the single fairProp that makes the allocations add up to `requiredSum`.
 * Returns the allocations and fairProp; throws when the bounds make that impossible.
 */
export function computeConcurrencyAllocation(requiredSum: number, items: readonly AllocationItem[]): { allocs: number[]; fairProp: number } {
  if (requiredSum < 0) throw new Error('negative sums are not supported')
  let lowSum = 0
  let highSum = 0
  let targetSum = 0
  const targets = items.map((item, i) => {
    if (item.lowerBound < 0) throw new Error(`lower bound ${i} is ${item.lowerBound} but negative lower bounds are not allowed`)
    if (item.target < item.lowerBound) throw new Error(`target ${i} is ${item.target}, which is below its lower bound of ${item.lowerBound}`)
    if (item.upperBound < item.lowerBound) throw new Error(`upper bound ${i} is ${item.upperBound} but should not be less than the lower bound ${item.lowerBound}`)
    const target = Math.max(item.target, MIN_TARGET)
    lowSum += item.lowerBound
    highSum += item.upperBound
    targetSum += target
    return target
  })
  if (lowSum - requiredSum > EPSILON) throw new Error(`lower bounds sum to ${lowSum}, which is higher than the required sum of ${requiredSum}`)
  if (requiredSum - highSum > EPSILON) throw new Error(`upper bounds sum to ${highSum}, which is lower than the required sum of ${requiredSum}`)
  const relLow = items.map((item, i) => item.lowerBound / targets[i]!)
  const relHigh = items.map((item, i) => item.upperBound / targets[i]!)
  if (requiredSum === 0) return { allocs: items.map(() => 0), fairProp: 0 }
  if (lowSum - requiredSum > -EPSILON) return { allocs: items.map((i) => i.lowerBound), fairProp: Math.min(...relLow) }
  if (requiredSum - highSum > -EPSILON) return { allocs: items.map((i) => i.upperBound), fairProp: Math.max(...relHigh) }
  const fair = requiredSum / targetSum
  if (Math.max(...relLow) <= fair && fair <= Math.min(...relHigh)) return { allocs: targets.map((t) => t * fair), fairProp: fair }
  // The allocated sum is piecewise linear and non-decreasing in fairProp, bending where a
  // class's relative bound is met: walk the bends in ascending order until the sum is reached.
  const allocated = (p: number) => items.reduce((sum, item, i) => sum + Math.max(item.lowerBound, Math.min(item.upperBound, p * targets[i]!)), 0)
  const bends = [...relLow, ...relHigh].sort((a, b) => a - b)
  let fairProp = bends[0]!
  for (const bend of bends) {
    if (bend <= fairProp) continue
    const atBend = allocated(bend)
    if (atBend >= requiredSum) {
      const atStart = allocated(fairProp)
      fairProp += ((requiredSum - atStart) / (atBend - atStart)) * (bend - fairProp)
      break
    }
    fairProp = bend
  }
  return { allocs: items.map((item, i) => Math.max(item.lowerBound, Math.min(item.upperBound, fairProp * targets[i]!))), fairProp }
}

/** What a level's seat demand was over the last adjustment period. */
export interface SeatDemandStats {
  avg: number
  stdDev: number
  highWatermark: number
  smoothed: number
}

/** The half-life of the smoothing is 5 minutes at one adjustment every 10 s, as the reference. */
export const SEAT_DEMAND_SMOOTHING = 0.977
export const BORROWING_ADJUSTMENT_PERIOD_MS = 10_000

export function updateSeatDemand(stats: SeatDemandStats, obs: { average: number; deviation: number; max: number; durationMs: number }): void {
  stats.highWatermark = goRound(obs.max)
  if (obs.durationMs <= 0) return
  const deviation = Number.isNaN(obs.deviation) ? 0 : obs.deviation
  stats.avg = obs.average
  stats.stdDev = deviation
  const envelope = obs.average + deviation
  stats.smoothed = Math.max(envelope, SEAT_DEMAND_SMOOTHING * stats.smoothed + (1 - SEAT_DEMAND_SMOOTHING) * envelope)
}

export interface BorrowingLevel {
  name: string
  exempt: boolean
  limits: LevelLimits
  demand: SeatDemandStats
  currentCL: number
}

/**
 * The current limit of every level after an adjustment: exempt levels keep what they use, the
 * rest share what remains of the nominal sum by demand (the reference's updateBorrowingLocked).
 */
export function currentLimits(nominalCLSum: number, levels: readonly BorrowingLevel[]): Map<string, number> {
  const result = new Map<string, number>()
  const nonExempt: BorrowingLevel[] = []
  const items: AllocationItem[] = []
  let remaining = nominalCLSum
  let minCLSum = 0
  let minCurrentCLSum = 0
  const minCurrent = (l: BorrowingLevel) => Math.max(l.limits.minCL, Math.min(l.limits.nominalCL, l.demand.highWatermark))
  for (const level of levels) {
    if (level.exempt) {
      const used = Math.max(level.limits.minCL, level.demand.highWatermark)
      result.set(level.name, used)
      remaining -= used
      continue
    }
    const lower = minCurrent(level)
    nonExempt.push(level)
    items.push({ lowerBound: lower, upperBound: level.limits.maxCL, target: Math.max(lower, level.demand.smoothed) })
    minCLSum += level.limits.minCL
    minCurrentCLSum += lower
  }
  if (remaining <= minCLSum) {
    for (const level of nonExempt) result.set(level.name, level.limits.minCL)
  } else if (remaining <= minCurrentCLSum) {
    const shareFrac = (remaining - minCLSum) / (minCurrentCLSum - minCLSum)
    for (const level of nonExempt) result.set(level.name, level.limits.minCL + goRound((minCurrent(level) - level.limits.minCL) * shareFrac))
  } else {
    let allocs: number[]
    try {
      allocs = computeConcurrencyAllocation(nominalCLSum, items).allocs
    } catch {
      // The reference keeps the current limits when the problem has no solution.
      allocs = nonExempt.map((l) => l.currentCL)
    }
    nonExempt.forEach((level, i) => result.set(level.name, goRound(allocs[i]!)))
  }
  return result
}
