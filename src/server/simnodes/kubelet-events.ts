/**
 * The events a kubelet records for the containers it starts, for the pods on the simulated nodes
 * (kwok's stages write the statuses but record none of these). With the texts of the 1.35
 * kubelet (pkg/kubelet/images/image_manager.go, pkg/kubelet/kuberuntime/kuberuntime_container.go):
 * the image first, `Pulling` (`Pulling image "nginx"`) and `Pulled` (`Successfully pulled image
 * "nginx" in 12ms (12ms including waiting). Image size: N bytes.`), or only `Pulled` (`Container
 * image "nginx" already present on machine and can be accessed by the pod`) when the pull policy
 * lets the node keep an image it holds; then `Created` (`Container created`) and `Started`
 * (`Container started`). Each is about the container's field path (`spec.containers{nginx}`,
 * which kubectl 1.35 puts before the message), from component `kubelet` with the node as host.
 * They are recorded once per container and restart count, when its status first shows it
 * started (running, or already terminated).
 */
import { createHash } from 'node:crypto'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import type { Clock } from '../controllers/clock.js'
import { EventRecorder } from '../controllers/event-recorder.js'

type Obj = Record<string, unknown>

interface ContainerSpec {
  name: string
  image?: string
  imagePullPolicy?: string
}

/** Each status list with the spec list and field path of its containers. */
const CONTAINER_LISTS = [
  { statuses: 'initContainerStatuses', spec: 'initContainers' },
  { statuses: 'containerStatuses', spec: 'containers' },
  { statuses: 'ephemeralContainerStatuses', spec: 'ephemeralContainers' },
] as const

export interface KubeletEventsOptions {
  readonly clock: Clock
  /** Whether `node` is one of the simulated nodes. */
  owns(node: string): boolean
  onError(err: Error): void
}

export class KubeletEvents {
  private readonly recorders = new Map<string, EventRecorder>()
  /** The images each node holds: the ones it has pulled, or its running pods ran when it started. */
  private readonly images = new Map<string, Set<string>>()
  /** pod uid → when it was first seen on its node (the simulated pull lasts from then), and the containers reported. */
  private readonly pods = new Map<string, { since: number; reported: Set<string> }>()

  constructor(
    private readonly registry: Registry,
    private readonly options: KubeletEventsOptions,
  ) {}

  /**
   * A pod found running when the nodes start (a restart, or another process's nodes taken over):
   * its containers' starts were recorded then, so only later ones are.
   */
  alreadyRunning(pod: KubeObject): void {
    this.podChanged(pod, false, true)
  }

  /** Follows one pod's writes. */
  podChanged(pod: KubeObject, deleted: boolean, silently = false): void {
    const uid = pod.metadata.uid ?? `${pod.metadata.namespace}/${pod.metadata.name}`
    const spec = (pod.spec ?? {}) as Obj
    const node = typeof spec.nodeName === 'string' ? spec.nodeName : ''
    if (deleted || !node || !this.options.owns(node)) {
      this.pods.delete(uid)
      return
    }
    let seen = this.pods.get(uid)
    if (!seen) this.pods.set(uid, (seen = { since: this.options.clock.now(), reported: new Set() }))
    const started = this.newlyStarted(pod, seen.reported)
    if (started.length === 0) return
    if (silently) for (const { container } of started) this.heldBy(node).add(container.image ?? '')
    else void this.recordStarts(pod, node, seen.since, started)
  }

  /** The containers whose status shows them started at a restart count not reported yet (marked reported). */
  private newlyStarted(pod: KubeObject, reported: Set<string>): Array<{ fieldPath: string; container: ContainerSpec }> {
    const spec = (pod.spec ?? {}) as Obj
    const status = (pod.status ?? {}) as Obj
    const out: Array<{ fieldPath: string; container: ContainerSpec }> = []
    for (const list of CONTAINER_LISTS) {
      const statuses = status[list.statuses]
      if (!Array.isArray(statuses)) continue
      const containers = (Array.isArray(spec[list.spec]) ? spec[list.spec] : []) as ContainerSpec[]
      for (const s of statuses as Obj[]) {
        const state = (s.state ?? {}) as Obj
        if (state.running === undefined && state.terminated === undefined) continue
        const container = containers.find((c) => c.name === s.name)
        if (!container) continue
        const fieldPath = `spec.${list.spec}{${container.name}}`
        const key = `${fieldPath}#${String(s.restartCount ?? 0)}`
        if (reported.has(key)) continue
        reported.add(key)
        out.push({ fieldPath, container })
      }
    }
    return out
  }

