/**
 * The scheduling framework's extension points as this scheduler runs them for one pod
 * (pkg/scheduler/framework/runtime): PreFilter once, Filter per node (the first plugin that
 * rejects a node decides its status), PreScore and Score on the feasible nodes, each score
 * plugin's NormalizeScore, then the weighted sum. A cycle's state carries what the PreFilter
 * and PreScore steps computed for the Filter and Score steps.
 */
import type { SchedulerCache } from './cache.js'
import type { NodeInfo } from './node-info.js'
import type { Pod } from './objects.js'
import type { Status } from './status.js'

/** framework.MaxNodeScore. */
export const MAX_NODE_SCORE = 100

export interface CycleState {
  readonly pod: Pod
  readonly cache: SchedulerCache
  /** Every node of the snapshot. */
  readonly nodes: readonly NodeInfo[]
  /** Per-plugin data (CycleState.Write/Read). */
  readonly data: Map<string, unknown>
}

export interface FilterPlugin {
  readonly name: string
  /** A rejection here rejects the pod for every node (Diagnosis.PreFilterMsg). */
  preFilter?(state: CycleState): Status | undefined
  filter(state: CycleState, node: NodeInfo): Status | undefined
}

export interface ScorePlugin {
  readonly name: string
  /** The default profile's weight. */
  readonly weight: number
  /** Returns false to skip scoring (the reference's Skip status). */
  preScore?(state: CycleState, feasible: readonly NodeInfo[]): boolean | void
  score(state: CycleState, node: NodeInfo): number
  /** In place, over the feasible nodes' raw scores. */
  normalize?(state: CycleState, scores: number[]): void
}

/** helper.DefaultNormalizeScore: scaled so the top score is `max`; `reverse` gives max minus that. */
export function defaultNormalizeScore(max: number, reverse: boolean, scores: number[]): void {
  let top = 0
  for (const s of scores) top = Math.max(top, s)
  if (top === 0) {
    if (reverse) scores.fill(max)
    return
  }
  for (let i = 0; i < scores.length; i++) {
    let s = Math.trunc((max * scores[i]!) / top)
    if (reverse) s = max - s
    scores[i] = s
  }
}
