/**
 * The PostFilter step when no node fits, as the default profile runs it: DynamicResources first
 * ("no new claims to deallocate" for a pod without claims), then DefaultPreemption
 * (pkg/scheduler/framework/preemption, plugins/defaultpreemption). A pod may preempt unless
 * its preemptionPolicy is Never or a lower-priority pod is already terminating on the node it
 * was nominated to. On each node whose rejection is resolvable, every pod of lower priority is
 * taken off; if the pod then fits, the victims are put back one by one, most important first,
 * while it still fits (SelectVictimsOnNode). Of the nodes with victims, the one whose most
 * important victim has the lowest priority wins, then the lowest sum of priorities, then the
 * fewest victims, then the latest start (pickOneNodeForPreemption; PodDisruptionBudgets are
 * not read). Without a candidate, the message is "preemption: " and a FitError over the nodes
 * ("Preemption is not helpful for scheduling" where the rejection is unresolvable, "No
 * preemption victims found for incoming pod" where no lower-priority pod runs, or the filters'
 * reasons when removing them all would not make room).
 */
import type { NodeInfo } from './node-info.js'
import { type Pod, podSpec, priorityOf } from './objects.js'
import { type Diagnosis, type Status, fitErrorMessage, unresolvable } from './status.js'

export const PREEMPTION_NOT_HELPFUL = 'Preemption is not helpful for scheduling'
export const NO_VICTIMS = 'No preemption victims found for incoming pod'
export const NO_CLAIMS_TO_DEALLOCATE = 'no new claims to deallocate'
export const NOT_ELIGIBLE_NEVER = 'not eligible due to preemptionPolicy=Never.'
export const NOT_ELIGIBLE_TERMINATING = 'not eligible due to a terminating pod on the nominated node.'

/** What preemption decided: a node and its victims, or the PostFilter message. */
export type PreemptionResult = { readonly node: NodeInfo; readonly victims: readonly Pod[] } | { readonly message: string }

/**
 * `filterWithout(node, removed)`: the filters' status of the pod on `node` with the pods of
 * `removed` (keys) taken off it; undefined when it fits.
 */
export function preempt(pod: Pod, nodes: readonly NodeInfo[], diagnosis: Diagnosis, filterWithout: (node: NodeInfo, removed: Set<string>) => Status | undefined): PreemptionResult {
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
  const candidates: { node: NodeInfo; victims: Pod[] }[] = []
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
    // Reprieve the most important first while the pod still fits.
    lower.sort((a, b) => moreImportant(a.pod, b.pod))
    const victims: Pod[] = []
    for (const p of lower) {
      removed.delete(p.key)
      if (filterWithout(node, removed)) {
        removed.add(p.key)
        victims.push(p.pod)
      }
    }
    if (victims.length === 0) statuses.set(node.name, unresolvable(NO_VICTIMS))
    else candidates.push({ node, victims })
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

/** pickOneNodeForPreemption, PodDisruptionBudgets aside. */
function pickOne(candidates: { node: NodeInfo; victims: Pod[] }[]): { node: NodeInfo; victims: Pod[] } {
  const criteria: ((c: { victims: Pod[] }) => number)[] = [
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
