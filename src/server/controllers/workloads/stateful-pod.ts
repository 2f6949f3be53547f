/**
 * A StatefulSet pod's stable identity and storage, as the reference's stateful_set_utils.go
 * makes them: named `<set>-<ordinal>`, labelled `statefulset.kubernetes.io/pod-name` and
 * `apps.kubernetes.io/pod-index`, hostname its name and subdomain the governing service; each
 * volumeClaimTemplate a claim `<claim>-<set>-<ordinal>` mounted as the volume of the template's
 * name; `controller-revision-hash` the revision it was made from.
 */
import type { KubeObject } from '../../api/registry/object.js'
import type { OwnerReference } from './controller-ref.js'
import { POD_REVISION_LABEL } from './controller-revision.js'
import { type PodTemplate, podFromTemplate } from './pod-from-template.js'

export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name'
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index'

interface ClaimTemplate {
  metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> }
  spec?: Record<string, unknown>
}

export function claimTemplates(set: KubeObject): ClaimTemplate[] {
  return ((set.spec as { volumeClaimTemplates?: ClaimTemplate[] }).volumeClaimTemplates ?? []) as ClaimTemplate[]
}

/** getOrdinal: the ordinal of `<set>-<n>`, or -1. */
export function ordinalOf(set: KubeObject, pod: KubeObject): number {
  const prefix = `${set.metadata.name}-`
  const name = pod.metadata.name ?? ''
  if (!name.startsWith(prefix)) return -1
  const rest = name.slice(prefix.length)
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : -1
}

export function claimName(claim: string, set: string, ordinal: number): string {
  return `${claim}-${set}-${ordinal}`
}

/** newStatefulSetPod + setPodRevision, from `template` (the current or the update revision's). */
export function statefulPod(set: KubeObject, template: PodTemplate, ordinal: number, revision: string, ref: OwnerReference): KubeObject {
  const name = `${set.metadata.name}-${ordinal}`
  const pod = podFromTemplate(template, set.metadata.namespace!, ref, { name })
  pod.metadata.labels = { ...(pod.metadata.labels as Record<string, string> | undefined), [POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinal), [POD_REVISION_LABEL]: revision }
  const spec = pod.spec as { hostname?: string; subdomain?: string; volumes?: Array<{ name: string }> }
  spec.hostname = name
  const service = (set.spec as { serviceName?: string }).serviceName
  if (service) spec.subdomain = service
  const templates = claimTemplates(set)
  if (templates.length > 0) {
    const claimed = new Set(templates.map((t) => t.metadata?.name))
    const volumes = templates.map((t) => ({ name: t.metadata!.name!, persistentVolumeClaim: { claimName: claimName(t.metadata!.name!, set.metadata.name!, ordinal) } }))
    spec.volumes = [...volumes, ...(spec.volumes ?? []).filter((v) => !claimed.has(v.name))]
  }
  return pod
}

/** getPersistentVolumeClaims: the claims of one ordinal, labelled with the set's matchLabels. */
export function statefulClaims(set: KubeObject, ordinal: number, owners: OwnerReference[] = []): KubeObject[] {
  const matchLabels = ((set.spec as { selector?: { matchLabels?: Record<string, string> } }).selector?.matchLabels ?? {}) as Record<string, string>
  return claimTemplates(set).map((t) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      ...structuredClone(t.metadata ?? {}),
      name: claimName(t.metadata!.name!, set.metadata.name!, ordinal),
      namespace: set.metadata.namespace,
      labels: { ...t.metadata?.labels, ...matchLabels },
      ...(owners.length ? { ownerReferences: owners } : {}),
    },
    spec: structuredClone(t.spec ?? {}),
  }))
}

/** persistentVolumeClaimRetentionPolicy, Retain for both when absent. */
export function retentionPolicy(set: KubeObject): { whenDeleted: string; whenScaled: string } {
  const policy = (set.spec as { persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string } }).persistentVolumeClaimRetentionPolicy
  return { whenDeleted: policy?.whenDeleted ?? 'Retain', whenScaled: policy?.whenScaled ?? 'Retain' }
}

/**
 * The owner references a claim gets by the retention policy (updateClaimOwnerRefForSetAndPod):
 * the StatefulSet's when claims go with it (whenDeleted: Delete) and the pod is not scaled down;
 * the pod's when it is scaled down and claims go with scale down (whenScaled: Delete).
 */
export function claimOwners(set: KubeObject, setRef: OwnerReference, pod: KubeObject | undefined, scaledDown: boolean): OwnerReference[] {
  const { whenDeleted, whenScaled } = retentionPolicy(set)
  if (scaledDown && whenScaled === 'Delete' && pod?.metadata.uid) {
    return [{ apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name!, uid: pod.metadata.uid, controller: true, blockOwnerDeletion: true }]
  }
  if (whenDeleted === 'Delete' && !(scaledDown && whenScaled === 'Delete')) return [setRef]
  return []
}
