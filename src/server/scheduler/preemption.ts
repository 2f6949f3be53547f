/**
 * The PostFilter step when no node fits, as the default profile runs it: DynamicResources first
 * ("no new claims to deallocate" for a pod without claims), then DefaultPreemption
 * (pkg/scheduler/framework/preemption, plugins/defaultpreemption). A pod may preempt unless
 * its preemptionPolicy is Never or a lower-priority pod is already terminating on the node it
 * was nominated to. On each node whose rejection is resolvable, every pod of lower priority is
 * taken off; if the pod then fits, the victims are put back one by one, most important first,
 * those whose eviction would break a PodDisruptionBudget first, while it still fits
 * (SelectVictimsOnNode). Of the nodes with victims, the one with the fewest budgets broken
 * wins, then the one whose most important victim has the lowest priority, the lowest sum of
 * priorities, the fewest victims, the latest start (pickOneNodeForPreemption). Without a candidate, the message is "preemption: " and a FitError over the nodes
 * ("Preemption is not helpful for scheduling" where the rejection is unresolvable, "No
 * preemption victims found for incoming pod" where no lower-priority pod runs, or the filters'
 * reasons when removing them all would not make room).
 */
import type { KubeObject } from '../api/registry/object.js'
import type { NodeInfo, PodInfo } from './node-info.js'
import { selects } from './plugins/pod-matching.js'
import { type Pod, podSpec, priorityOf } from './objects.js'
import { type Diagnosis, type Status, fitErrorMessage, unresolvable } from './status.js'

export const PREEMPTION_NOT_HELPFUL = 'Preemption is not helpful for scheduling'
export const NO_VICTIMS = 'No preemption victims found for incoming pod'
export const NO_CLAIMS_TO_DEALLOCATE = 'no new claims to deallocate'
export const NOT_ELIGIBLE_NEVER = 'not eligible due to preemptionPolicy=Never.'
export const NOT_ELIGIBLE_TERMINATING = 'not eligible due to a terminating pod on the nominated node.'

/** What preemption decided: a node and its victims, or the PostFilter message. */
export type PreemptionResult = { readonly node: NodeInfo; readonly victims: readonly Pod[] } | { readonly message: string }

interface Candidate {
  readonly node: NodeInfo
  readonly victims: Pod[]
  readonly violations: number
}

/**
 * filterPodsWithPDBViolation: the pods (most important first) whose eviction would exceed a
 * matching budget's disruptionsAllowed, counting the ones before them on the node.
 */
function splitByBudgets(pods: readonly PodInfo[], budgets: readonly KubeObject[]): { violating: PodInfo[]; nonViolating: PodInfo[] } {
  const allowed = budgets.map((b) => (b.status as { disruptionsAllowed?: number } | undefined)?.disruptionsAllowed ?? 0)
  const violating: PodInfo[] = []
  const nonViolating: PodInfo[] = []
  for (const info of pods) {
    let violates = false
    budgets.forEach((b, i) => {
      const selector = (b.spec as { selector?: unknown } | undefined)?.selector as Parameters<typeof selects>[0]
      if (b.metadata.namespace !== info.pod.metadata.namespace || !selector || Object.keys(selector).length === 0 || !selects(selector, info.pod.metadata.labels)) return
      // A pod the budget already counts as disrupted is not counted again.
      if (((b.status as { disruptedPods?: Record<string, unknown> } | undefined)?.disruptedPods ?? {})[info.pod.metadata.name ?? ''] !== undefined) return
      allowed[i]!--
      if (allowed[i]! < 0) violates = true
    })
    ;(violates ? violating : nonViolating).push(info)
  }
  return { violating, nonViolating }
}

/**
 * `filterWithout(node, removed)`: the filters' status of the pod on `node` with the pods of
 * `removed` (keys) taken off it; undefined when it fits.
 */
