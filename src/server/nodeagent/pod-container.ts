/**
 * The pod a connect subresource names, and the container it reaches: the reference's getPod
 * and validateContainer (pkg/registry/core/pod/strategy.go), with their 400s.
 */
import type { Registry } from '../api/registry/registry.js'
import { errors } from '../api/status-errors.js'

type Obj = Record<string, unknown>

const asObj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {})
const names = (v: unknown): string[] => (Array.isArray(v) ? v.map((c) => String(asObj(c).name ?? '')) : [])

export interface PodTarget {
  namespace: string
  name: string
  /** spec.nodeName, '' when the pod is not scheduled. */
  nodeName: string
  spec: Obj
}

export async function getPod(registry: Registry, namespace: string, name: string): Promise<PodTarget> {
  const pods = registry.lookup('', 'v1', 'pods')
  if (!pods) throw errors.notFound({ group: '', resource: 'pods' }, name)
  const pod = asObj(await pods.get(namespace, name))
  const spec = asObj(pod.spec)
  return { namespace, name, nodeName: typeof spec.nodeName === 'string' ? spec.nodeName : '', spec }
}

/** The container asked for, or the pod's only one; every container kind counts (VisitContainers). */
export function validateContainer(container: string, pod: PodTarget): string {
  const containers = names(pod.spec.containers)
  if (container === '') {
    if (containers.length === 1) return containers[0]!
    if (containers.length === 0) throw errors.badRequest(`a container name must be specified for pod ${pod.name}`)
    // Go's %s of a []string: [a b c].
    throw errors.badRequest(`a container name must be specified for pod ${pod.name}, choose one of: [${allContainers(pod).join(' ')}]`)
  }
  if (!allContainers(pod).includes(container)) throw errors.badRequest(`container ${container} is not valid for pod ${pod.name}`)
  return container
}

/** podutil.VisitContainers' order: init containers, containers, ephemeral containers. */
function allContainers(pod: PodTarget): string[] {
  return [...names(pod.spec.initContainers), ...names(pod.spec.containers), ...names(pod.spec.ephemeralContainers)]
}

/** The reference's error for a stream to a pod that no node runs yet. */
export function noHostAssigned(name: string): Error {
  return errors.badRequest(`pod ${name} does not have a host assigned`)
}
