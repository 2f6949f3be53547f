/**
 * The pod a DaemonSet runs on one node, as the reference makes it (pkg/controller/daemon/util):
 * CreatePodTemplate adds the DaemonSet tolerations (AddOrUpdateDaemonPodTolerations) and the
 * revision hash label; ReplaceDaemonSetPodNodeNameNodeAffinity pins the pod to its node with a
 * required node affinity on `metadata.name`, so the default scheduler binds it there.
 */
import type { KubeObject } from '../../api/registry/object.js'
import type { Toleration } from './node-eligibility.js'
import type { PodTemplate } from './pod-from-template.js'
import { POD_REVISION_LABEL } from './controller-revision.js'

/** The tolerations in the order AddOrUpdateDaemonPodTolerations adds them. */
export function daemonTolerations(hostNetwork: boolean): Toleration[] {
  return [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
    ...(hostNetwork ? [{ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' }] : []),
  ]
}

/** AddOrUpdateTolerationInPodSpec for each: an equal toleration (key, operator, value, effect) is replaced, others kept. */
function withDaemonTolerations(spec: Record<string, unknown>): Toleration[] {
  const tolerations = [...((spec.tolerations ?? []) as Toleration[])]
  for (const added of daemonTolerations(spec.hostNetwork === true)) {
    const at = tolerations.findIndex((t) => t.key === added.key && (t.operator ?? 'Equal') === added.operator && (t.effect ?? '') === added.effect)
    if (at >= 0) tolerations[at] = added
    else tolerations.push(added)
  }
  return tolerations
}

/** CreatePodTemplate: tolerations, the hash label and (when the DaemonSet has it) the template generation label. */
export function daemonPodTemplate(ds: KubeObject, hash: string): PodTemplate {
  const template = structuredClone(((ds.spec as { template?: PodTemplate }).template ?? {}) as PodTemplate)
  const spec = template.spec ?? {}
  spec.tolerations = withDaemonTolerations(spec)
  template.spec = spec
  const labels = { ...template.metadata?.labels }
  const generation = ds.metadata.annotations?.['deprecated.daemonset.template.generation']
  if (generation !== undefined) labels['pod-template-generation'] = String(generation)
  labels[POD_REVISION_LABEL] = hash
  template.metadata = { ...template.metadata, labels }
  return template
}

/** The template with its required node affinity replaced by one selecting `nodeName`. */
export function pinnedToNode(template: PodTemplate, nodeName: string): PodTemplate {
  const pinned = structuredClone(template)
  const spec = (pinned.spec ?? {}) as { affinity?: { nodeAffinity?: Record<string, unknown> } & Record<string, unknown> }
  const term = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }
  spec.affinity = { ...spec.affinity, nodeAffinity: { ...spec.affinity?.nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } } }
  pinned.spec = spec as Record<string, unknown>
  return pinned
}

/** GetTargetNodeName: the pod's node, or the node its affinity pins it to while unscheduled. */
export function targetNodeName(pod: KubeObject): string | undefined {
  const spec = (pod.spec ?? {}) as { nodeName?: string; affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: Array<{ matchFields?: Array<{ key: string; operator: string; values?: string[] }> }> } } } }
  if (spec.nodeName) return spec.nodeName
  for (const term of spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const field of term.matchFields ?? []) if (field.key === 'metadata.name' && field.operator === 'In' && field.values?.length === 1) return field.values[0]
  }
  return undefined
}
