/**
 * The pod a pod plugin decides on: the request's object, which must be a Pod; anything else
 * marked as one is the reference's BadRequest (`Resource was marked with kind Pod but was
 * unable to be converted`).
 */
import { isPlainObject, type KubeObject } from '../api/registry/object.js'
import { errors } from '../api/status-errors.js'
import type { AdmissionAttributes } from './attributes.js'

export function podOf(attributes: AdmissionAttributes): KubeObject {
  const pod = attributes.object
  if (!pod || (pod.kind !== undefined && pod.kind !== 'Pod')) throw errors.badRequest('Resource was marked with kind Pod but was unable to be converted')
  return pod
}

/** Whether the request is for pods proper (not a subresource, not another resource). */
export function isPodProper(attributes: AdmissionAttributes): boolean {
  return attributes.subresource === '' && attributes.resource.group === '' && attributes.resource.resource === 'pods'
}

/** The pod's spec, made if absent, for plugins that change it. */
export function specOf(pod: KubeObject): Record<string, unknown> {
  return isPlainObject(pod.spec) ? pod.spec : (pod.spec = {})
}