export function preempt(
  pod: Pod,
  nodes: readonly NodeInfo[],
  diagnosis: Diagnosis,
  filterWithout: (node: NodeInfo, removed: Set<string>) => Status | undefined,
  budgets: readonly KubeObject[] = [],
): PreemptionResult {
  const prefix = `${NO_CLAIMS_TO_DEALLOCATE}, preemption: `
  if (podSpec(pod).preemptionPolicy === 'Never') return { message: prefix + NOT_ELIGIBLE_NEVER }
  const priority = priorityOf(pod)
  const nominated = (pod.status as { nominatedNodeName?: string } | undefined)?.nominatedNodeName
  if (nominated) {
    const node = nodes.find((n) => n.name === nominated)
    const status = diagnosis.nodeToStatus.get(nominated)
    const resolvable = diagnosis.preFilterMsg === undefined && status?.code !== 'UnschedulableAndUnresolvable'
    if (node && resolvable && [...node.pods.values()].some((p) => p.pod.metadata.deletionTimestamp && priorityOf(p.pod) < priority)) {
      return { message: prefix + NOT_ELIGIBLE_TERMINATING }
    }
  }
  const statuses = new Map<string, Status>()
  const candidates: Candidate[] = []
  for (const node of nodes) {
    // A PreFilter rejection stands for every node, unresolvable there too.
    const status = diagnosis.preFilterMsg !== undefined ? unresolvable(diagnosis.preFilterMsg) : diagnosis.nodeToStatus.get(node.name)
    if (!status || status.code === 'UnschedulableAndUnresolvable') {
      statuses.set(node.name, unresolvable(PREEMPTION_NOT_HELPFUL))
      continue
    }
    const lower = [...node.pods.values()].filter((p) => priorityOf(p.pod) < priority)
    if (lower.length === 0) {
      statuses.set(node.name, unresolvable(NO_VICTIMS))
      continue
    }
    const removed = new Set(lower.map((p) => p.key))
    const without = filterWithout(node, removed)
    if (without) {
      statuses.set(node.name, without)
      continue
    }
    // Reprieve the most important first, those a budget protects before the others, while the pod still fits.
    lower.sort((a, b) => moreImportant(a.pod, b.pod))
    const { violating, nonViolating } = splitByBudgets(lower, budgets)
    const victims: Pod[] = []
    let violations = 0
    const reprieve = (p: PodInfo, violates: boolean): void => {
      removed.delete(p.key)
      if (filterWithout(node, removed)) {
        removed.add(p.key)
        victims.push(p.pod)
        if (violates) violations++
      }
    }
    for (const p of violating) reprieve(p, true)
    for (const p of nonViolating) reprieve(p, false)
    victims.sort(moreImportant)
    if (victims.length === 0) statuses.set(node.name, unresolvable(NO_VICTIMS))
    else candidates.push({ node, victims, violations })
  }
  if (candidates.length === 0) return { message: prefix + fitErrorMessage(nodes.length, { nodeToStatus: statuses }) }
  return pickOne(candidates)
}

/** MoreImportantPod as a sort order: higher priority first, then the earlier start. */
function moreImportant(a: Pod, b: Pod): number {
  const byPriority = priorityOf(b) - priorityOf(a)
  return byPriority !== 0 ? byPriority : startTime(a) - startTime(b)
}

function startTime(pod: Pod): number {
  const text = (pod.status as { startTime?: string } | undefined)?.startTime ?? pod.metadata.creationTimestamp
  const ms = text ? Date.parse(text) : Number.NaN
  return Number.isNaN(ms) ? Number.MAX_SAFE_INTEGER : ms
}

/** pickOneNodeForPreemption. */
function pickOne(candidates: Candidate[]): Candidate {
  const criteria: ((c: Candidate) => number)[] = [
    (c) => c.violations,
    (c) => priorityOf(c.victims[0]!),
    (c) => c.victims.reduce((sum, v) => sum + priorityOf(v) + 2_147_483_648, 0),
    (c) => c.victims.length,
    // The latest start among the most important victims wins: negated to minimise.
    (c) => -startTime(c.victims[0]!),
  ]
  let left = candidates
  for (const score of criteria) {
    if (left.length === 1) break
    const best = Math.min(...left.map(score))
    left = left.filter((c) => score(c) === best)
  }
  return left[0]!
}
