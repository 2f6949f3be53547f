/**
 * findMatchingVolume of the reference's PV controller (pkg/controller/volume/persistentvolume,
 * index.go and pkg/volume/util's FindMatchingVolume): of the volumes, the one pre-bound to the
 * claim (claimRef naming it) wins; otherwise the smallest Available one with the claim's class,
 * volume mode, at least its access modes and requested size, and labels its selector matches.
 * With delayed binding and no chosen node, only a pre-bound volume is taken (the scheduler
 * chooses the node first); with a chosen node, the volume's node affinity must hold there.
 */
import { matchesLabelSelector } from '../../../core/util/selectors.js'
import type { KubeObject } from '../../api/registry/object.js'
import { quantityValue } from '../../scheduler/resources.js'

interface ClaimRef {
  namespace?: string
  name?: string
  uid?: string
}
interface NodeSelectorRequirement {
  key: string
  operator: string
  values?: string[]
}
export interface VolumeSpec {
  claimRef?: ClaimRef
  storageClassName?: string
  capacity?: { storage?: unknown }
  accessModes?: string[]
  volumeMode?: string
  persistentVolumeReclaimPolicy?: string
  nodeAffinity?: { required?: { nodeSelectorTerms?: Array<{ matchExpressions?: NodeSelectorRequirement[] }> } }
}
export interface ClaimSpec {
  volumeName?: string
  storageClassName?: string
  accessModes?: string[]
  volumeMode?: string
  selector?: Record<string, unknown>
  resources?: { requests?: { storage?: unknown } }
}

export const volumeSpec = (pv: KubeObject): VolumeSpec => (pv.spec ?? {}) as VolumeSpec
export const claimSpec = (pvc: KubeObject): ClaimSpec => (pvc.spec ?? {}) as ClaimSpec
export const phaseOf = (o: KubeObject): string | undefined => (o.status as { phase?: string } | undefined)?.phase

/** The claim's class: spec.storageClassName, else the beta annotation, else "" (GetPersistentVolumeClaimClass). */
export function claimClass(pvc: KubeObject): string {
  return claimSpec(pvc).storageClassName ?? pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? ''
}

/** IsVolumeBoundToClaim: the volume's claimRef names this claim (and its uid, when the ref has one). */
export function isVolumeBoundToClaim(pv: KubeObject, pvc: KubeObject): boolean {
  const ref = volumeSpec(pv).claimRef
  if (!ref || ref.namespace !== pvc.metadata.namespace || ref.name !== pvc.metadata.name) return false
  return !ref.uid || ref.uid === pvc.metadata.uid
}

/** A node as the affinity check reads it: its name and labels. */
export interface NodeLabels {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
}

/** CheckNodeAffinity: a volume without node affinity fits everywhere; else one term must match the node's labels. */
export function nodeAffinityHolds(pv: KubeObject, node: NodeLabels): boolean {
  const terms = volumeSpec(pv).nodeAffinity?.required?.nodeSelectorTerms
  if (!terms) return true
  return terms.some((term) => (term.matchExpressions ?? []).every((req) => requirementHolds(req, node.labels)))
}

function requirementHolds(req: NodeSelectorRequirement, labels: Readonly<Record<string, string>>): boolean {
  const value = labels[req.key]
  switch (req.operator) {
    case 'In':
      return value !== undefined && (req.values ?? []).includes(value)
    case 'NotIn':
      return value === undefined || !(req.values ?? []).includes(value)
    case 'Exists':
      return value !== undefined
    case 'DoesNotExist':
      return value === undefined
    case 'Gt':
    case 'Lt': {
      const n = Number(value)
      const bound = Number(req.values?.[0])
      return value !== undefined && (req.operator === 'Gt' ? n > bound : n < bound)
    }
    default:
      return false
  }
}

/** CheckAccessModes: every mode the claim asks for is one of the volume's. */
const accessModesFit = (pv: KubeObject, pvc: KubeObject): boolean => (claimSpec(pvc).accessModes ?? []).every((m) => (volumeSpec(pv).accessModes ?? []).includes(m))

/** CheckVolumeModeMismatches: both default to Filesystem. */
const volumeModesFit = (pv: KubeObject, pvc: KubeObject): boolean => (volumeSpec(pv).volumeMode ?? 'Filesystem') === (claimSpec(pvc).volumeMode ?? 'Filesystem')

export interface MatchOptions {
  /** The claim's class binds on first consumer (WaitForFirstConsumer). */
  readonly delayBinding: boolean
  /** The node the scheduler chose (`volume.kubernetes.io/selected-node`), when it did. */
  readonly node?: NodeLabels
}

/** FindMatchingVolume: the volume to bind the claim to, or undefined. */
export function findMatchingVolume(pvc: KubeObject, volumes: readonly KubeObject[], options: MatchOptions): KubeObject | undefined {
  const requested = quantityValue(claimSpec(pvc).resources?.requests?.storage)
  const klass = claimClass(pvc)
  const selector = claimSpec(pvc).selector
  let smallest: KubeObject | undefined
  for (const pv of volumes) {
    if (pv.metadata.deletionTimestamp) continue
    if (!volumeModesFit(pv, pvc)) continue
    if (options.node && !nodeAffinityHolds(pv, options.node)) continue
    const size = quantityValue(volumeSpec(pv).capacity?.storage)
    if (isVolumeBoundToClaim(pv, pvc)) {
      // A pre-bound volume is taken whatever its class or selector, if it is big enough and its modes fit.
      if (size >= requested && accessModesFit(pv, pvc)) return pv
      continue
    }
    if (options.delayBinding && !options.node) continue
    if (volumeSpec(pv).claimRef) continue
    if (phaseOf(pv) !== 'Available') continue
    if ((volumeSpec(pv).storageClassName ?? '') !== klass) continue
    if (selector && !matchesLabelSelector(selector, pv.metadata.labels)) continue
    if (!accessModesFit(pv, pvc) || size < requested) continue
    if (!smallest || size < quantityValue(volumeSpec(smallest).capacity?.storage)) smallest = pv
  }
  return smallest
}
