/**
 * The scheduler's cache (pkg/scheduler/backend/cache): the nodes with the pods bound to them,
 * and the pods assumed on a node while their binding is on its way, so that the next pod
 * scheduled sees them at once; plus the objects some plugins read (namespaces' labels for
 * affinity terms, the Services and controllers whose selectors give the default spreading, the
 * volume objects, and the PodDisruptionBudgets preemption respects). Fed by the registry's changes; nothing here writes.
 */
import type { KubeObject } from '../api/registry/object.js'
import { NodeInfo, podInfoOf } from './node-info.js'
import { type Node, type Pod, nameOf, nodeStatus, podKey, podPhase, podSpec } from './objects.js'

/** The kinds kept for plugins, by resource name. */
export type AuxResource =
  | 'namespaces'
  | 'services'
  | 'replicasets'
  | 'statefulsets'
  | 'replicationcontrollers'
  | 'persistentvolumeclaims'
  | 'persistentvolumes'
  | 'storageclasses'
  | 'poddisruptionbudgets'

export class SchedulerCache {
  private readonly nodes = new Map<string, NodeInfo>()
  /** Bound or assumed pods: pod key to node name. */
  private readonly placed = new Map<string, string>()
  /** Assumed pods' keys: binding in flight. */
  private readonly assumed = new Set<string>()
  private readonly aux = new Map<AuxResource, Map<string, KubeObject>>()
  /** Image name to the nodes that hold it (ImageStateSummary.NumNodes). */
  private readonly imageNodes = new Map<string, Set<string>>()
  /** The node list, rebuilt when nodes come or go. */
  private list: NodeInfo[] | undefined

  nodeInfos(): NodeInfo[] {
    this.list ??= [...this.nodes.values()].filter((n) => n.node !== undefined)
    return this.list
  }

  nodeInfo(name: string): NodeInfo | undefined {
    const info = this.nodes.get(name)
    return info?.node ? info : undefined
  }

  get nodeCount(): number {
    return this.nodeInfos().length
  }

  upsertNode(node: Node): void {
    this.indexImages(nameOf(node), node)
    const existing = this.nodes.get(nameOf(node))
    if (existing) {
      if (!existing.node) this.list = undefined
      existing.setNode(node)
    } else {
      this.nodes.set(nameOf(node), new NodeInfo(node))
      this.list = undefined
    }
  }

  removeNode(name: string): void {
    this.indexImages(name, undefined)
    const info = this.nodes.get(name)
    if (!info) return
    // Pods still bound to a deleted node stay counted on a node-less entry (as the reference keeps them) until they go.
    if (info.pods.size > 0) info.node = undefined
    else this.nodes.delete(name)
    this.list = undefined
  }

  /** How many nodes hold an image (by any of its names). */
  nodesWithImage(image: string): number {
    return this.imageNodes.get(image)?.size ?? 0
  }

  private indexImages(nodeName: string, node: Node | undefined): void {
    for (const [image, holders] of this.imageNodes) {
      if (holders.delete(nodeName) && holders.size === 0) this.imageNodes.delete(image)
    }
    for (const image of nodeStatus(node ?? { metadata: {} }).images ?? []) {
      for (const name of image.names ?? []) {
        let holders = this.imageNodes.get(name)
        if (!holders) this.imageNodes.set(name, (holders = new Set()))
        holders.add(nodeName)
      }
    }
  }

  /** A pod seen with spec.nodeName: counted on its node unless finished (Succeeded or Failed). */
  upsertAssignedPod(pod: Pod): void {
    const key = podKey(pod)
    const phase = podPhase(pod)
    if (phase === 'Succeeded' || phase === 'Failed') {
      this.removePod(key)
      return
    }
    const nodeName = podSpec(pod).nodeName!
    const previous = this.placed.get(key)
    if (previous !== undefined && previous !== nodeName) this.nodes.get(previous)?.removePod(key)
    this.assumed.delete(key)
    this.placed.set(key, nodeName)
    let info = this.nodes.get(nodeName)
    if (!info) {
      info = new NodeInfo(undefined)
      this.nodes.set(nodeName, info)
    }
    info.addPod(podInfoOf(pod))
  }

  removePod(key: string): void {
    const nodeName = this.placed.get(key)
    if (nodeName === undefined) return
    this.placed.delete(key)
    this.assumed.delete(key)
    const info = this.nodes.get(nodeName)
    if (!info) return
    info.removePod(key)
    if (!info.node && info.pods.size === 0) this.nodes.delete(nodeName)
  }

  /** AssumePod: the pod counts on `nodeName` before its binding is written. */
  assume(pod: Pod, nodeName: string): void {
    const placed = { ...pod, spec: { ...(pod.spec as object), nodeName } } as Pod
    this.upsertAssignedPod(placed)
    this.assumed.add(podKey(pod))
  }

  /** ForgetPod: a binding that failed takes the assumed pod off its node. */
  forget(key: string): void {
    if (this.assumed.has(key)) this.removePod(key)
  }

  /** The pod as last seen on its node (bound or assumed). */
  placedPod(key: string): Pod | undefined {
    const nodeName = this.placed.get(key)
    return nodeName === undefined ? undefined : this.nodes.get(nodeName)?.pods.get(key)?.pod
  }

  isPlaced(key: string): boolean {
    return this.placed.has(key)
  }

  setAux(resource: AuxResource, object: KubeObject, deleted: boolean): void {
    let byKey = this.aux.get(resource)
    if (!byKey) this.aux.set(resource, (byKey = new Map()))
    const key = `${object.metadata.namespace ?? ''}/${nameOf(object)}`
    if (deleted) byKey.delete(key)
    else byKey.set(key, object)
  }

  auxObject(resource: AuxResource, namespace: string, name: string): KubeObject | undefined {
    return this.aux.get(resource)?.get(`${namespace}/${name}`)
  }

  auxObjects(resource: AuxResource): Iterable<KubeObject> {
    return this.aux.get(resource)?.values() ?? []
  }

  /** A namespace's labels (affinity terms' namespaceSelector). */
  namespaceLabels(name: string): Record<string, string> {
    return this.auxObject('namespaces', '', name)?.metadata.labels ?? {}
  }
}
