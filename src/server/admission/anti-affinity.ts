/**
 * The LimitPodHardAntiAffinityTopology admission plugin (the reference's
 * `plugin/pkg/admission/antiaffinity`): a pod's required pod anti-affinity may only spread over
 * `kubernetes.io/hostname`, so one tenant's anti-affinity cannot keep a whole zone from others.
 */
import { isPlainObject } from '../api/registry/object.js'
import { errors } from '../api/status-errors.js'
import { type AdmissionAttributes, CREATE, UPDATE } from './attributes.js'
import { type ValidationInterface, handlesOnly } from './interfaces.js'
import { isPodProper, podOf } from './pod-of.js'

export const LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY = 'LimitPodHardAntiAffinityTopology'

const LABEL_HOSTNAME = 'kubernetes.io/hostname'

export class LimitPodHardAntiAffinityTopology implements ValidationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE)

  async validate(attributes: AdmissionAttributes): Promise<void> {
    if (!isPodProper(attributes)) return
    const pod = podOf(attributes)
    const affinity = isPlainObject(pod.spec) ? pod.spec.affinity : undefined
    const antiAffinity = isPlainObject(affinity) ? affinity.podAntiAffinity : undefined
    // requiredDuringSchedulingRequiredDuringExecution is not implemented in the reference either.
    const terms = isPlainObject(antiAffinity) && Array.isArray(antiAffinity.requiredDuringSchedulingIgnoredDuringExecution) ? antiAffinity.requiredDuringSchedulingIgnoredDuringExecution : []
    for (const term of terms) {
      const topologyKey = isPlainObject(term) && typeof term.topologyKey === 'string' ? term.topologyKey : ''
      if (topologyKey === LABEL_HOSTNAME) continue
      const { group, resource } = attributes.resource
      throw errors.forbidden({ group, resource }, pod.metadata.name ?? '', `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${topologyKey} but only key ${LABEL_HOSTNAME} is allowed`)
    }
  }
}