  /** The image, Created and Started events of each container, in the kubelet's order. */
  private async recordStarts(pod: KubeObject, node: string, since: number, started: Array<{ fieldPath: string; container: ContainerSpec }>): Promise<void> {
    const recorder = this.recorderFor(node)
    for (const { fieldPath, container } of started) {
      const image = container.image ?? ''
      const held = this.heldBy(node)
      if (pulls(container, held.has(image))) {
        await recorder.record(pod, 'Normal', 'Pulling', `Pulling image ${goQuote(image)}`, fieldPath)
        const took = goDuration(Math.max(0, this.options.clock.now() - since))
        await recorder.record(pod, 'Normal', 'Pulled', `Successfully pulled image ${goQuote(image)} in ${took} (${took} including waiting). Image size: ${imageSize(image)} bytes.`, fieldPath)
        held.add(image)
      } else {
        await recorder.record(pod, 'Normal', 'Pulled', `Container image ${goQuote(image)} already present on machine and can be accessed by the pod`, fieldPath)
      }
      await recorder.record(pod, 'Normal', 'Created', 'Container created', fieldPath)
      await recorder.record(pod, 'Normal', 'Started', 'Container started', fieldPath)
    }
  }

  private heldBy(node: string): Set<string> {
    let held = this.images.get(node)
    if (!held) this.images.set(node, (held = new Set()))
    return held
  }

  private recorderFor(node: string): EventRecorder {
    let recorder = this.recorders.get(node)
    if (!recorder) this.recorders.set(node, (recorder = new EventRecorder(this.registry, 'kubelet', { host: node, clock: this.options.clock, onError: this.options.onError })))
    return recorder
  }
}

/**
 * Whether the kubelet pulls the image: always with `Always`, when the node lacks it with
 * `IfNotPresent`. A simulated node holds every image, so `Never` starts the container as if
 * present (the reference would refuse with ErrImageNeverPull for a missing one). Without a policy
 * (only when no API server defaulted the pod), the reference's default: Always for `:latest` or
 * no tag.
 */
function pulls(container: ContainerSpec, held: boolean): boolean {
  const policy = container.imagePullPolicy ?? (defaultsToAlways(container.image ?? '') ? 'Always' : 'IfNotPresent')
  if (policy === 'Always') return true
  return policy === 'IfNotPresent' && !held
}

function defaultsToAlways(image: string): boolean {
  if (image.includes('@')) return false
  const last = image.slice(image.lastIndexOf('/') + 1)
  const colon = last.lastIndexOf(':')
  return colon < 0 || last.slice(colon + 1) === 'latest'
}

/** An image's simulated size (no image is pulled): stable for an image, between 1 MB and 200 MB. */
function imageSize(image: string): number {
  const n = createHash('sha256').update(image).digest().readUInt32BE(0)
  return 1_000_000 + (n % 199_000_000)
}

/** Go's %q for the ASCII strings image references are. */
function goQuote(s: string): string {
  return JSON.stringify(s)
}

/** Go's time.Duration.String() of a whole number of milliseconds (the kubelet truncates to them). */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s'
  if (ms < 1000) return `${ms}ms`
  const hours = Math.floor(ms / 3_600_000)
  const minutes = Math.floor((ms % 3_600_000) / 60_000)
  const rest = ms % 60_000
  const seconds = `${Math.floor(rest / 1000)}${rest % 1000 ? `.${String(rest % 1000).padStart(3, '0').replace(/0+$/, '')}` : ''}s`
  return `${hours ? `${hours}h` : ''}${hours || minutes ? `${minutes}m` : ''}${seconds}`
}
