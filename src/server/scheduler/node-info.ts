/**
 * One node as the scheduler sees it (framework.NodeInfo): the Node, the pods on it (bound or
 * assumed), what they request (as given, and with the scoring defaults), the host ports they
 * hold, and the PersistentVolumeClaims they use.
 */
import { type Node, type Pod, podKey, podSpec } from './objects.js'
import { type Resource, addResource, allocatableOf, emptyResource, podRequests } from './resources.js'

export interface PodInfo {
  readonly pod: Pod
  readonly key: string
  readonly requests: Resource
  readonly nonZeroRequests: Resource
}

export interface HostPort {
  readonly ip: string
  readonly protocol: string
  readonly port: number
}

export function podInfoOf(pod: Pod): PodInfo {
  return { pod, key: podKey(pod), requests: podRequests(pod), nonZeroRequests: podRequests(pod, true) }
}

/** The host ports a pod asks for (containers and init containers), as the NodePorts plugin reads them. */
export function hostPortsOf(pod: Pod): HostPort[] {
  const spec = podSpec(pod)
  const ports: HostPort[] = []
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    for (const p of c.ports ?? []) {
      if (!p.hostPort || p.hostPort <= 0) continue
      ports.push({ ip: p.hostIP || '0.0.0.0', protocol: p.protocol || 'TCP', port: p.hostPort })
    }
  }
  return ports
}

export class NodeInfo {
  readonly pods = new Map<string, PodInfo>()
  readonly requested: Resource = emptyResource()
  readonly nonZeroRequested: Resource = emptyResource()
  readonly usedPorts: HostPort[] = []
  /** `<namespace>/<claim>` to the number of pods using it. */
  readonly pvcRefCounts = new Map<string, number>()
  /** The pods here with pod affinity or anti-affinity terms (PodsWithAffinity): InterPodAffinity looks at these only. */
  readonly podsWithAffinity = new Set<string>()
  allocatable: Resource = emptyResource()
  /** Changes on every pod or node change (NodeInfo.Generation), for snapshots. */
  generation = 0

  constructor(public node: Node | undefined) {
    if (node) this.allocatable = allocatableOf(node)
  }

  setNode(node: Node): void {
    this.node = node
    this.allocatable = allocatableOf(node)
    this.generation++
  }

  get name(): string {
    return this.node?.metadata.name ?? ''
  }

  addPod(info: PodInfo): void {
    if (this.pods.has(info.key)) this.removePod(info.key)
    this.pods.set(info.key, info)
    addResource(this.requested, info.requests)
    addResource(this.nonZeroRequested, info.nonZeroRequests)
    this.usedPorts.push(...hostPortsOf(info.pod))
    if (hasPodAffinity(info.pod)) this.podsWithAffinity.add(info.key)
    for (const claim of claimsOf(info.pod)) this.pvcRefCounts.set(claim, (this.pvcRefCounts.get(claim) ?? 0) + 1)
    this.generation++
  }

  removePod(key: string): boolean {
    const info = this.pods.get(key)
    if (!info) return false
    this.pods.delete(key)
    this.podsWithAffinity.delete(key)
    addResource(this.requested, info.requests, -1)
    addResource(this.nonZeroRequested, info.nonZeroRequests, -1)
    for (const port of hostPortsOf(info.pod)) {
      const at = this.usedPorts.findIndex((p) => p.ip === port.ip && p.protocol === port.protocol && p.port === port.port)
      if (at !== -1) this.usedPorts.splice(at, 1)
    }
    for (const claim of claimsOf(info.pod)) {
      const left = (this.pvcRefCounts.get(claim) ?? 1) - 1
      if (left > 0) this.pvcRefCounts.set(claim, left)
      else this.pvcRefCounts.delete(claim)
    }
    this.generation++
    return true
  }
}

export function hasPodAffinity(pod: Pod): boolean {
  const a = podSpec(pod).affinity
  return a?.podAffinity !== undefined || a?.podAntiAffinity !== undefined
}

/** The claims a pod's volumes use, as `<namespace>/<claim>` (generic ephemeral volumes: `<pod>-<volume>`). */
export function claimsOf(pod: Pod): string[] {
  const ns = pod.metadata.namespace ?? ''
  const claims: string[] = []
  for (const v of podSpec(pod).volumes ?? []) {
    if (v.persistentVolumeClaim?.claimName) claims.push(`${ns}/${v.persistentVolumeClaim.claimName}`)
    else if (v.ephemeral) claims.push(`${ns}/${pod.metadata.name ?? ''}-${v.name}`)
  }
  return claims
}
