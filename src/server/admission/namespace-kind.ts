/** Whether the request is about a Namespace itself (the reference's `GroupKind() == api.Kind("Namespace")`). */
import type { AdmissionAttributes } from './attributes.js'

export function isNamespace(attributes: AdmissionAttributes): boolean {
  return attributes.kind.group === '' && attributes.kind.kind === 'Namespace'
}
