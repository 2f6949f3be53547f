/**
 * What the controllers read of a pod, as the reference's podutil helpers: its phase, its Ready
 * condition, whether it is terminal or being deleted, and its containers' exit codes (written
 * by the simulated nodes, or by a test).
 */
import type { KubeObject } from '../../api/registry/object.js'

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : [])

export interface PodCondition {
  type: string
  status: string
  reason?: string
  message?: string
  lastTransitionTime?: string
}

export const podPhase = (pod: KubeObject): string => String(obj(pod.status).phase ?? '')
export const podConditions = (pod: KubeObject): PodCondition[] => arr(obj(pod.status).conditions) as unknown as PodCondition[]
export const isTerminal = (pod: KubeObject): boolean => podPhase(pod) === 'Succeeded' || podPhase(pod) === 'Failed'
export const isDeleting = (pod: KubeObject): boolean => pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null
/** IsPodReady: the Ready condition is True. */
export const isPodReady = (pod: KubeObject): boolean => podConditions(pod).some((c) => c.type === 'Ready' && c.status === 'True')
/** IsPodActive: neither terminal nor being deleted. */
export const isPodActive = (pod: KubeObject): boolean => !isTerminal(pod) && !isDeleting(pod)

export interface ContainerStatus {
  name: string
  restartCount?: number
  state?: { terminated?: { exitCode?: number; finishedAt?: string } }
}

export const containerStatuses = (pod: KubeObject): ContainerStatus[] => arr(obj(pod.status).containerStatuses) as unknown as ContainerStatus[]
export const initContainerStatuses = (pod: KubeObject): ContainerStatus[] => arr(obj(pod.status).initContainerStatuses) as unknown as ContainerStatus[]

export const podSpec = (pod: KubeObject): Obj => obj(pod.spec)
export const nodeNameOf = (pod: KubeObject): string => String(podSpec(pod).nodeName ?? '')
export const podIPOf = (pod: KubeObject): string => String(obj(pod.status).podIP ?? '')
