/**
 * NodeResourcesFit (pkg/scheduler/framework/plugins/noderesources/fit.go): Filter checks the
 * pod count against allocatable pods and each requested resource against what is left of the
 * node's allocatable, with one reason per shortfall ("Too many pods", "Insufficient cpu" ...);
 * a request larger than the whole allocatable is unresolvable (preemption cannot help,
 * kubernetes/kubernetes#131345). Score is the default LeastAllocated strategy over cpu and
 * memory (weight 1 each), with the scheduler's non-zero defaults for containers without requests.
 */
import { MAX_NODE_SCORE, type FilterPlugin, type ScorePlugin } from '../framework.js'
import type { NodeInfo } from '../node-info.js'
import { type Resource, podRequests } from '../resources.js'
import { type Status, unresolvable, unschedulable } from '../status.js'

interface Shortfall {
  readonly reason: string
  readonly requested: number
  readonly capacity: number
}

const REQUESTS = 'NodeResourcesFit/requests'
const NON_ZERO = 'NodeResourcesFit/nonZero'

/** fitsRequest. */
export function insufficientResources(request: Resource, node: NodeInfo): Shortfall[] {
  const out: Shortfall[] = []
  const alloc = node.allocatable
  if (node.pods.size + 1 > alloc.allowedPodNumber) out.push({ reason: 'Too many pods', requested: 1, capacity: alloc.allowedPodNumber })
  if (request.milliCPU === 0 && request.memory === 0 && request.ephemeralStorage === 0 && request.scalar.size === 0) return out
  const used = node.requested
  if (request.milliCPU > 0 && request.milliCPU > alloc.milliCPU - used.milliCPU) out.push({ reason: 'Insufficient cpu', requested: request.milliCPU, capacity: alloc.milliCPU })
  if (request.memory > 0 && request.memory > alloc.memory - used.memory) out.push({ reason: 'Insufficient memory', requested: request.memory, capacity: alloc.memory })
  if (request.ephemeralStorage > 0 && request.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage) {
    out.push({ reason: 'Insufficient ephemeral-storage', requested: request.ephemeralStorage, capacity: alloc.ephemeralStorage })
  }
  for (const [name, quantity] of request.scalar) {
    if (quantity === 0) continue
    const capacity = alloc.scalar.get(name) ?? 0
    if (quantity > capacity - (used.scalar.get(name) ?? 0)) out.push({ reason: `Insufficient ${name}`, requested: quantity, capacity })
  }
  return out
}

export const nodeResourcesFitFilter: FilterPlugin = {
  name: 'NodeResourcesFit',
  preFilter(state) {
    state.data.set(REQUESTS, podRequests(state.pod))
    return undefined
  },
  filter(state, node): Status | undefined {
    const shortfalls = insufficientResources(state.data.get(REQUESTS) as Resource, node)
    if (shortfalls.length === 0) return undefined
    const reasons = shortfalls.map((s) => s.reason)
    return shortfalls.some((s) => s.requested > s.capacity) ? unresolvable(...reasons) : unschedulable(...reasons)
  },
}

/** The node's cpu and memory after the pod, with the scoring defaults, and its allocatable. */
export function requestedAfter(state: { data: Map<string, unknown>; pod: import('../objects.js').Pod }, node: NodeInfo): { cpu: [number, number]; memory: [number, number] } {
  let pod = state.data.get(NON_ZERO) as Resource | undefined
  if (!pod) state.data.set(NON_ZERO, (pod = podRequests(state.pod, true)))
  return {
    cpu: [node.nonZeroRequested.milliCPU + pod.milliCPU, node.allocatable.milliCPU],
    memory: [node.nonZeroRequested.memory + pod.memory, node.allocatable.memory],
  }
}

/** leastRequestedScore. */
function leastRequested(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0
  return Math.trunc(((capacity - requested) * MAX_NODE_SCORE) / capacity)
}

export const nodeResourcesFitScore: ScorePlugin = {
  name: 'NodeResourcesFit',
  weight: 1,
  score(state, node) {
    const { cpu, memory } = requestedAfter(state, node)
    // Resource weights cpu 1, memory 1: the integer mean.
    return Math.trunc((leastRequested(...cpu) + leastRequested(...memory)) / 2)
  },
}

/**
 * NodeResourcesBalancedAllocation (balanced_allocation.go): nodes whose cpu and memory would be
 * used in equal shares score best: (1 - |cpu fraction - memory fraction| / 2) × 100.
 */
export const balancedAllocationScore: ScorePlugin = {
  name: 'NodeResourcesBalancedAllocation',
  weight: 1,
  score(state, node) {
    const { cpu, memory } = requestedAfter(state, node)
    const fraction = ([requested, capacity]: [number, number]): number => (capacity === 0 ? 0 : Math.min(1, requested / capacity))
    const std = Math.abs((fraction(cpu) - fraction(memory)) / 2)
    return Math.trunc((1 - std) * MAX_NODE_SCORE)
  },
}
