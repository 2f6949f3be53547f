/**
 * Resource amounts as the scheduler adds them (framework.Resource): milli-CPU, bytes of memory
 * and ephemeral storage, allowed pods, and scalar (extended, hugepages) resources by name; and
 * a pod's requests as resourcehelper.PodRequests computes them: containers summed, restartable
 * init containers (sidecars) added, each regular init container's need (with the sidecars
 * started before it) as a floor, pod-level requests over the containers', and the overhead.
 */
import { milliValue, parseQuantity } from '../api/validation/quantity.js'
import { type Container, type Pod, type Node, nodeStatus, podSpec } from './objects.js'

export interface Resource {
  milliCPU: number
  memory: number
  ephemeralStorage: number
  allowedPodNumber: number
  scalar: Map<string, number>
}

/** schedutil.DefaultMilliCPURequest and DefaultMemoryRequest: what a container without requests counts as for scoring. */
export const DEFAULT_MILLI_CPU_REQUEST = 100
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

export const emptyResource = (): Resource => ({ milliCPU: 0, memory: 0, ephemeralStorage: 0, allowedPodNumber: 0, scalar: new Map() })

/** Quantity.Value(): whole units, rounded up. */
export function quantityValue(q: unknown): number {
  const parsed = parseQuantity(q)
  if (!parsed) return 0
  const milli = milliValue(parsed)
  return Number(milli % 1000n === 0n ? milli / 1000n : milli / 1000n + (milli > 0n ? 1n : 0n))
}

export function quantityMilli(q: unknown): number {
  const parsed = parseQuantity(q)
  return parsed ? Number(milliValue(parsed)) : 0
}

/** IsScalarResourceName: extended and prefixed native resources (a domain-prefixed name), hugepages, attachable volumes. */
export function isScalarResourceName(name: string): boolean {
  return name.startsWith('hugepages-') || name.startsWith('attachable-volumes-') || (name.includes('/') && !name.startsWith('requests.'))
}

/** Resource.Add of a ResourceList. */
export function addList(r: Resource, list: Record<string, unknown> | undefined): void {
  for (const [name, q] of Object.entries(list ?? {})) {
    if (name === 'cpu') r.milliCPU += quantityMilli(q)
    else if (name === 'memory') r.memory += quantityValue(q)
    else if (name === 'pods') r.allowedPodNumber += quantityValue(q)
    else if (name === 'ephemeral-storage') r.ephemeralStorage += quantityValue(q)
    else if (isScalarResourceName(name)) r.scalar.set(name, (r.scalar.get(name) ?? 0) + quantityValue(q))
  }
}

function toResource(list: Record<string, unknown> | undefined): Resource {
  const r = emptyResource()
  addList(r, list)
  return r
}

export function addResource(a: Resource, b: Resource, sign = 1): void {
  a.milliCPU += sign * b.milliCPU
  a.memory += sign * b.memory
  a.ephemeralStorage += sign * b.ephemeralStorage
  a.allowedPodNumber += sign * b.allowedPodNumber
  for (const [name, v] of b.scalar) a.scalar.set(name, (a.scalar.get(name) ?? 0) + sign * v)
}

function maxResource(a: Resource, b: Resource): void {
  a.milliCPU = Math.max(a.milliCPU, b.milliCPU)
  a.memory = Math.max(a.memory, b.memory)
  a.ephemeralStorage = Math.max(a.ephemeralStorage, b.ephemeralStorage)
  for (const [name, v] of b.scalar) a.scalar.set(name, Math.max(a.scalar.get(name) ?? 0, v))
}

const copy = (r: Resource): Resource => ({ ...r, scalar: new Map(r.scalar) })

/** A container's requests; with `nonZero`, a missing cpu or memory request counts as the scheduler's defaults. */
function containerRequests(c: Container, nonZero: boolean): Resource {
  const requests = c.resources?.requests
  const r = toResource(requests)
  if (nonZero) {
    if (requests?.cpu === undefined) r.milliCPU = DEFAULT_MILLI_CPU_REQUEST
    if (requests?.memory === undefined) r.memory = DEFAULT_MEMORY_REQUEST
  }
  return r
}

/**
 * resourcehelper.PodRequests: the pod's requests. `nonZero` gives the scoring view
 * (NonMissingContainerRequests): containers without a cpu or memory request count the defaults.
 */
export function podRequests(pod: Pod, nonZero = false): Resource {
  const spec = podSpec(pod)
  const total = emptyResource()
  for (const c of spec.containers ?? []) addResource(total, containerRequests(c, nonZero))
  const sidecars = emptyResource()
  const initFloor = emptyResource()
  for (const c of spec.initContainers ?? []) {
    const r = containerRequests(c, nonZero)
    if (c.restartPolicy === 'Always') {
      addResource(total, r)
      addResource(sidecars, r)
    } else {
      const need = copy(r)
      addResource(need, sidecars)
      maxResource(initFloor, need)
    }
  }
  maxResource(total, initFloor)
  // Pod-level resources (PodLevelResources): the pod's own requests replace the containers' sum.
  const podLevel = spec.resources?.requests
  if (podLevel) {
    if (podLevel.cpu !== undefined) total.milliCPU = quantityMilli(podLevel.cpu)
    if (podLevel.memory !== undefined) total.memory = quantityValue(podLevel.memory)
  }
  if (spec.overhead) addList(total, spec.overhead)
  return total
}

/** The node's allocatable (status.allocatable) as a Resource. */
export function allocatableOf(node: Node): Resource {
  return toResource(nodeStatus(node).allocatable)
}
