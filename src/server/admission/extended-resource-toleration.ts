/**
 * The ExtendedResourceToleration admission plugin (the reference's
 * `plugin/pkg/admission/extendedresourcetoleration`): a pod requesting an extended resource
 * (`example.com/device`) in a container or an init container tolerates the NoSchedule taint of
 * that name, so nodes dedicated to such devices can be tainted without every pod saying so.
 */
import { isPlainObject } from '../api/registry/object.js'
import { errors } from '../api/status-errors.js'
import { isExtendedResourceName } from '../api/validation/core/resources.js'
import { type AdmissionAttributes, CREATE, UPDATE } from './attributes.js'
import { type MutationInterface, handlesOnly } from './interfaces.js'
import { isPodProper, specOf } from './pod-of.js'
import { addOrUpdateToleration } from './tolerations.js'

export const EXTENDED_RESOURCE_TOLERATION = 'ExtendedResourceToleration'

export class ExtendedResourceToleration implements MutationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE)

  async admit(attributes: AdmissionAttributes): Promise<void> {
    if (!isPodProper(attributes)) return
    const pod = attributes.object
    if (!pod || (pod.kind !== undefined && pod.kind !== 'Pod')) throw errors.badRequest(`expected *core.Pod but got ${pod ? `*core.${pod.kind}` : '<nil>'}`)
    const spec = specOf(pod)
    const names = new Set<string>()
    for (const list of [spec.containers, spec.initContainers]) {
      for (const container of Array.isArray(list) ? list : []) {
        const requests = isPlainObject(container) && isPlainObject(container.resources) ? container.resources.requests : undefined
        for (const name of isPlainObject(requests) ? Object.keys(requests) : []) if (isExtendedResourceName(name)) names.add(name)
      }
    }
    // Sorted, as the reference's sets.String.List(), so the tolerations come in a stable order.
    for (const name of [...names].sort()) addOrUpdateToleration(spec, { key: name, operator: 'Exists', effect: 'NoSchedule' })
  }
}
