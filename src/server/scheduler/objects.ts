/**
 * The parts of Pods, Nodes and their neighbours the scheduler reads, as loose views of the
 * stored JSON (the registry hands plain objects): each accessor tolerates a missing field the
 * way the reference's typed structs read as their zero value.
 */
import type { KubeObject } from '../api/registry/object.js'

export type Pod = KubeObject
export type Node = KubeObject

export interface Toleration {
  key?: string
  operator?: string
  value?: string
  effect?: string
}

export interface Taint {
  key: string
  value?: string
  effect: string
}

export interface NodeSelectorRequirement {
  key: string
  operator: string
  values?: string[]
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[]
  matchFields?: NodeSelectorRequirement[]
}

export interface LabelSelector {
  matchLabels?: Record<string, string>
  matchExpressions?: { key: string; operator: string; values?: string[] }[]
}

export interface PodAffinityTerm {
  labelSelector?: LabelSelector | null
  namespaces?: string[]
  namespaceSelector?: LabelSelector | null
  topologyKey: string
  matchLabelKeys?: string[]
  mismatchLabelKeys?: string[]
}

export interface WeightedPodAffinityTerm {
  weight: number
  podAffinityTerm: PodAffinityTerm
}

export interface TopologySpreadConstraint {
  maxSkew: number
  topologyKey: string
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway'
  labelSelector?: LabelSelector | null
  minDomains?: number
  nodeAffinityPolicy?: 'Honor' | 'Ignore'
  nodeTaintsPolicy?: 'Honor' | 'Ignore'
  matchLabelKeys?: string[]
}

export interface Container {
  name?: string
  image?: string
  restartPolicy?: string
  resources?: { requests?: Record<string, unknown> }
  ports?: { containerPort?: number; hostPort?: number; hostIP?: string; protocol?: string }[]
}

export interface Affinity {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] } | null
    preferredDuringSchedulingIgnoredDuringExecution?: { weight: number; preference: NodeSelectorTerm }[]
  }
  podAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[]
    preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[]
  }
  podAntiAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[]
    preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[]
  }
}

export interface Volume {
  name: string
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean }
  ephemeral?: unknown
  gcePersistentDisk?: { pdName: string; readOnly?: boolean }
  awsElasticBlockStore?: { volumeID: string }
  iscsi?: { targetPortal: string; iqn: string; lun: number; readOnly?: boolean }
  rbd?: { monitors: string[]; pool?: string; image: string; readOnly?: boolean }
}

export interface PodSpec {
  nodeName?: string
  schedulerName?: string
  priority?: number
  preemptionPolicy?: string
  nodeSelector?: Record<string, string>
  affinity?: Affinity
  tolerations?: Toleration[]
  containers?: Container[]
  initContainers?: Container[]
  overhead?: Record<string, unknown>
  resources?: { requests?: Record<string, unknown> }
  topologySpreadConstraints?: TopologySpreadConstraint[]
  volumes?: Volume[]
  schedulingGates?: { name: string }[]
}

export interface NodeSpec {
  unschedulable?: boolean
  taints?: Taint[]
}

export interface NodeStatus {
  allocatable?: Record<string, unknown>
  images?: { names?: string[]; sizeBytes?: number }[]
}

export const podSpec = (pod: Pod): PodSpec => (pod.spec ?? {}) as PodSpec
export const nodeSpec = (node: Node): NodeSpec => (node.spec ?? {}) as NodeSpec
export const nodeStatus = (node: Node): NodeStatus => (node.status ?? {}) as NodeStatus
export const podPhase = (pod: Pod): string | undefined => (pod.status as { phase?: string } | undefined)?.phase
export const labelsOf = (o: KubeObject): Record<string, string> => o.metadata.labels ?? {}
export const nameOf = (o: KubeObject): string => o.metadata.name ?? ''
export const namespaceOf = (o: KubeObject): string => o.metadata.namespace ?? ''

/** The cache's key of a pod: namespace/name (uids change when a pod is re-created under its name). */
export const podKey = (pod: Pod): string => `${namespaceOf(pod)}/${nameOf(pod)}`

/** The pod's priority (spec.priority, set by the Priority admission plugin; 0 when absent). */
export const priorityOf = (pod: Pod): number => podSpec(pod).priority ?? 0
