/**
 * A Job's podFailurePolicy applied to one failed pod, as the reference's matchPodFailurePolicy
 * (pkg/controller/job/pod_failure_policy.go): the first rule whose onExitCodes (a container,
 * init containers included, terminated with a non-zero code In or NotIn the values, of the named
 * container when one is named) or onPodConditions (a condition of that type and status) match
 * decides: FailJob with the reference's message, Ignore (not counted towards the backoff limit),
 * FailIndex, or Count. No rule matching counts the failure.
 */
import type { KubeObject } from '../../api/registry/object.js'
import { type ContainerStatus, containerStatuses, initContainerStatuses, podConditions } from '../kit/pod-state.js'

export type PodFailureAction = 'FailJob' | 'Ignore' | 'Count' | 'FailIndex'

interface Rule {
  action: PodFailureAction
  onExitCodes?: { containerName?: string; operator: 'In' | 'NotIn'; values: number[] }
  onPodConditions?: Array<{ type: string; status: string }>
}

export interface PodFailureMatch {
  /** The FailJob message, when a FailJob rule matched. */
  readonly failJobMessage?: string
  /** Whether the failure counts towards the backoff limit (false for Ignore). */
  readonly countFailed: boolean
  readonly action?: PodFailureAction
}

export function matchPodFailurePolicy(policy: { rules?: Rule[] } | undefined, pod: KubeObject): PodFailureMatch {
  if (!policy) return { countFailed: true }
  for (const [index, rule] of (policy.rules ?? []).entries()) {
    if (rule.onExitCodes) {
      const container = matchOnExitCodes(pod, rule.onExitCodes)
      if (!container) continue
      if (rule.action === 'Ignore') return { countFailed: false, action: 'Ignore' }
      if (rule.action === 'FailJob') {
        const message = `Container ${container.name} for pod ${pod.metadata.namespace}/${pod.metadata.name} failed with exit code ${container.state!.terminated!.exitCode} matching ${rule.action} rule at index ${index}`
        return { failJobMessage: message, countFailed: true, action: 'FailJob' }
      }
      return { countFailed: true, action: rule.action }
    } else if (rule.onPodConditions) {
      const condition = podConditions(pod).find((c) => rule.onPodConditions!.some((p) => p.type === c.type && (p.status ?? 'True') === c.status))
      if (!condition) continue
      if (rule.action === 'Ignore') return { countFailed: false, action: 'Ignore' }
      if (rule.action === 'FailJob') {
        const message = `Pod ${pod.metadata.namespace}/${pod.metadata.name} has condition ${condition.type} matching ${rule.action} rule at index ${index}`
        return { failJobMessage: message, countFailed: true, action: 'FailJob' }
      }
      return { countFailed: true, action: rule.action }
    }
  }
  return { countFailed: true }
}

function matchOnExitCodes(pod: KubeObject, requirement: NonNullable<Rule['onExitCodes']>): ContainerStatus | undefined {
  const matches = (status: ContainerStatus): boolean => {
    const code = status.state?.terminated?.exitCode
    if (code === undefined || code === 0) return false
    if (requirement.containerName && requirement.containerName !== status.name) return false
    const listed = requirement.values.includes(code)
    return requirement.operator === 'In' ? listed : !listed
  }
  return containerStatuses(pod).find(matches) ?? initContainerStatuses(pod).find(matches)
}
