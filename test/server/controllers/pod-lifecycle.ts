/**
 * The node's part in the controllers' tests: pod status written as the simulated nodes (or a
 * kubelet) write it, running and ready, or exited with a container's exit code.
 */
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import type { Registry } from '../../../src/server/api/registry/registry.js'

const pods = (registry: Registry) => registry.lookup('', 'v1', 'pods')!

function containerNames(pod: KubeObject): string[] {
  const containers = (pod.spec as { containers?: Array<{ name: string }> }).containers ?? []
  return containers.map((c) => c.name)
}

/** Running, with the Ready condition as given and a pod IP. */
export async function runPod(registry: Registry, pod: KubeObject, options: { ready?: boolean; ip?: string; node?: string } = {}): Promise<KubeObject> {
  const ready = options.ready ?? true
  const status = ready ? 'True' : 'False'
  return pods(registry).update(
    pod.metadata.namespace,
    pod.metadata.name!,
    (current) => ({
      ...current,
      status: {
        ...(current.status as object),
        phase: 'Running',
        ...(options.ip ? { podIP: options.ip, podIPs: [{ ip: options.ip }] } : {}),
        ...(options.node ? { hostIP: '10.0.0.1' } : {}),
        conditions: [
          { type: 'Ready', status },
          { type: 'ContainersReady', status },
          { type: 'PodScheduled', status: 'True' },
        ],
        containerStatuses: containerNames(current).map((name) => ({ name, ready, restartCount: 0, image: 'x', imageID: '', state: { running: { startedAt: '2026-01-01T00:00:00Z' } } })),
      },
    }),
    { subresource: 'status', retryOnConflict: true },
  )
}

/** Exited: Succeeded with exit code 0, Failed otherwise, every container with that code. */
export async function finishPod(registry: Registry, pod: KubeObject, exitCode: number, conditions: Array<{ type: string; status: string }> = []): Promise<KubeObject> {
  return pods(registry).update(
    pod.metadata.namespace,
    pod.metadata.name!,
    (current) => ({
      ...current,
      status: {
        ...(current.status as object),
        phase: exitCode === 0 ? 'Succeeded' : 'Failed',
        conditions: [{ type: 'Ready', status: 'False' }, ...conditions],
        containerStatuses: containerNames(current).map((name) => ({
          name,
          ready: false,
          restartCount: 0,
          image: 'x',
          imageID: '',
          state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:00:01Z' } },
        })),
      },
    }),
    { subresource: 'status', retryOnConflict: true },
  )
}
