/**
 * VolumeBinding (pkg/scheduler/framework/plugins/volumebinding), for PersistentVolumeClaims:
 * PreFilter rejects a pod whose claim is missing or being deleted, or is unbound in an
 * Immediate StorageClass (the PV controller binds those); Filter checks a bound claim's volume
 * node affinity, and for an unbound WaitForFirstConsumer claim looks for an Available volume
 * that fits on the node, else for a provisioner that can make one; PreBind (after the node is
 * chosen) writes the claim's `volume.kubernetes.io/selected-node` for the provisioner and waits
 * for the claim to be bound. Not covered: CSI storage capacity, volume zone labels.
 */
import type { KubeObject } from '../../api/registry/object.js'
import type { SchedulerCache } from '../cache.js'
import type { FilterPlugin } from '../framework.js'
import type { NodeInfo } from '../node-info.js'
import { type NodeSelectorTerm, type Pod, podSpec } from '../objects.js'
import { quantityValue } from '../resources.js'
import { type Status, unresolvable } from '../status.js'
import { anyTermMatches } from './node-selector.js'

export const ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
export const ERR_REASON_NODE_CONFLICT = 'node(s) had volume node affinity conflict'
export const ERR_REASON_PV_NOT_EXIST = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)'
export const ERR_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims'
export const SELECTED_NODE_ANNOTATION = 'volume.kubernetes.io/selected-node'

const NO_PROVISIONER = 'kubernetes.io/no-provisioner'

interface Claims {
  readonly bound: KubeObject[]
  readonly delayed: KubeObject[]
}

/** The claim names a pod's volumes use: claimName, or `<pod>-<volume>` for generic ephemeral volumes. */
export function claimNames(pod: Pod): string[] {
  return (podSpec(pod).volumes ?? []).flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : v.ephemeral ? [`${pod.metadata.name ?? ''}-${v.name}`] : []))
}

const claimSpec = (pvc: KubeObject) => (pvc.spec ?? {}) as { volumeName?: string; storageClassName?: string; accessModes?: string[]; resources?: { requests?: { storage?: unknown } } }

/** The claim's class: spec.storageClassName, the beta annotation, or none. */
export function classOf(pvc: KubeObject): string {
  return claimSpec(pvc).storageClassName ?? pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? ''
}

function isDelayed(pvc: KubeObject, cache: SchedulerCache): boolean {
  const sc = cache.auxObject('storageclasses', '', classOf(pvc))
  return (sc as { volumeBindingMode?: string } | undefined)?.volumeBindingMode === 'WaitForFirstConsumer'
}

const STATE = 'VolumeBinding'

function volumeFits(pv: KubeObject, pvc: KubeObject, node: NodeInfo): boolean {
  const spec = (pv.spec ?? {}) as { claimRef?: { namespace?: string; name?: string }; storageClassName?: string; capacity?: { storage?: unknown }; accessModes?: string[]; nodeAffinity?: { required?: { nodeSelectorTerms?: NodeSelectorTerm[] } } }
  if ((pv.status as { phase?: string } | undefined)?.phase !== 'Available') return false
  if (spec.claimRef && (spec.claimRef.namespace !== pvc.metadata.namespace || spec.claimRef.name !== pvc.metadata.name)) return false
  if ((spec.storageClassName ?? '') !== classOf(pvc)) return false
  if (quantityValue(spec.capacity?.storage) < quantityValue(claimSpec(pvc).resources?.requests?.storage)) return false
  if (!(claimSpec(pvc).accessModes ?? []).every((m) => (spec.accessModes ?? []).includes(m))) return false
  return nodeAffinityHolds(pv, node)
}

function nodeAffinityHolds(pv: KubeObject, node: NodeInfo): boolean {
  const terms = (pv.spec as { nodeAffinity?: { required?: { nodeSelectorTerms?: NodeSelectorTerm[] } } } | undefined)?.nodeAffinity?.required?.nodeSelectorTerms
  return terms === undefined || anyTermMatches(terms, node.node!)
}

export const volumeBinding: FilterPlugin = {
  name: 'VolumeBinding',
  preFilter(state): Status | undefined {
    const ns = state.pod.metadata.namespace ?? ''
    const claims: Claims = { bound: [], delayed: [] }
    let unboundImmediate = false
    for (const name of claimNames(state.pod)) {
      const pvc = state.cache.auxObject('persistentvolumeclaims', ns, name)
      if (!pvc) return unresolvable(`persistentvolumeclaim "${name}" not found`)
      if (pvc.metadata.deletionTimestamp) return unresolvable(`persistentvolumeclaim "${name}" is being deleted`)
      if (claimSpec(pvc).volumeName) claims.bound.push(pvc)
      else if (isDelayed(pvc, state.cache)) claims.delayed.push(pvc)
      else unboundImmediate = true
    }
    if (unboundImmediate) return unresolvable(ERR_UNBOUND_IMMEDIATE)
    state.data.set(STATE, claims)
    return undefined
  },
  filter(state, node) {
    const claims = state.data.get(STATE) as Claims | undefined
    if (!claims) return undefined
    const reasons = new Set<string>()
    for (const pvc of claims.bound) {
      const pv = state.cache.auxObject('persistentvolumes', '', claimSpec(pvc).volumeName!)
      if (!pv) reasons.add(ERR_REASON_PV_NOT_EXIST)
      else if (!nodeAffinityHolds(pv, node)) reasons.add(ERR_REASON_NODE_CONFLICT)
    }
    for (const pvc of claims.delayed) {
      const matching = [...state.cache.auxObjects('persistentvolumes')].some((pv) => volumeFits(pv, pvc, node))
      const provisioner = (state.cache.auxObject('storageclasses', '', classOf(pvc)) as { provisioner?: string } | undefined)?.provisioner
      if (!matching && (!provisioner || provisioner === NO_PROVISIONER)) reasons.add(ERR_REASON_BIND_CONFLICT)
    }
    return reasons.size > 0 ? unresolvable(...reasons) : undefined
  },
}

/** The pod's delayed (WaitForFirstConsumer) claims still unbound, read from the last cycle's state. */
export function delayedClaims(data: Map<string, unknown>): KubeObject[] {
  return (data.get(STATE) as Claims | undefined)?.delayed ?? []
}
